/**
 * Stage 5, archive: writes the fetch's request and response records to the pod's WARC files
 * before anything settles the lease, and notes where the response record is for the result
 * (`warcFile`, `warcOffset`, `warcLength`). It runs before classify, so 429/5xx responses and
 * redirects are kept too (every response the server sent, as Heritrix and wget keep them).
 * A 304 to a conditional refetch is archived as a `revisit` record referring to the capture the
 * lease's validators came from (its URL, and its date when the validators kept it).
 * A failed write fails the lease (retried): a completed lease always has its record.
 */
import type { RevisitOf } from '@shardline/warc';
import type { PodArchive } from '../archive/pod-archive.js';
import { CrawlOutcomeCode } from '../errors.js';
import { type LeaseContext, required } from './lease-context.js';
import type { LeaseStage, Settlement } from './stage.js';
import { conditionalHeaders, leaseValidators } from './validators.js';

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
      // The request record holds what was sent: a refetch's If-None-Match / If-Modified-Since too.
      const validators = leaseValidators(ctx.lease);
      const sentExtra = conditionalHeaders(validators);
      const revisitOf: RevisitOf | undefined = validators
        ? {
            url: ctx.lease.url,
            ...(validators.capturedAtMs === undefined ? {} : { dateMs: validators.capturedAtMs }),
          }
        : undefined;
      const location = await this.#archive.archive(outcome, sentExtra, revisitOf);
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
