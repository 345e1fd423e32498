/**
 * The lease pipeline: each claimed lease runs through an ordered list of named stages over one
 * {@link LeaseContext}; the first stage that returns a settlement ends it, and a lease every
 * stage passed on is completed. The {@link Settler} then records the end. The pod's stages,
 * in order (`build-pod.ts`):
 *
 *   vet-address → not-before → robots → send-gate → fetch → [archive] → classify
 *     → [page-handler] → discover-links → (settle)
 *
 * The archive (with a WARC directory) keeps every response before anything settles the lease;
 * the page handler (with a handler) runs on pages that completed, before their links are
 * enqueued and the lease completes.
 */
import type { Lease } from '@shardline/frontier';
import type { Logger } from 'pino';
import { invalidOption } from '../errors.js';
import { type LeaseContext, newLeaseContext } from './lease-context.js';
import type { Settler } from './settle.js';
import type { LeaseStage, Settlement } from './stage.js';

/** Options of {@link LeasePipeline}. */
export interface LeasePipelineOptions {
  /** This pod's id (in every result). */
  pod: string;
  /** The stages, in order; stage names must be unique. */
  stages: readonly LeaseStage[];
  settler: Pick<Settler, 'settle'>;
  logger: Logger;
}

/** Runs leases through the stages; see the file comment. */
export class LeasePipeline {
  readonly #o: LeasePipelineOptions;
  // Leases whose handling threw (a Redis failure while settling): they may still be held.
  #unsettled = 0;

  constructor(options: LeasePipelineOptions) {
    const names = options.stages.map((stage) => stage.name);
    if (new Set(names).size !== names.length) {
      throw invalidOption('LeasePipelineOptions', 'stages', names.join(','), 'uniquely named');
    }
    this.#o = options;
  }

  /** The stage names, in order. */
  get stageNames(): string[] {
    return this.#o.stages.map((stage) => stage.name);
  }

  /**
   * Leases whose handling failed: they may still be held in Redis (their lease expires and
   * they are fetched again elsewhere).
   */
  get unsettled(): number {
    return this.#unsettled;
  }

  /** Runs one lease to its end; never rejects (the work loop's `handle`). */
  async handle(lease: Lease, signal: AbortSignal): Promise<void> {
    const ctx = newLeaseContext(lease, signal, this.#o.pod);
    try {
      const settlement = (await this.#runStages(ctx)) ?? { kind: 'complete' };
      await this.#o.settler.settle(ctx, settlement);
    } catch (error) {
      // A Redis failure while settling: the lease expires and is retried elsewhere.
      this.#unsettled += 1;
      this.#o.logger.error({ err: error, url: lease.url }, 'lease handling failed');
    } finally {
      // A gate pass no stage closed (a stage failed between gate and fetch) frees its slot.
      ctx.pass?.done();
    }
  }

  async #runStages(ctx: LeaseContext): Promise<Settlement | undefined> {
    for (const stage of this.#o.stages) {
      const settlement = await stage.run(ctx);
      if (settlement) return settlement;
    }
    return undefined;
  }
}
