/**
 * The pod's side of Redis faults. While Redis is out of memory (`maxmemory` with `noeviction`)
 * the frontier refuses new work whole (`RedisOomError`) but still settles and extends leases
 * in flight, so the pod waits and retries each refused write — it never drops a fetched page
 * and never lets its lease expire for a refetch. One `SHARDLINE_ERR_REDIS_OOM` line per
 * episode (first refusal → first write that goes through), each episode counted in
 * `stats().faults.redisOom`. A lost frontier (`SHARDLINE_ERR_FRONTIER_LOST`, see
 * frontier-watch.ts) is recorded here too, for the same stats.
 */
import {
  type EnqueueItem,
  type EnqueueReport,
  type EnqueueResult,
  FrontierErrorCode,
  type FrontierLostError,
  type RedisFrontier,
  RedisOomError,
} from '@shardline/frontier';
import type { Logger } from 'pino';

/** First wait after a refusal; doubles up to {@link MAX_WAIT_MS}. */
const FIRST_WAIT_MS = 100;
const MAX_WAIT_MS = 2000;

/** Options of {@link RedisFaults}. */
export interface RedisFaultsOptions {
  log: Logger;
}

export class RedisFaults {
  readonly #o: RedisFaultsOptions;
  // Aborted by stop(): a write still refused then fails instead of waiting on, so a stopping
  // pod is never held by a full Redis (its lease is left to expire and be fetched again).
  readonly #stopping = new AbortController();
  #episodes = 0;
  // Since the first refusal of the current episode (undefined: Redis takes writes).
  #oomSinceMs: number | undefined;
  #lost: FrontierLostError | undefined;

  constructor(options: RedisFaultsOptions) {
    this.#o = options;
  }

  /** Runs `write`, waiting and retrying while Redis refuses it for want of memory. */
  async retryOnOom<T>(what: string, write: () => Promise<T>): Promise<T> {
    let waitMs = FIRST_WAIT_MS;
    for (;;) {
      try {
        const result = await write();
        this.#recovered();
        return result;
      } catch (error) {
        if (!(error instanceof RedisOomError) || this.#stopping.signal.aborted) throw error;
        this.#refused(what, error);
        await sleep(waitMs, this.#stopping.signal);
        waitMs = Math.min(MAX_WAIT_MS, waitMs * 2);
      }
    }
  }

  /**
   * Enqueue that waits out an OOM: the items Redis refused are sent again (only those: the
   * others are queued already), and the per-item results are merged in input order.
   */
  async enqueue(
    enqueue: (items: readonly EnqueueItem[]) => Promise<EnqueueReport>,
    items: readonly EnqueueItem[],
  ): Promise<EnqueueReport> {
    let todo = items.map((_item, index) => index);
    const results: EnqueueResult[] = new Array(items.length);
    const total = { queued: 0, duplicates: 0, rejected: 0, overCap: 0 };
    const woken = new Set<string>();
    let waitMs = FIRST_WAIT_MS;
    for (;;) {
      let report: EnqueueReport;
      let pending: readonly number[] = [];
      try {
        report = await enqueue(todo.map((i) => items[i]!));
      } catch (error) {
        if (!(error instanceof RedisOomError) || !error.report || this.#stopping.signal.aborted) {
          throw error;
        }
        this.#refused('enqueue', error);
        report = error.report as EnqueueReport;
        pending = error.pending;
      }
      const retry = new Set(pending);
      report.results.forEach((result, k) => {
        if (!retry.has(k)) results[todo[k]!] = result;
      });
      total.queued += report.queued;
      total.duplicates += report.duplicates;
      total.rejected += report.rejected;
      total.overCap += report.overCap;
      for (const pod of report.wokenPods) woken.add(pod);
      if (pending.length === 0) break;
      todo = pending.map((k) => todo[k]!);
      await sleep(waitMs, this.#stopping.signal);
      waitMs = Math.min(MAX_WAIT_MS, waitMs * 2);
    }
    this.#recovered();
    return { results, ...total, wokenPods: [...woken] };
  }

  /**
   * Passes a write's outcome through, noting a refusal (one log line per episode) or a
   * success. For writes whose caller retries by itself (the work loop's claims), so that a
   * stopping pod is not held in a wait here.
   */
  observe<T>(what: string, write: Promise<T>): Promise<T> {
    return write.then(
      (result) => {
        this.#recovered();
        return result;
      },
      (error: unknown) => {
        if (error instanceof RedisOomError) this.#refused(what, error);
        throw error;
      },
    );
  }

  /** Ends every wait: refused writes fail from now on (the pod is stopping). */
  stop(): void {
    this.#stopping.abort();
  }

  /** Records that the frontier was lost (the watch that found it stops the pod). */
  frontierLost(error: FrontierLostError): void {
    this.#lost ??= error;
  }

  /** The loss, once found. */
  get lost(): FrontierLostError | undefined {
    return this.#lost;
  }

  /** OOM episodes so far, and whether the frontier was lost. */
  stats(): { redisOom: number; frontierLost: number } {
    return { redisOom: this.#episodes, frontierLost: this.#lost ? 1 : 0 };
  }

  #refused(what: string, error: RedisOomError): void {
    if (this.#oomSinceMs !== undefined) return;
    this.#oomSinceMs = Date.now();
    this.#episodes += 1;
    this.#o.log.error(
      { code: FrontierErrorCode.REDIS_OOM, write: what, err: error },
      `${FrontierErrorCode.REDIS_OOM}: Redis is out of memory and refuses writes; the pod waits and retries them (leases in flight are kept)`,
    );
  }

  #recovered(): void {
    if (this.#oomSinceMs === undefined) return;
    this.#o.log.warn(
      { code: FrontierErrorCode.REDIS_OOM, waitedMs: Date.now() - this.#oomSinceMs },
      'Redis takes writes again',
    );
    this.#oomSinceMs = undefined;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The frontier writes a pod makes. */
export type PodWrites = Pick<
  RedisFrontier,
  | 'claim'
  | 'heartbeat'
  | 'heartbeatMany'
  | 'release'
  | 'fail'
  | 'completeMany'
  | 'enqueue'
  | 'setHostPolicy'
>;

/**
 * The pod's frontier writes. Those Redis refuses when full wait it out (see
 * {@link RedisFaults}), but claims, which the work loop retries itself. Heartbeats, completions,
 * failures and releases go straight through: Redis runs them when full (allow-oom).
 */
export function waitingWrites(frontier: RedisFrontier, faults: RedisFaults): PodWrites {
  return {
    // The work loop retries a failed claim itself, and must stay free to stop.
    claim: (request) => faults.observe('claim', frontier.claim(request)),
    heartbeat: (lease) => frontier.heartbeat(lease),
    heartbeatMany: (leases) => frontier.heartbeatMany(leases),
    // Redis runs these when full (allow-oom): nothing to wait for, and their success says
    // nothing about the end of an episode.
    release: (lease, options) => frontier.release(lease, options),
    fail: (lease, failure) => frontier.fail(lease, failure),
    completeMany: (items) => frontier.completeMany(items),
    enqueue: (items) => faults.enqueue((batch) => frontier.enqueue(batch), items),
    setHostPolicy: (host, policy, domain) =>
      faults.retryOnOom('set-host-policy', () => frontier.setHostPolicy(host, policy, domain)),
  };
}
