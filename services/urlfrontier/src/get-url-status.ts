/**
 * GetURLStatus: where one URL is in a crawl, as the URLItem the .proto defines. Any node
 * answers for any URL (every domain's keys are in Redis, read through the frontier's
 * inspector): queued → a DiscoveredURLItem with its metadata; handed out → a KnownURLItem whose
 * `refetchable_from_date` is when the lease lapses; fetched and scheduled again → one whose
 * date is the refetch; done (fetched for good, dead-lettered, or deleted with its queue) → one
 * with date 0; never put in the crawl → NOT_FOUND. The search reads at most 100,000 entries
 * of the host's lists; a URL seen but not met within them is most likely queued further back
 * and is answered as discovered.
 */
import type { NodeContext } from './context.js';
import { CrawlFrontiers } from './crawl-frontiers.js';
import { invalidArgument, notFound } from './errors.js';
import { decodeMetadata } from './metadata.js';
import type { URLItem, URLStatusRequest } from './proto.js';
import { canonicalUrl, keyFitsUrl } from './queue-key.js';

export async function getUrlStatus(ctx: NodeContext, p: URLStatusRequest): Promise<URLItem> {
  const { inspector } = ctx.crawls.get(p.crawlID, 'GetURLStatus');
  const crawlID = CrawlFrontiers.toUrlFrontier(inspector.crawlId);
  const canonical = canonicalUrl(p.url);
  if ('reason' in canonical) {
    throw invalidArgument(
      'GetURLStatus',
      'url',
      p.url,
      `a URL the frontier takes (${canonical.reason})`,
    );
  }
  if (!keyFitsUrl(p.key, canonical.url)) {
    throw invalidArgument('GetURLStatus', 'key', p.key, "empty, the URL's host or its domain");
  }
  const status = await inspector.urlStatus(canonical.url);
  if (status.state === 'unseen') {
    throw notFound('GetURLStatus', `${canonical.url.url} was never put in crawl ${crawlID}`);
  }
  const info = {
    url: status.url,
    key: status.host,
    metadata: decodeMetadata(status.meta ?? ''),
    crawlID,
  };
  const item = { ID: status.url, creation_date: 0 };
  switch (status.state) {
    case 'queued':
    case 'seen':
      return { ...item, discovered: { info } };
    case 'leased':
    case 'scheduled':
      return {
        ...item,
        known: { info, refetchable_from_date: Math.ceil((status.atMs ?? 0) / 1000) },
      };
    default:
      return { ...item, known: { info, refetchable_from_date: 0 } };
  }
}
