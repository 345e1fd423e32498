/**
 * The rig for the WorkLoop contract tests (work-loop-*.test.ts): the loop is driven through
 * `LoopFrontier`, its own interface, so an in-memory frontier stands in for Redis there,
 * while the wake channel is a real Redis pub/sub connection.
 */
import { type ClaimResult, type Lease, LeaseLostError, type LeaseRef } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { type LoopFrontier, WorkLoop, type WorkLoopOptions } from '../src/work-loop.js';

const POD = 'pod-a';
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let serial = 0;
/** A lease of a host of its own, due now. */
export function lease(overrides: Partial<Lease> = {}): Lease {
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

export interface MemoryFrontierOptions {
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
export class MemoryFrontier implements LoopFrontier {
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
export class Handler {
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
/** Publishes on the wake channels, also messages a loop must ignore. */
export let publisher: Redis;
/** The rigs' wake subscribers, newest last. */
export const subscribers: Redis[] = [];
const loops: WorkLoop[] = [];

/**
 * Starts the Redis server of this test file's wake channels, and stops every loop after each
 * test so none claims or beats into the next one.
 */
export function useWakeRedis(): void {
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
}

export interface Rig {
  loop: WorkLoop;
  frontier: MemoryFrontier;
  handler: Handler;
  errors: { error: unknown; where: string }[];
  lost: string[];
  /** Publishes a due time (the frontier's clock, ms from now) on the loop's wake channel. */
  wake(dueInMs: number): Promise<void>;
}

let channelSerial = 0;

/**
 * A started loop over a fresh in-memory frontier and a real wake subscription; needs the
 * file's `useWakeRedis()`.
 */
export async function rig(
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
