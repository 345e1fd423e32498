/**
 * Between vet address and robots, not-before: a lease claimed ahead of its host's turn (the work loop's `claimLeadMs`)
 * waits here until that turn, before any request of the lease — robots.txt included. The claim
 * already reserved the host's gap from that time in Redis; sending earlier would shorten the gap
 * after the host's previous request. The turn is on this process's monotonic clock
 * (`Lease.notBeforePerfMs`, mapped by the frontier so that it is never early), so the pod's wall
 * clock, skewed or stepped, plays no part. A stop while waiting releases the lease.
 *
 * A Node timer fires on the event loop's whole-ms clock, ~1 ms after its time at the median:
 * at d = 50 ms that alone is 2% of a host's bound. So while few leases wait here (a host or a
 * few crawled at a short delay, where that ms counts), the last {@link PRECISE_LAST_MS} are
 * waited by yielding to the event loop (`setImmediate`) instead: the loop keeps serving I/O,
 * and the lease goes within a loop turn of its time. With many leases waiting (a wide crawl,
 * where a host's gap is seconds and such waits would keep the loop spinning), the timer alone.
 */
import { setTimeout as sleep, setImmediate as yieldToLoop } from 'node:timers/promises';
import type { LeaseContext } from './lease-context.js';
import type { LeaseStage, Settlement } from './stage.js';

/** The stretch before the turn waited by yielding to the event loop rather than by a timer. */
const PRECISE_LAST_MS = 2;
/** Most leases waiting here at once for which the last stretch is waited precisely. */
export const PRECISE_MAX_WAITING = 4;

/** Waits for the lease's `notBeforePerfMs`, if it has one. */
export class NotBeforeStage implements LeaseStage {
  readonly name = 'not-before';
  // Leases in run() now: their number bounds the event-loop turns spent on precise waits.
  #waiting = 0;

  async run(ctx: LeaseContext): Promise<Settlement | undefined> {
    const at = ctx.lease.notBeforePerfMs;
    if (at === undefined) return undefined;
    this.#waiting += 1;
    try {
      // A timer may fire a fraction of a ms before its time (whole-ms loop clock): check again.
      for (let left = at - performance.now(); left > 0; left = at - performance.now()) {
        if (this.#waiting > PRECISE_MAX_WAITING) {
          await sleep(Math.ceil(left), undefined, { signal: ctx.signal });
        } else if (left > PRECISE_LAST_MS) {
          await sleep(Math.floor(left - PRECISE_LAST_MS) || 1, undefined, { signal: ctx.signal });
        } else {
          await yieldToLoop(undefined, { signal: ctx.signal });
        }
      }
      return undefined;
    } catch (error) {
      // The wait rejects only when the lease's signal aborts: the pod is stopping.
      if (!ctx.signal.aborted) throw error;
      return { kind: 'release' };
    } finally {
      this.#waiting -= 1;
    }
  }
}
