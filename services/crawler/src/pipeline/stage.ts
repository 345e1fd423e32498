/**
 * The contract of a lease pipeline stage. A stage does one step for a lease and then either
 * passes the context on (returns `undefined`) or ends the lease with a {@link Settlement};
 * when every stage has passed it on, the lease is completed. The settler (`settle.ts`) turns
 * the settlement into the frontier call, the counters and the result record.
 */
import type { LeaseContext } from './lease-context.js';

/** How a lease ends. */
export type Settlement =
  /** Fetched: `complete` (the status is recorded, whatever it is). */
  | { kind: 'complete' }
  /** Failed: `fail`, retried with backoff or dead-lettered. */
  | {
      kind: 'fail';
      retryable: boolean;
      /** Error code, recorded as the dead-letter reason and counted in `stats().errors`. */
      code: string;
      message: string;
      /** `false`: refused before any request reached the host (no slot used, no backoff). */
      sent?: boolean;
    }
  /** The pod is stopping: `release`, URL back at the front, attempt unchanged. */
  | { kind: 'release' }
  /** robots.txt unreachable with retries left: `release` with the host held until the retry. */
  | { kind: 'defer-for-robots' }
  /** The page must wait `waitMs` after its host's robots.txt request: handed back, no result. */
  | { kind: 'release-for-gap'; waitMs: number };

/** One named step of the lease pipeline. */
export interface LeaseStage {
  /** Name in logs and docs (`vet-address`, `robots`, …). */
  readonly name: string;
  /** Does the step; `undefined` passes the lease on, a settlement ends it here. */
  run(ctx: LeaseContext): Promise<Settlement | undefined> | Settlement | undefined;
}
