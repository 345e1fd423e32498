/**
 * The queue-level methods: GetStats, ListQueues, CountURLs, BlockQueueUntil, SetDelay,
 * DeleteQueue, SetCrawlLimit. A queue is a host (see queue-key.ts). Counts are read through
 * the frontier's inspector: over the whole cluster by default (every node's due index, the
 * global counters), over this node's due index with `local`. Blocks, delays and limits are
 * written to the host's state in Redis, so they hold on every node, survive restarts and follow the
 * host's domain on handoff.
 */
import type { FrontierInspector } from '@shardline/frontier';
import type { NodeContext } from './context.js';
import { CrawlFrontiers } from './crawl-frontiers.js';
import { invalidArgument, tooLarge, unimplemented } from './errors.js';
import type {
  BlockQueueParams,
  CountUrlParams,
  CrawlLimitParams,
  Pagination,
  QueueDelayParams,
  QueueList,
  QueueWithinCrawlParams,
  Stats,
} from './proto.js';
import { parseQueueKey } from './queue-key.js';

/** Due-index entries read per pod for ListQueues (pages of 1000). */
const MAX_LISTED_PER_POD = 100_000;

function queue(method: string, key: string): { host: string; domain: string } {
  const parsed = parseQueueKey(key);
  if (!parsed) throw invalidArgument(method, 'key', key, 'a host name (the queue)');
  return parsed;
}

async function podsOf(ctx: NodeContext, inspector: FrontierInspector, local: boolean | undefined) {
  return local ? [ctx.podId] : await inspector.pods();
}

/**
 * URLs queued and in flight on the domains of this node's due index (exact per-domain
 * counters: the pods' counters do not follow the domains a node owns). A node owning more
 * than `maxLocalDomains` refuses: the sum would read millions of domains, or be partial.
 */
async function localCounts(method: string, ctx: NodeContext, inspector: FrontierInspector) {
  const max = ctx.options.maxLocalDomains;
  const domains = await inspector.queuedDomainsOf(ctx.podId, max + 1);
  if (domains.length > max) {
    throw tooLarge(
      method,
      `this node owns more than ${max} domains (maxLocalDomains), each a read for a local ` +
        'count; ask with local: false for the cluster-wide count (its counters, one read)',
    );
  }
  let queued = 0;
  let inFlight = 0;
  for (let i = 0; i < domains.length; i += 100) {
    const stats = await Promise.all(domains.slice(i, i + 100).map((d) => inspector.domainStats(d)));
    for (const s of stats) {
      queued += s.queued;
      inFlight += s.inFlight;
    }
  }
  return { queued, inFlight };
}

export async function getStats(ctx: NodeContext, p: QueueWithinCrawlParams): Promise<Stats> {
  const { inspector } = ctx.crawls.get(p.crawlID, 'GetStats');
  const crawlID = CrawlFrontiers.toUrlFrontier(inspector.crawlId);
  if (p.key !== '') {
    const { host, domain } = queue('GetStats', p.key);
    const [state, stats] = await Promise.all([
      inspector.hostState(domain, host),
      inspector.domainStats(domain),
    ]);
    return {
      size: state.queued,
      inProcess: state.inFlight,
      numberOfQueues: state.queued > 0 || state.inFlight > 0 ? 1 : 0,
      counts: {
        blockedUntil: Math.floor(Math.max(state.blockedUntilMs, stats.blockedUntilMs) / 1000),
        delayMs: state.delayMs ?? ctx.options.minDelayMs,
        // SetCrawlLimit: 0 = none; `fetched` counts against it (with the URLs out).
        crawlLimit: state.crawlLimit ?? 0,
        fetched: state.fetched,
        'domain.fetched': stats.fetched,
        'domain.failed': stats.failed,
        'domain.dead': stats.dead,
        'domain.repeats': stats.repeats,
      },
      crawlID,
    };
  }
  const pods = await podsOf(ctx, inspector, p.local);
  const queues = (await Promise.all(pods.map((pod) => inspector.dueHostCount(pod)))).reduce(
    (a, b) => a + b,
    0,
  );
  if (p.local) {
    const { queued, inFlight } = await localCounts('GetStats', ctx, inspector);
    const node = ctx.counters.snapshot();
    const pod = await inspector.podStats(ctx.podId);
    return {
      size: queued,
      inProcess: inFlight,
      numberOfQueues: queues,
      counts: { ...pod, ...node },
      crawlID,
    };
  }
  const global = await inspector.stats();
  const { queued = 0, inFlight = 0, ...counts } = global;
  return {
    size: Math.max(0, queued),
    inProcess: Math.max(0, inFlight),
    numberOfQueues: queues,
    counts: Object.fromEntries(Object.entries(counts).filter(([, v]) => v >= 0)),
    crawlID,
  };
}

export async function listQueues(ctx: NodeContext, p: Pagination): Promise<QueueList> {
  const { inspector } = ctx.crawls.get(p.crawlID, 'ListQueues');
  const size = p.size || 100;
  if (size > 10_000) throw invalidArgument('ListQueues', 'size', p.size, '0..10000 (0 = 100)');
  const nowMs = Date.now();
  const hosts = new Set<string>();
  for (const pod of await podsOf(ctx, inspector, p.local)) {
    for (let offset = 0; offset < MAX_LISTED_PER_POD; offset += 1000) {
      const page = await inspector.dueHosts(pod, { offset, limit: 1000 });
      for (const h of page) if (p.include_inactive || h.dueAtMs <= nowMs) hosts.add(h.host);
      // Earliest first: once one entry is not due, none after it is.
      const last = page[page.length - 1];
      if (
        page.length < 1000 ||
        (!p.include_inactive && last !== undefined && last.dueAtMs > nowMs)
      ) {
        break;
      }
    }
    // Packed domains' hosts wait in the pod's backlog, due now.
    for (let offset = 0; offset < MAX_LISTED_PER_POD; offset += 1000) {
      const page = await inspector.backlogHosts(pod, { offset, limit: 1000 });
      for (const h of page) hosts.add(h.host);
      if (page.length < 1000) break;
    }
  }
  const all = [...hosts].sort();
  const values = all.slice(p.start, p.start + size);
  return {
    values,
    total: all.length,
    start: p.start,
    size: values.length,
    crawlID: CrawlFrontiers.toUrlFrontier(inspector.crawlId),
  };
}

export async function countUrls(ctx: NodeContext, p: CountUrlParams): Promise<{ value: number }> {
  const { inspector } = ctx.crawls.get(p.crawlID, 'CountURLs');
  if (p.filter) {
    throw unimplemented(
      'CountURLs',
      'a URL filter needs a scan of every queued URL; shardline keeps exact counts per host ' +
        'and domain instead (leave filter empty, or give a key)',
    );
  }
  if (p.key !== '') {
    const { host, domain } = queue('CountURLs', p.key);
    const state = await inspector.hostState(domain, host);
    return { value: state.queued + state.inFlight };
  }
  if (p.local) {
    const { queued, inFlight } = await localCounts('CountURLs', ctx, inspector);
    return { value: queued + inFlight };
  }
  const { queued = 0, inFlight = 0 } = await inspector.stats();
  return { value: Math.max(0, queued) + Math.max(0, inFlight) };
}

export async function blockQueueUntil(ctx: NodeContext, p: BlockQueueParams): Promise<object> {
  const frontier = ctx.crawls.get(p.crawlID, 'BlockQueueUntil');
  const { host, domain } = queue('BlockQueueUntil', p.key);
  if (!Number.isSafeInteger(p.time * 1000)) {
    throw invalidArgument('BlockQueueUntil', 'time', p.time, 'seconds since the epoch');
  }
  await frontier.blockUntil({ host, domain }, p.time * 1000);
  return {};
}

export async function setDelay(ctx: NodeContext, p: QueueDelayParams): Promise<object> {
  const frontier = ctx.crawls.get(p.crawlID, 'SetDelay');
  if (p.key === '') {
    throw unimplemented(
      'SetDelay',
      "the default gap of every queue is the nodes' --min-delay-ms, the same on every node and " +
        'fixed at start; SetDelay sets one queue (give its key)',
    );
  }
  const { host, domain } = queue('SetDelay', p.key);
  await frontier.setHostPolicy(host, { delayMs: p.delay_requestable * 1000 }, domain);
  return {};
}

/**
 * Deletes the URLs waiting in a host's queue (and its refetch schedule) in one crawl; returns
 * how many. Leases already out finish normally; the URLs stay seen, so discovering them again
 * does not queue them again. Cluster-wide (`local` changes nothing).
 */
export async function deleteQueue(
  ctx: NodeContext,
  p: QueueWithinCrawlParams,
): Promise<{ value: number }> {
  const frontier = ctx.crawls.get(p.crawlID, 'DeleteQueue');
  const { host, domain } = queue('DeleteQueue', p.key);
  const value = await frontier.dropHost(host, domain);
  ctx.log.info({ host, crawlId: p.crawlID, urls: value }, 'DeleteQueue');
  return { value };
}

/**
 * URLFrontier's SetCrawlLimit: the crawl hands out no more URLs of the host once the ones it
 * completed (acked, from the start of the crawl) plus the ones out reach `limit`; 0 lifts
 * the limit (as the reference service). Kept in the host's state of the crawl in Redis and
 * checked inside the claim script, so it holds on every node, survives restarts and
 * follows the domain on handoff.
 */
export async function setCrawlLimit(ctx: NodeContext, p: CrawlLimitParams): Promise<object> {
  const frontier = ctx.crawls.get(p.crawlID, 'SetCrawlLimit');
  const { host, domain } = queue('SetCrawlLimit', p.key);
  await frontier.setHostPolicy(host, { crawlLimit: p.limit === 0 ? null : p.limit }, domain);
  ctx.log.info({ host, crawlId: p.crawlID, limit: p.limit }, 'SetCrawlLimit');
  return {};
}
