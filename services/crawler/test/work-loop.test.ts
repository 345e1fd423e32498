/**
 * The WorkLoop contract, driven through `LoopFrontier` (the loop's own interface, so an
 * in-memory frontier stands in for Redis there) and a real Redis pub/sub connection for the
 * wake channel. Real timers throughout: the loop's sleeps are what is under test, so claims
 * are counted over windows and timing bounds stay generous; a lower bound ("not before the
 * due time") is asserted only where sleeping less would be the bug.
 */
import { type ClaimResult, type Lease, LeaseLostError, type LeaseRef } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { type LoopFrontier, WorkLoop, type WorkLoopOptions } from '../src/work-loop.js';

const POD = 'pod-a';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let serial = 0;
/** A lease of a host of its own, due now. */
function lease(overrides: Partial<Lease> = {}): Lease {
  serial += 1;
  const host = `h${serial}.test`;
  return {
    id: `${host}/${host}/1`,
    url: `http://${host}/`,
    host,
    domain: host,
    priority: 0,
    depth: 0,
    attempt: 1,
    deadlineMs: Date.now() + 30_000,
    claimedAtMs: Date.now(),
    pod: POD,
    meta: '',
    ...overrides,
  };
}

interface MemoryFrontierOptions {
  /** "Redis" clock minus the local clock, to check that due times are converted. */
  offsetMs?: number;
  /** Most leases one claim hands out, whatever `max` asks. */
  perClaim?: number;
  /** Offer `heartbeatMany` (the batched sweep) or only per-lease `heartbeat`. */
  batched?: boolean;
  /** How long a claim takes. */
  claimMs?: number;
}

/**
 * `LoopFrontier` in memory: `queue` holds what is due now, `dueInMs` what the due index would
 * report next when the queue is empty (relative to the claim), `lost` the leases whose
 * heartbeat finds them gone.
 */
class MemoryFrontier implements LoopFrontier {
  readonly offsetMs: number;
  readonly queue: Lease[] = [];
  readonly claims: { atMs: number; max: number; got: number; leadMs?: number }[] = [];
  /** Every lease handed out, in order. */
  readonly handedOut: Lease[] = [];
  /** One entry per heartbeat call: when, and which leases. */
  readonly beats: { atMs: number; ids: string[] }[] = [];
  readonly released: string[] = [];
  readonly lost = new Set<string>();
  dueInMs: number | null = null;
  failNextClaims = 0;
  failNextSweep: Error | undefined;
  readonly heartbeatMany?: (leases: readonly LeaseRef[]) => Promise<(number | Error)[]>;
  readonly #perClaim: number;
  readonly #claimMs: number;

  constructor(options: MemoryFrontierOptions = {}) {
    this.offsetMs = options.offsetMs ?? 0;
    this.#perClaim = options.perClaim ?? Number.POSITIVE_INFINITY;
    this.#claimMs = options.claimMs ?? 0;
    if (options.batched ?? true) {
      this.heartbeatMany = async (leases) => {
        this.beats.push({ atMs: Date.now(), ids: leases.map((l) => l.id) });
        const failure = this.failNextSweep;
        this.failNextSweep = undefined;
        if (failure) throw failure;
        return leases.map((l) =>
          this.lost.has(l.id) ? new LeaseLostError(l.id) : this.#deadline(),
        );
      };
    }
  }

  /** The frontier's clock ("Redis time"). */
  now(): number {
    return Date.now() + this.offsetMs;
  }

  async claim(request: { pod: string; max?: number; leadMs?: number }): Promise<ClaimResult> {
    const max = request.max ?? 1;
    const atMs = Date.now();
    // What is due is decided when the claim runs, as in the claim script.
    const leases = this.queue.splice(0, Math.min(max, this.#perClaim));
    const nowMs = this.now();
    const nextDueAtMs =
      this.queue.length > 0 ? nowMs : this.dueInMs === null ? null : nowMs + this.dueInMs;
    if (this.#claimMs > 0) await sleep(this.#claimMs);
    this.claims.push({
      atMs,
      max,
      got: leases.length,
      ...(request.leadMs === undefined ? {} : { leadMs: request.leadMs }),
    });
    if (this.failNextClaims > 0) {
      this.failNextClaims -= 1;
      this.queue.unshift(...leases);
      throw new Error('claim failed');
    }
    this.handedOut.push(...leases);
    return { leases, nextDueAtMs, nowMs, reaped: 0 };
  }

  async heartbeat(ref: LeaseRef): Promise<number> {
    this.beats.push({ atMs: Date.now(), ids: [ref.id] });
    if (this.lost.has(ref.id)) throw new LeaseLostError(ref.id);
    const failure = this.failNextSweep;
    this.failNextSweep = undefined;
    if (failure) throw failure;
    return this.#deadline();
  }

  async release(ref: LeaseRef): Promise<void> {
    this.released.push(ref.id);
  }

  /** Claims made since `fromMs` (local). */
  claimsSince(fromMs: number): number {
    return this.claims.filter((c) => c.atMs >= fromMs).length;
  }

  #deadline(): number {
    return this.now() + 30_000;
  }
}

/** Leases held by the test until it lets them go; an abort releases them, as the pod does. */
class Handler {
  readonly started: string[] = [];
  readonly finished: string[] = [];
  readonly aborted: string[] = [];
  maxConcurrent = 0;
  #running = 0;
  readonly #waiting = new Map<string, () => void>();
  /** When false every lease finishes at once. */
  hold = true;

  constructor(readonly frontier: MemoryFrontier) {}

  readonly handle = async (lease: Lease, signal: AbortSignal): Promise<void> => {
    this.started.push(lease.id);
    this.#running += 1;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.#running);
    try {
      if (!this.hold) return;
      const outcome = await new Promise<'done' | 'aborted'>((resolve) => {
        this.#waiting.set(lease.id, () => resolve('done'));
        signal.addEventListener('abort', () => resolve('aborted'), { once: true });
      });
      this.#waiting.delete(lease.id);
      if (outcome === 'aborted') {
        this.aborted.push(lease.id);
        await this.frontier.release(lease);
      }
    } finally {
      this.#running -= 1;
      this.finished.push(lease.id);
    }
  };

  /** Lets the oldest held lease finish. */
  finishOne(): void {
    const [id, resolve] = this.#waiting.entries().next().value ?? [];
    if (!id || !resolve) throw new Error('no lease is held');
    this.#waiting.delete(id);
    resolve();
  }

  finishAll(): void {
    for (const resolve of this.#waiting.values()) resolve();
    this.#waiting.clear();
  }
}

let server: RedisServer;
let publisher: Redis;
const subscribers: Redis[] = [];
const loops: WorkLoop[] = [];

beforeAll(async () => {
  server = await startRedis();
  publisher = new Redis(server.port, server.host);
});

afterEach(async () => {
  await Promise.allSettled(loops.splice(0).map((loop) => loop.stop(0)));
  for (const s of subscribers.splice(0)) s.disconnect();
});

afterAll(async () => {
  publisher.disconnect();
  await server.stop();
});

interface Rig {
  loop: WorkLoop;
  frontier: MemoryFrontier;
  handler: Handler;
  errors: { error: unknown; where: string }[];
  lost: string[];
  /** Publishes a due time (the frontier's clock, ms from now) on the loop's wake channel. */
  wake(dueInMs: number): Promise<void>;
}

let channelSerial = 0;

/** A started loop over a fresh in-memory frontier and a real wake subscription. */
async function rig(
  options: Partial<WorkLoopOptions> = {},
  frontierOptions: MemoryFrontierOptions = {},
  setup: (frontier: MemoryFrontier) => void = () => {},
): Promise<Rig> {
  const frontier = new MemoryFrontier(frontierOptions);
  setup(frontier);
  const handler = new Handler(frontier);
  const subscriber = new Redis(server.port, server.host);
  subscribers.push(subscriber);
  channelSerial += 1;
  const channel = `test:wake:${process.pid}:${channelSerial}`;
  const errors: Rig['errors'] = [];
  const lost: string[] = [];
  const loop = new WorkLoop({
    frontier,
    pod: POD,
    handle: handler.handle,
    concurrency: 4,
    wake: { channel, subscriber },
    minClaimIntervalMs: 10,
    maxIdleSleepMs: 10_000,
    heartbeatIntervalMs: 0,
    onError: (error, where) => errors.push({ error, where }),
    onLeaseLost: (l) => lost.push(l.id),
    ...options,
  });
  loops.push(loop);
  await loop.start();
  return {
    loop,
    frontier,
    handler,
    errors,
    lost,
    wake: async (dueInMs) => {
      await publisher.publish(channel, String(frontier.now() + dueInMs));
    },
  };
}

describe('WorkLoop claims', () => {
  it('claims only for free slots, and claims again when a slot frees, not before', async () => {
    const { loop, frontier, handler } = await rig({ concurrency: 3 }, {}, (f) => {
      for (let i = 0; i < 10; i++) f.queue.push(lease());
    });
    await vi.waitFor(() => expect(loop.inFlight).toBe(3));
    expect(frontier.claims[0]?.max).toBe(3);
    // Full: the loop waits for a slot, it does not claim.
    const full = Date.now();
    await sleep(300);
    expect(frontier.claimsSince(full)).toBe(0);

    handler.finishOne();
    await vi.waitFor(() => expect(handler.started).toHaveLength(4));
    expect(frontier.claims.at(-1)?.max).toBe(1);
    expect(loop.inFlight).toBe(3);
    expect(handler.maxConcurrent).toBe(3);
    expect(loop.stats()).toMatchObject({ claimed: 4, inFlight: 3 });
  });

  it('claims nothing while canClaim() is false, and starts once it turns true', async () => {
    let ready = false;
    const { frontier, handler } = await rig(
      { canClaim: () => ready, notReadyPollMs: 20 },
      {},
      (f) => f.queue.push(lease()),
    );
    await sleep(300);
    expect(frontier.claims).toHaveLength(0);
    ready = true;
    await vi.waitFor(() => expect(handler.started).toHaveLength(1), { timeout: 2_000 });
  });

  it('does not claim when canClaim() turns false during the pause between claims', async () => {
    let ready = true;
    // Due again at once, but the next claim must wait out minClaimIntervalMs.
    const { frontier } = await rig({ canClaim: () => ready, minClaimIntervalMs: 400 }, {}, (f) => {
      f.dueInMs = 0;
    });
    await vi.waitFor(() => expect(frontier.claims).toHaveLength(1));
    ready = false;
    await sleep(800);
    expect(frontier.claims).toHaveLength(1);
  });

  it('batches: claims that leave slots free are at least minClaimIntervalMs apart', async () => {
    // Work is always due, but each claim hands out one lease of the four slots asked for.
    const { frontier, handler } = await rig({ minClaimIntervalMs: 100 }, { perClaim: 1 }, (f) => {
      for (let i = 0; i < 100; i++) f.queue.push(lease());
    });
    handler.hold = false;
    await sleep(1_000);
    const claims = frontier.claims.length;
    expect(claims).toBeGreaterThanOrEqual(3);
    expect(claims).toBeLessThanOrEqual(12);
    const gaps = frontier.claims.slice(1).map((c, i) => c.atMs - frontier.claims[i]!.atMs);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(95);
  });

  it('reports a failed claim to onError and keeps going', async () => {
    const { handler, errors } = await rig({ maxIdleSleepMs: 100 }, {}, (f) => {
      f.failNextClaims = 1;
      f.queue.push(lease());
    });
    await vi.waitFor(() => expect(handler.started).toHaveLength(1), { timeout: 3_000 });
    expect(errors).toEqual([{ error: new Error('claim failed'), where: 'claim' }]);
  });
});

describe('WorkLoop sleeps', () => {
  it('when idle, claims about once per maxIdleSleepMs: no poll loop', async () => {
    const { frontier } = await rig({ maxIdleSleepMs: 200 });
    await sleep(1_000);
    // ~6 claims in 1 s (one at start, then one per 200 ms); a poll loop would make hundreds.
    expect(frontier.claims.length).toBeGreaterThanOrEqual(3);
    expect(frontier.claims.length).toBeLessThanOrEqual(8);
    expect(frontier.claims.every((c) => c.got === 0)).toBe(true);
  });

  it('sleeps until the next due time, read on the frontier clock', async () => {
    // The frontier's clock runs an hour ahead: the due time must be converted, not compared.
    const { frontier } = await rig({}, { offsetMs: 3_600_000 }, (f) => {
      f.dueInMs = 400;
    });
    await vi.waitFor(() => expect(frontier.claims).toHaveLength(2), { timeout: 5_000 });
    const [first, second] = frontier.claims;
    expect(second!.atMs - first!.atMs).toBeGreaterThanOrEqual(380);
  });

  it('with claimLeadMs, claims that long before the next due time (and wake message), asking for the lead', async () => {
    const { frontier, wake } = await rig({ claimLeadMs: 300 }, { offsetMs: 3_600_000 }, (f) => {
      f.dueInMs = 700;
    });
    await vi.waitFor(() => expect(frontier.claims).toHaveLength(2), { timeout: 5_000 });
    const [first, second] = frontier.claims;
    expect(second!.atMs - first!.atMs).toBeGreaterThanOrEqual(380);
    // Without the lead it would sleep the whole 700 ms.
    expect(second!.atMs - first!.atMs).toBeLessThan(680);
    expect(frontier.claims.map((c) => c.leadMs)).toEqual([300, 300]);
    // A wake message is taken the lead early too.
    frontier.dueInMs = 60_000;
    await vi.waitFor(() => expect(frontier.claims).toHaveLength(3), { timeout: 5_000 });
    const sentAt = Date.now();
    await wake(500);
    await vi.waitFor(() => expect(frontier.claims).toHaveLength(4), { timeout: 5_000 });
    expect(frontier.claims[3]!.atMs - sentAt).toBeLessThan(480);
  });

  it('a wake message for an earlier due time ends the sleep; a later one does not', async () => {
    const { frontier, wake, loop } = await rig({}, {}, (f) => {
      f.dueInMs = 60_000;
    });
    await vi.waitFor(() => expect(frontier.claims).toHaveLength(1));
    await wake(120_000); // later than the sleep's end: ignored
    await publisher.publish('unrelated', '0');
    await sleep(300);
    expect(frontier.claims).toHaveLength(1);
    expect(loop.stats().wakes).toBe(1);

    frontier.queue.push(lease());
    await wake(0);
    await vi.waitFor(() => expect(frontier.claims).toHaveLength(2), { timeout: 2_000 });
    expect(frontier.claims[1]?.got).toBe(1);
  });

  it('a wake message that arrives while a claim is running is not lost', async () => {
    // Each claim takes 200 ms, and what is enqueued meanwhile is not in its answer.
    const { frontier, wake } = await rig({}, { claimMs: 200 });
    // start() has sent the first claim; work arrives, and its wake message, while it runs.
    await sleep(50);
    frontier.queue.push(lease());
    await wake(0);
    await vi.waitFor(() => expect(frontier.claims.map((c) => c.got)).toEqual([0, 1]), {
      timeout: 3_000,
    });
  });

  it('poke() ends the sleep at once', async () => {
    const { frontier, loop } = await rig();
    await vi.waitFor(() => expect(frontier.claims).toHaveLength(1));
    frontier.queue.push(lease());
    loop.poke();
    await vi.waitFor(() => expect(frontier.claims).toHaveLength(2), { timeout: 2_000 });
  });
});

describe('WorkLoop heartbeats', () => {
  it('extends leases older than the interval, all of a sweep in one heartbeatMany call', async () => {
    const { frontier, loop } = await rig({ heartbeatIntervalMs: 100 }, {}, (f) => {
      f.queue.push(lease({ deadlineMs: 1 }), lease({ deadlineMs: 1 }), lease({ deadlineMs: 0 }));
    });
    await vi.waitFor(() => expect(loop.inFlight).toBe(3));
    await vi.waitFor(() => expect(frontier.beats.length).toBeGreaterThanOrEqual(3), {
      timeout: 3_000,
    });
    const [a, b, never] = frontier.handedOut;
    const claimedAt = frontier.claims[0]!.atMs;
    for (const beat of frontier.beats) {
      // Only leases with a deadline; b may be claimed a turn after a, too young for a sweep.
      expect([a!.id, b!.id]).toEqual(expect.arrayContaining(beat.ids));
      // Not beaten before it is a whole interval old.
      expect(beat.atMs - claimedAt).toBeGreaterThanOrEqual(95);
    }
    // Once both are old enough, one sweep beats them in one call.
    expect(frontier.beats.some((beat) => beat.ids.length === 2)).toBe(true);
    // The new deadlines are kept on the leases; a lease without a deadline is never beaten.
    expect(a!.deadlineMs).toBeGreaterThan(Date.now());
    expect(b!.deadlineMs).toBeGreaterThan(Date.now());
    expect(never!.deadlineMs).toBe(0);
  });

  it('reports lost leases to onLeaseLost and other failures to onError, and goes on', async () => {
    const { frontier, loop, lost, errors } = await rig({ heartbeatIntervalMs: 50 }, {}, (f) => {
      f.queue.push(lease(), lease());
    });
    await vi.waitFor(() => expect(loop.inFlight).toBe(2));
    const [gone, kept] = frontier.handedOut.map((l) => l.id);
    frontier.lost.add(gone!);
    await vi.waitFor(() => expect(lost).toEqual([gone]));
    frontier.failNextSweep = new Error('redis down');
    await vi.waitFor(() =>
      expect(errors).toContainEqual({ error: new Error('redis down'), where: 'heartbeat' }),
    );
    // Sweeps go on for the lease still held; the lost one is reported once, not every sweep.
    const after = frontier.beats.length;
    await vi.waitFor(() => expect(frontier.beats.length).toBeGreaterThan(after + 2));
    expect(frontier.beats.at(-1)?.ids).toEqual([kept]);
    expect(lost).toEqual([gone]);
  });

  it('beats lease by lease when the frontier has no heartbeatMany', async () => {
    const { frontier, loop, lost, errors } = await rig(
      { heartbeatIntervalMs: 50 },
      { batched: false },
      (f) => f.queue.push(lease(), lease()),
    );
    expect(frontier.heartbeatMany).toBeUndefined();
    await vi.waitFor(() => expect(loop.inFlight).toBe(2));
    await vi.waitFor(() => expect(frontier.beats.length).toBeGreaterThanOrEqual(4));
    expect(frontier.beats.every((beat) => beat.ids.length === 1)).toBe(true);
    const [gone] = frontier.handedOut.map((l) => l.id);
    frontier.lost.add(gone!);
    await vi.waitFor(() => expect(lost).toEqual([gone]));
    frontier.failNextSweep = new Error('redis down');
    await vi.waitFor(() =>
      expect(errors).toContainEqual({ error: new Error('redis down'), where: 'heartbeat' }),
    );
  });
});

describe('WorkLoop stop and exit', () => {
  it('stop(graceMs) lets leases finish within the grace, then aborts and releases the rest', async () => {
    const { frontier, loop, handler } = await rig({}, {}, (f) => {
      f.queue.push(lease(), lease(), lease());
    });
    await vi.waitFor(() => expect(loop.inFlight).toBe(3));
    const claims = frontier.claims.length;
    const [quick] = handler.started;
    setTimeout(() => handler.finishOne(), 50);
    await loop.stop(400);
    expect(handler.finished).toHaveLength(3);
    expect(handler.aborted).toHaveLength(2);
    expect(handler.aborted).not.toContain(quick);
    expect(frontier.released.sort()).toEqual([...handler.aborted].sort());
    expect(frontier.claims).toHaveLength(claims);
    expect(loop.inFlight).toBe(0);
    await loop.done;
  });

  it('stop() with no lease in flight resolves at once and ends `done`', async () => {
    const { loop } = await rig();
    const started = Date.now();
    await loop.stop(5_000);
    await loop.done;
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('ends when shouldExit() says so, only with nothing in flight; done resolves', async () => {
    const asked: number[] = [];
    let exit = false;
    const { loop, handler } = await rig(
      {
        maxIdleSleepMs: 50,
        shouldExit: async () => {
          asked.push(loop.inFlight);
          return exit;
        },
      },
      {},
      (f) => f.queue.push(lease()),
    );
    await vi.waitFor(() => expect(handler.started).toHaveLength(1));
    await sleep(200);
    expect(asked).toEqual([]); // a lease is held: not idle
    handler.finishAll();
    await vi.waitFor(() => expect(asked.length).toBeGreaterThan(0));
    exit = true;
    await loop.done;
    expect(asked.every((n) => n === 0)).toBe(true);
  });

  it('reports a failed unsubscribe from the wake channel to onError and still ends', async () => {
    const { loop, errors } = await rig();
    subscribers.at(-1)!.disconnect();
    await loop.stop(0);
    expect(errors.map((e) => e.where)).toEqual(['wake']);
  });
});
