/**
 * ListURLs: streams the URLs of the frontier, queue by queue (one host with `key`, else every
 * host of the due indexes — this node's with `local` — in host order): the leases out first
 * (as KnownURLItems whose `refetchable_from_date` is when the lease lapses), then the URLs
 * waiting in hand-out order (as DiscoveredURLItems). `filter` keeps URLs containing it
 * (`ignoreCase` for a case-insensitive match); `start` and `size` page the result. A listing
 * reads at most 100,000 URLs, so a filter that matches little over a large frontier ends
 * early (the stream then holds what was found).
 */
import type { ServerWritableStream } from '@grpc/grpc-js';
import type { FrontierInspector } from '@shardline/frontier';
import type { NodeContext } from './context.js';
import { CrawlFrontiers } from './crawl-frontiers.js';
import { invalidArgument, toServiceError } from './errors.js';
import { decodeMetadata } from './metadata.js';
import type { ListUrlParams, URLInfo, URLItem } from './proto.js';
import { parseQueueKey } from './queue-key.js';

/** URLs read per listing, at most. */
const MAX_SCAN = 100_000;
/** URLs read per page of a host's queue. */
const PAGE = 1000;

export async function handleListUrls(
  ctx: NodeContext,
  call: ServerWritableStream<ListUrlParams, URLItem>,
): Promise<void> {
  try {
    await listUrls(ctx, call);
    call.end();
  } catch (error) {
    call.emit('error', toServiceError(error));
  }
}

async function listUrls(ctx: NodeContext, call: ServerWritableStream<ListUrlParams, URLItem>) {
  const p = call.request;
  const { inspector } = ctx.crawls.get(p.crawlID, 'ListURLs');
  const crawlID = CrawlFrontiers.toUrlFrontier(inspector.crawlId);
  const size = p.size || 100;
  if (size > 10_000) throw invalidArgument('ListURLs', 'size', p.size, '0..10000 (0 = 100)');
  const needle = p.filter ? (p.ignoreCase ? p.filter.toLowerCase() : p.filter) : undefined;
  const matches = (url: string) =>
    needle === undefined || (p.ignoreCase ? url.toLowerCase() : url).includes(needle);
  let skipped = 0;
  let sent = 0;
  let scanned = 0;
  /** Sends one URL if it matches and is on the page; false once the page is full. */
  const offer = (item: URLItem, url: string): boolean => {
    scanned++;
    if (!matches(url)) return true;
    if (skipped < p.start) skipped++;
    else {
      call.write(item);
      sent++;
    }
    return sent < size && scanned < MAX_SCAN && !call.cancelled;
  };
  for (const { domain, host } of await queuesOf(ctx, inspector, p)) {
    for (const lease of await inspector.hostLeases(domain, host)) {
      const info: URLInfo = { url: lease.url, key: host, metadata: {}, crawlID };
      const item = {
        known: { info, refetchable_from_date: Math.ceil(lease.deadlineMs / 1000) },
        ID: '',
        creation_date: 0,
      };
      if (!offer(item, lease.url)) return;
    }
    for (let offset = 0; ; offset += PAGE) {
      const page = await inspector.hostQueue(domain, host, { offset, limit: PAGE });
      for (const queued of page) {
        const info = { url: queued.url, key: host, metadata: decodeMetadata(queued.meta), crawlID };
        if (!offer({ discovered: { info }, ID: '', creation_date: 0 }, queued.url)) return;
      }
      if (page.length < PAGE) break;
    }
  }
}

/** The queues a listing walks: the key's host, or the hosts of the due indexes, sorted. */
async function queuesOf(ctx: NodeContext, inspector: FrontierInspector, p: ListUrlParams) {
  if (p.key !== '') {
    const queue = parseQueueKey(p.key);
    if (!queue) throw invalidArgument('ListURLs', 'key', p.key, 'a host name (the queue)');
    return [queue];
  }
  const pods = p.local ? [ctx.podId] : await inspector.pods();
  const hosts = new Map<string, { domain: string; host: string }>();
  for (const pod of pods) {
    for (let offset = 0; offset < MAX_SCAN; offset += PAGE) {
      const page = await inspector.dueHosts(pod, { offset, limit: PAGE });
      for (const h of page) hosts.set(h.host, { domain: h.domain, host: h.host });
      if (page.length < PAGE) break;
    }
    // Packed domains' hosts, in the pod's backlog until claimed.
    for (let offset = 0; offset < MAX_SCAN; offset += PAGE) {
      const page = await inspector.backlogHosts(pod, { offset, limit: PAGE });
      for (const h of page) hosts.set(h.host, h);
      if (page.length < PAGE) break;
    }
  }
  return [...hosts.values()].sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
}
