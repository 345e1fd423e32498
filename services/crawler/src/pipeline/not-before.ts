/**
 * Between vet address and robots, not-before: a lease claimed ahead of its host's turn (the work loop's `claimLeadMs`)
 * waits here until that turn, before any request of the lease — robots.txt included. The claim
 * already reserved the host's gap from that time in Redis; sending earlier would shorten the gap
 * after the host's previous request. The turn is on this process's monotonic clock
 * (`Lease.notBeforePerfMs`, mapped by the frontier so that it is never early), so the pod's wall
 * clock, skewed or stepped, plays no part. A stop while waiting releases the lease.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { LeaseContext } from './lease-context.js';
import type { LeaseStage, Settlement } from './stage.js';

/** Waits for the lease's `notBeforePerfMs`, if it has one. */
export class NotBeforeStage implements LeaseStage {
  readonly name = 'not-before';

  async run(ctx: LeaseContext): Promise<Settlement | undefined> {
    const at = ctx.lease.notBeforePerfMs;
    if (at === undefined) return undefined;
    try {
      // A timer may fire a fraction of a ms before its time (whole-ms loop clock): check again.
      for (let left = at - performance.now(); left > 0; left = at - performance.now()) {
        await sleep(Math.ceil(left), undefined, { signal: ctx.signal });
      }
      return undefined;
    } catch (error) {
      // The sleep rejects only when the lease's signal aborts: the pod is stopping.
      if (!ctx.signal.aborted) throw error;
      return { kind: 'release' };
    }
  }
}
