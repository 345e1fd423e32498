/**
 * The pod's claim loop. It claims from the pod's own due index only when a global fetch slot
 * is free (so claim → send lag stays small), runs each lease under one p-queue of `concurrency`
 * slots, extends every lease in flight from one heartbeat sweep, and between claims sleeps
 * until the next due time, a wake message on the pod's channel, or a freed slot — never a poll
 * loop: when idle it claims at most once per `maxIdleSleepMs`.
 */
import {
  type ClaimResult,
  FrontierErrorCode,
  type Lease,
  type LeaseRef,
} from '@shardline/frontier';
import PQueue from 'p-queue';

/** What the loop needs from the frontier (a `RedisFrontier` fits). */
export interface LoopFrontier {
  claim(request: {
    pod: string;
    max?: number;
    leadMs?: number;
    onLeases?: (leases: readonly Lease[]) => void;
  }): Promise<ClaimResult>;
  heartbeat(lease: LeaseRef): Promise<number>;
  /**
   * Batched heartbeat (one round trip for the sweep): per lease its new deadline or its error.
   * Used when present; otherwise the sweep calls `heartbeat` per lease.
   */
  heartbeatMany?(leases: readonly LeaseRef[]): Promise<(number | Error)[]>;
  release(lease: LeaseRef): Promise<void>;
}

/** Minimal pub/sub client (an ioredis connection in subscriber mode). */
export interface WakeSubscriber {
  subscribe(channel: string): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  off(event: 'message', listener: (channel: string, message: string) => void): unknown;
}

/** Options of {@link WorkLoop}. */
export interface WorkLoopOptions {
  frontier: LoopFrontier;
  pod: string;
  /** Runs one lease to its end (complete / fail / release); must not reject. */
  handle: (lease: Lease, signal: AbortSignal) => Promise<void>;
  /** Global fetch slots. */
  concurrency: number;
  /** Wake channel and its subscriber connection; without them the loop relies on due times. */
  wake?: { channel: string; subscriber: WakeSubscriber };
  /** Shortest gap between two claims that did not fill every free slot (batches due hosts). */
  minClaimIntervalMs: number;
  /** Longest sleep between claims (covers a missed wake message). */
  maxIdleSleepMs: number;
  /**
   * Claim ahead: wake this long before the next due time and claim hosts due within it (the
   * frontier's `leadMs`); the leases carry `notBeforePerfMs` and `handle` must not send before.
   * @default 0
   */
  claimLeadMs?: number;
  /** Heartbeat sweep period; leases older than this are extended. 0 = no heartbeats. */
  heartbeatIntervalMs: number;
  /**
   * Whether the pod may claim now (membership `ready`). While it answers false the loop
   * claims nothing and checks again every `notReadyPollMs`. @default always true
   */
  canClaim?: () => boolean;
  /** Re-check period of `canClaim` while it answers false. @default 100 */
  notReadyPollMs?: number;
  /**
   * Called when the loop is locally idle (no lease in flight) after an empty claim; resolving
   * `true` stops the loop.
   */
  shouldExit?: () => Promise<boolean>;
  /**
   * Reports errors of claims, heartbeats and the wake channel's unsubscribe at the end (the
   * loop keeps going / still ends).
   */
  onError?: (error: unknown, where: 'claim' | 'heartbeat' | 'wake') => void;
  /**
   * Reports, once, a lease whose heartbeat found it gone (its fetch continues; complete will be
   * late); the lease is not beaten again.
   */
  onLeaseLost?: (lease: Lease) => void;
}

interface Held {
  lease: Lease;
  controller: AbortController;
  lastBeatMs: number;
  // A heartbeat found the lease gone: reported once, never beaten again.
  lost: boolean;
}

/** The claim → run → heartbeat loop of one pod. */
export class WorkLoop {
  readonly #o: WorkLoopOptions;
  readonly #queue: PQueue;
  readonly #held = new Map<string, Held>();
  // Callers of drained() waiting for the last held lease to settle.
  readonly #drainers: (() => void)[] = [];
  #running = false;
  #stopping = false;
  #loop: Promise<void> | undefined;
  // The current sleep: its wake-up time (local ms) and how to end it early.
  #sleepUntil = Number.POSITIVE_INFINITY;
  #sleepTimer: NodeJS.Timeout | undefined;
  #sleepResolve: (() => void) | undefined;
  #waitingForSlot = false;
  // Earliest due time (local ms) announced by a wake message since the current claim began
  // that no sleep took in: the claim may have run before that work was enqueued.
  #announcedDueMs = Number.POSITIVE_INFINITY;
  #lastClaimAtMs = 0;
  // Redis time minus local time, from the last claim (wake messages carry Redis ms).
  #clockOffsetMs = 0;
  #heartbeatTimer: NodeJS.Timeout | undefined;
  readonly #lead: number;
  #claims = 0;
  #emptyClaims = 0;
  #claimed = 0;
  #wakes = 0;
  readonly #onMessage = (channel: string, message: string) => this.#wakeMessage(channel, message);

  constructor(options: WorkLoopOptions) {
    this.#o = options;
    this.#lead = options.claimLeadMs ?? 0;
    this.#queue = new PQueue({ concurrency: options.concurrency });
  }

  /** Starts claiming; resolves once subscribed. */
  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    const wake = this.#o.wake;
    if (wake) {
      wake.subscriber.on('message', this.#onMessage);
      await wake.subscriber.subscribe(wake.channel);
    }
    if (this.#o.heartbeatIntervalMs > 0) {
      this.#heartbeatTimer = setInterval(() => this.#sweep(), this.#o.heartbeatIntervalMs);
      this.#heartbeatTimer.unref();
    }
    this.#queue.on('next', () => {
      if (this.#waitingForSlot) this.#interrupt();
    });
    this.#loop = this.#run();
  }

  /** Resolves when the loop has ended (stop, or `shouldExit`) and every lease is finished. */
  get done(): Promise<void> {
    return this.#loop ?? Promise.resolve();
  }

  /** Leases in flight. */
  get inFlight(): number {
    return this.#held.size;
  }

  /** Counters: claims made, claims that returned nothing, leases claimed, wake messages. */
  stats(): {
    claims: number;
    emptyClaims: number;
    claimed: number;
    wakes: number;
    inFlight: number;
  } {
    return {
      claims: this.#claims,
      emptyClaims: this.#emptyClaims,
      claimed: this.#claimed,
      wakes: this.#wakes,
      inFlight: this.#held.size,
    };
  }

  /**
   * Stops claiming, lets leases in flight finish for up to `graceMs`, then aborts the rest
   * (their handler releases them). Resolves when every lease is settled.
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.#stopping = true;
    this.#interrupt();
    const grace = setTimeout(() => {
      for (const held of this.#held.values()) held.controller.abort();
    }, graceMs);
    try {
      await this.done;
    } finally {
      clearTimeout(grace);
    }
  }

  /**
   * Resolves once no lease is held (at once when none is). With claiming paused (`canClaim`
   * false) that is the drain of an assignment change.
   */
  drained(): Promise<void> {
    if (this.#held.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainers.push(resolve));
  }

  /** Ends the current sleep now (e.g. the pod enqueued work for itself). */
  poke(): void {
    if (!this.#waitingForSlot) this.#interrupt();
  }

  async #run(): Promise<void> {
    try {
      while (!this.#stopping) {
        const free = this.#o.concurrency - this.#held.size;
        if (free <= 0) {
          await this.#sleep(Number.POSITIVE_INFINITY, true);
          continue;
        }
        if (this.#o.canClaim && !this.#o.canClaim()) {
          // Not on the ring (yet), or cut off from the registry: claiming could take another
          // pod's domains. Poll the flag; a poke (membership change) ends the sleep early.
          await this.#sleep(Date.now() + (this.#o.notReadyPollMs ?? 100), false);
          continue;
        }
        const gap = this.#lastClaimAtMs + this.#o.minClaimIntervalMs - Date.now();
        if (gap > 0) {
          // Then check again from the top: slots and canClaim() may have changed meanwhile.
          await this.#sleep(Date.now() + gap, false, true);
          continue;
        }
        let result: ClaimResult;
        // Leases this claim already started (one may even have finished by the time it resolves).
        const started = new Set<string>();
        try {
          this.#claims += 1;
          this.#lastClaimAtMs = Date.now();
          this.#announcedDueMs = Number.POSITIVE_INFINITY;
          // Leases start as soon as they are written, not after the due index's re-score.
          result = await this.#o.frontier.claim({
            pod: this.#o.pod,
            max: free,
            ...(this.#lead > 0 ? { leadMs: this.#lead } : {}),
            onLeases: (leases) => {
              for (const lease of leases) {
                started.add(lease.id);
                this.#start(lease);
              }
            },
          });
        } catch (error) {
          this.#o.onError?.(error, 'claim');
          await this.#sleep(Date.now() + Math.min(1000, this.#o.maxIdleSleepMs), false);
          continue;
        }
        this.#clockOffsetMs = result.nowMs - Date.now();
        for (const lease of result.leases) if (!started.has(lease.id)) this.#start(lease);
        this.#claimed += result.leases.length;
        if (result.leases.length >= free) continue;
        if (result.leases.length === 0) this.#emptyClaims += 1;
        if (this.#held.size === 0 && result.leases.length === 0 && this.#o.shouldExit) {
          if (await this.#o.shouldExit()) break;
        }
        // Claiming ahead: wake `lead` before the host is due, so the claim's round trips are
        // done by then and the lease waits for its turn locally.
        const dueLocal =
          result.nextDueAtMs === null
            ? Number.POSITIVE_INFINITY
            : result.nextDueAtMs - this.#clockOffsetMs - this.#lead;
        const until = Math.min(dueLocal, this.#announcedDueMs, Date.now() + this.#o.maxIdleSleepMs);
        if (until > Date.now()) await this.#sleep(until, false);
      }
    } finally {
      this.#stopping = true;
      await this.#queue.onIdle();
      if (this.#heartbeatTimer) clearInterval(this.#heartbeatTimer);
      const wake = this.#o.wake;
      if (wake) {
        wake.subscriber.off('message', this.#onMessage);
        await wake.subscriber
          .unsubscribe(wake.channel)
          .catch((error: unknown) => this.#o.onError?.(error, 'wake'));
      }
    }
  }

  #start(lease: Lease): void {
    const held: Held = {
      lease,
      controller: new AbortController(),
      lastBeatMs: Date.now(),
      lost: false,
    };
    this.#held.set(lease.id, held);
    void this.#queue.add(async () => {
      try {
        await this.#o.handle(lease, held.controller.signal);
      } finally {
        this.#held.delete(lease.id);
        if (this.#held.size === 0) for (const resolve of this.#drainers.splice(0)) resolve();
      }
    });
  }

  /**
   * Sleeps until `untilMs` (local), or until interrupted: by a freed slot when `forSlot`, by a
   * wake message that moves the due time earlier otherwise (`fixed` sleeps ignore those).
   */
  #sleep(untilMs: number, forSlot: boolean, fixed = false): Promise<void> {
    if (this.#stopping) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#waitingForSlot = forSlot;
      this.#sleepUntil = fixed ? Number.NEGATIVE_INFINITY : untilMs;
      this.#sleepResolve = resolve;
      if (Number.isFinite(untilMs)) {
        this.#sleepTimer = setTimeout(() => this.#interrupt(), Math.max(0, untilMs - Date.now()));
      }
    });
  }

  #interrupt(): void {
    if (this.#sleepTimer) clearTimeout(this.#sleepTimer);
    this.#sleepTimer = undefined;
    this.#waitingForSlot = false;
    this.#sleepUntil = Number.POSITIVE_INFINITY;
    const resolve = this.#sleepResolve;
    this.#sleepResolve = undefined;
    resolve?.();
  }

  #wakeMessage(channel: string, message: string): void {
    if (channel !== this.#o.wake?.channel) return;
    this.#wakes += 1;
    const dueRedis = Number(message);
    if (!Number.isFinite(dueRedis)) return;
    const dueLocal = dueRedis - this.#clockOffsetMs - this.#lead;
    // Only a sleep waiting for due work cares; a full pod wakes on a freed slot instead.
    if (!this.#sleepResolve || this.#waitingForSlot || dueLocal >= this.#sleepUntil) {
      // Not sleeping (a claim is running): the sleep that follows must not outlast it.
      if (!this.#sleepResolve) this.#announcedDueMs = Math.min(this.#announcedDueMs, dueLocal);
      return;
    }
    if (this.#sleepTimer) clearTimeout(this.#sleepTimer);
    this.#sleepUntil = dueLocal;
    this.#sleepTimer = setTimeout(() => this.#interrupt(), Math.max(0, dueLocal - Date.now()));
  }

  #sweep(): void {
    const now = Date.now();
    const every = this.#o.heartbeatIntervalMs;
    const due: Held[] = [];
    for (const held of this.#held.values()) {
      if (held.lost || now - held.lastBeatMs < every || held.lease.deadlineMs === 0) continue;
      held.lastBeatMs = now;
      due.push(held);
    }
    if (due.length === 0) return;
    const onError = (held: Held, error: { code?: string }) => {
      if (error?.code === FrontierErrorCode.LEASE_LOST) {
        held.lost = true;
        this.#o.onLeaseLost?.(held.lease);
      } else {
        this.#o.onError?.(error, 'heartbeat');
      }
    };
    const frontier = this.#o.frontier;
    if (!frontier.heartbeatMany) {
      for (const held of due) {
        frontier.heartbeat(held.lease).then(
          (deadline) => {
            held.lease.deadlineMs = deadline;
          },
          (error: { code?: string }) => onError(held, error),
        );
      }
      return;
    }
    // One batched call per sweep: with hundreds of leases in flight that is one round trip.
    frontier.heartbeatMany(due.map((held) => held.lease)).then(
      (outcomes) => {
        outcomes.forEach((outcome, k) => {
          const held = due[k]!;
          if (typeof outcome === 'number') held.lease.deadlineMs = outcome;
          else onError(held, outcome as { code?: string });
        });
      },
      (error: unknown) => this.#o.onError?.(error, 'heartbeat'),
    );
  }
}
