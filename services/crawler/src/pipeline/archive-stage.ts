/**
 * Stage 5, archive: writes the fetch's request and response records to the pod's WARC files
 * before anything settles the lease, and notes where the response record is for the result
 * (`warcFile`, `warcOffset`, `warcLength`). It runs before classify, so 429/5xx responses and
 * redirects are kept too (every response the server sent, as Heritrix and wget keep them).
 * A failed write fails the lease (retried): a completed lease always has its record.
 */
import type { PodArchive } from '../archive/pod-archive.js';
import { CrawlOutcomeCode } from '../errors.js';
import { type LeaseContext, required } from './lease-context.js';
import type { LeaseStage, Settlement } from './stage.js';

/** Archives the lease's response. */
export class ArchiveStage implements LeaseStage {
  readonly name = 'archive';
  readonly #archive: Pick<PodArchive, 'archive'>;

  constructor(archive: Pick<PodArchive, 'archive'>) {
    this.#archive = archive;
  }

  async run(ctx: LeaseContext): Promise<Settlement | undefined> {
    const outcome = required(ctx.outcome, 'fetch outcome', this.name);
    try {
      const location = await this.#archive.archive(outcome);
      if (location) ctx.warc = location;
      return undefined;
    } catch (error) {
      return {
        kind: 'fail',
        retryable: true,
        code: CrawlOutcomeCode.WARC,
        message: `WARC write failed: ${(error as Error).message}`,
      };
    }
  }
}
