/**
 * When a pod with `exitWhenIdle` stops by itself: once the frontier's global counters have
 * shown nothing queued and nothing in flight — on any pod — for the grace period while this
 * pod claimed nothing. Those sums can stay off for good when a pod is killed between a script
 * and its counter update; so sums that say "busy" but have not moved for max(5 s, grace) while
 * the pod claimed nothing get an exact check (`settled()`: the domains' own counters), again
 * each such period while they stay put.
 */
import type { RedisFrontier } from '@shardline/frontier';

/** How long unchanged "busy" global counters wait before an idle pod checks them exactly. */
export const FROZEN_COUNTERS_MS = 5000;

/** Options of {@link IdleExit}. */
export interface IdleExitOptions {
  /** `stats()`: the global counters (`queued`, `inFlight`); `settled()`: the exact check. */
  frontier: Pick<RedisFrontier, 'stats' | 'settled'>;
  /** How long the crawl must look finished before the pod stops. */
  graceMs: number;
  /** Leases this pod has claimed so far (the work loop's counter). */
  claimed: () => number;
  /** Whether this pod still has batched writes (enqueues, completes) to send. */
  pendingWrites: () => boolean;
  /** Clock (epoch ms). @default Date.now */
  now?: () => number;
}

/** The `shouldExit` decision of the work loop; see the file comment. */
export class IdleExit {
  readonly #o: IdleExitOptions;
  readonly #now: () => number;
  #idleSinceMs: number | undefined;
  #idleClaimed = -1;
  // Global sums that said "busy": since when unchanged, and whether an exact check found
  // nothing queued or in flight while they stayed so.
  #frozen: { key: string; sinceMs: number; settled: boolean } | undefined;

  constructor(options: IdleExitOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** Called by the loop when it is locally idle: whether the pod should stop now. */
  async shouldExit(): Promise<boolean> {
    if (this.#o.pendingWrites()) return false;
    const claimed = this.#o.claimed();
    const stats = await this.#o.frontier.stats();
    const busy = (stats.queued ?? 0) > 0 || (stats.inFlight ?? 0) > 0;
    const now = this.#now();
    if (claimed !== this.#idleClaimed) {
      this.#idleClaimed = claimed;
      this.#idleSinceMs = busy ? undefined : now;
      this.#frozen = undefined;
      return false;
    }
    if (busy) {
      const key = `${stats.queued ?? 0}/${stats.inFlight ?? 0}`;
      if (this.#frozen?.key !== key) this.#frozen = { key, sinceMs: now, settled: false };
      if (!this.#frozen.settled) {
        if (now - this.#frozen.sinceMs >= Math.max(FROZEN_COUNTERS_MS, this.#o.graceMs)) {
          this.#frozen.sinceMs = now;
          this.#frozen.settled = await this.#o.frontier.settled();
        }
        if (!this.#frozen.settled) {
          this.#idleSinceMs = undefined;
          return false;
        }
      }
    } else this.#frozen = undefined;
    this.#idleSinceMs ??= now;
    return now - this.#idleSinceMs >= this.#o.graceMs;
  }
}
