/**
 * Deleting one crawl, for `shardline crawl delete ID` and `DELETE /v1/crawls/:crawl`: the
 * checks (never the default crawl, whose keys hold every crawl's politeness; a crawl that
 * exists; no live pod unless forced) and the crawl's keys outside the frontier (its results
 * and items streams, its ring), so both paths delete exactly the same keys.
 */
import {
  type CrawlDeleteProgress,
  CrawlRegistry,
  crawlKeyPrefix,
  DEFAULT_CRAWL,
} from '@shardline/frontier';
import { MembershipKeys, MembershipReader } from '@shardline/membership';
import type { Cluster, Redis } from 'ioredis';

/** Why a crawl may not be deleted now. */
export type CrawlDeleteRefusal = 'default' | 'unknown' | 'live-pods';

/** A deletion refused before anything was touched; `message` says what to do. */
export class CrawlDeleteRefusedError extends Error {
  readonly reason: CrawlDeleteRefusal;

  constructor(reason: CrawlDeleteRefusal, message: string) {
    super(message);
    this.name = 'CrawlDeleteRefusedError';
    this.reason = reason;
  }
}

/**
 * Throws {@link CrawlDeleteRefusedError} unless `crawlId` may be deleted now; then marks it
 * `deleting` (new URLs for it are refused from here on), so a listing shows the deletion at
 * once.
 */
export async function startCrawlDelete(
  redis: Redis | Cluster,
  prefix: string,
  crawlId: string,
  force: boolean,
): Promise<void> {
  if (crawlId === DEFAULT_CRAWL) {
    throw new CrawlDeleteRefusedError(
      'default',
      'the default crawl cannot be deleted: its keys hold the politeness state every crawl shares; start a fresh crawl with --crawl-id, or give the frontier a new --prefix',
    );
  }
  const registry = new CrawlRegistry({ redis, prefix });
  if ((await registry.get(crawlId)) === null) {
    throw new CrawlDeleteRefusedError(
      'unknown',
      `crawl ${JSON.stringify(crawlId)} does not exist in prefix ${prefix} (see shardline crawl list)`,
    );
  }
  const live = (
    await new MembershipReader(redis, crawlKeyPrefix(prefix, crawlId)).members()
  ).filter((m) => m.alive);
  if (live.length > 0 && !force) {
    throw new CrawlDeleteRefusedError(
      'live-pods',
      `crawl ${JSON.stringify(crawlId)} has ${live.length} live pod(s) (${live
        .map((m) => m.id)
        .join(', ')}): stop them first, or pass --force`,
    );
  }
  await registry.markDeleting(crawlId);
}

/**
 * Deletes every key of `crawlId` in batches of `batchDomains` domains (see
 * `CrawlRegistry.delete`), its streams and ring included; after {@link startCrawlDelete}.
 * Resumable: run it again after a crash.
 */
export function deleteCrawlKeys(
  redis: Redis | Cluster,
  prefix: string,
  crawlId: string,
  options: { batchDomains?: number; onBatch?: (progress: CrawlDeleteProgress) => void } = {},
): Promise<CrawlDeleteProgress> {
  const crawlPrefix = crawlKeyPrefix(prefix, crawlId);
  return new CrawlRegistry({ redis, prefix }).delete(crawlId, {
    ...options,
    // The crawler's default stream names and the crawl's ring (crawl settings docs).
    extraKeys: [
      `${crawlPrefix}:results`,
      `${crawlPrefix}:items`,
      ...new MembershipKeys(crawlPrefix).storedKeys(),
    ],
  });
}
