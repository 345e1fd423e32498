/**
 * GetURLs: streams up to `max_urls_per_queue` URLs from up to `max_queues` queues (hosts) of
 * the domains this node owns. Each URL is handed out under a lease whose deadline is the
 * call's `delay_requestable` (the node's lease timeout when 0): invisible to every node until
 * a KnownURLItem settles it or the deadline passes (then the frontier requeues it, counted as a
 * repeat). The frontier's claim keeps per-host politeness cluster-wide; ownership only decides
 * which node tries, so a node that is told of a ring change late still never hands out a URL
 * that is leased. With a `key` (one queue: a host, or a registrable domain for its hosts) the
 * node claims from that queue alone, due or not (the claim script's gate still decides), if it
 * owns the queue's domain; another node's queue gets nothing.
 */
import type { ServerWritableStream } from '@grpc/grpc-js';
import type { Lease, RedisFrontier } from '@shardline/frontier';
import type { NodeContext } from './context.js';
import { CrawlFrontiers } from './crawl-frontiers.js';
import { invalidArgument, toServiceError } from './errors.js';
import { decodeMetadata } from './metadata.js';
import type { GetParams, URLInfo } from './proto.js';
import { parseQueueKey } from './queue-key.js';

/** Claims per call: later rounds pick up queues the first round's hosts left room for. */
const MAX_ROUNDS = 4;
/** Hosts of a domain key claimed from (the frontier's bound on a named claim). */
const MAX_KEY_HOSTS = 100;
/** Longest `delay_requestable` accepted (s): a day. */
const MAX_DELAY_S = 86_400;

export async function handleGetUrls(
  ctx: NodeContext,
  call: ServerWritableStream<GetParams, URLInfo>,
): Promise<void> {
  try {
    await streamUrls(ctx, call);
    call.end();
  } catch (error) {
    call.emit('error', toServiceError(error));
  }
}

async function streamUrls(ctx: NodeContext, call: ServerWritableStream<GetParams, URLInfo>) {
  const p = call.request;
  const queue = p.key === '' ? undefined : parseQueueKey(p.key);
  if (queue === null) throw invalidArgument('GetURLs', 'key', p.key, 'a host name (the queue)');
  // anyCrawlID: every crawl of the registry; no crawl field at all (older clients): the default.
  const crawlIds =
    p.item === 'anyCrawlID'
      ? await ctx.crawls.ids()
      : [CrawlFrontiers.toShardline(p.item === 'crawlID' ? p.crawlID : undefined, 'GetURLs')];
  if (!Number.isInteger(p.delay_requestable) || p.delay_requestable > MAX_DELAY_S) {
    throw invalidArgument(
      'GetURLs',
      'delay_requestable',
      p.delay_requestable,
      `0..${MAX_DELAY_S} s`,
    );
  }
  if (!(await ctx.active.get())) return;
  const { maxUrlsPerCall, leaseTimeoutMs: defaultTimeoutMs } = ctx.options;
  const limits: Limits = {
    leaseTimeoutMs: p.delay_requestable > 0 ? p.delay_requestable * 1000 : defaultTimeoutMs,
    perQueue: Math.min(p.max_urls_per_queue || maxUrlsPerCall, maxUrlsPerCall),
    maxQueues: p.max_queues || Number.POSITIVE_INFINITY,
    total: 0,
  };
  limits.total = Math.min(maxUrlsPerCall, limits.maxQueues * limits.perQueue);
  const perQueue = new Map<string, number>();
  let sent = 0;
  for (const crawlId of crawlIds) {
    if (sent >= limits.total || call.cancelled) break;
    sent += await streamCrawl(ctx, call, crawlId, limits, perQueue, sent, queue);
  }
  ctx.counters.add('get.handed-out', sent);
}

interface Limits {
  leaseTimeoutMs: number;
  perQueue: number;
  maxQueues: number;
  total: number;
}

/** One crawl's share of a call; `perQueue` counts per `<crawl> <host>` over the whole call. */
async function streamCrawl(
  ctx: NodeContext,
  call: ServerWritableStream<GetParams, URLInfo>,
  crawlId: string,
  limits: Limits,
  perQueue: Map<string, number>,
  sentBefore: number,
  queue: { host: string; domain: string } | undefined,
): Promise<number> {
  const frontier = ctx.crawls.ofShardline(crawlId, 'GetURLs');
  const crawlID = CrawlFrontiers.toUrlFrontier(crawlId);
  const hosts = queue && (await queueHosts(frontier, queue));
  if (hosts?.length === 0) return 0;
  let sent = sentBefore;
  for (let round = 0; round < MAX_ROUNDS && sent < limits.total && !call.cancelled; round++) {
    const { leases } = await frontier.claim({
      pod: ctx.podId,
      max: limits.total - sent,
      leaseTimeoutMs: limits.leaseTimeoutMs,
      maxPerHost: limits.perQueue,
      ...(hosts ? { hosts } : {}),
    });
    if (leases.length === 0) break;
    const unsent: Lease[] = [];
    let took = 0;
    for (const lease of leases) {
      const queue = `${crawlId} ${lease.host}`;
      const n = perQueue.get(queue) ?? 0;
      const fits =
        n < limits.perQueue && (n > 0 || perQueue.size < limits.maxQueues) && sent < limits.total;
      if (!fits || call.cancelled) {
        unsent.push(lease);
        continue;
      }
      perQueue.set(queue, n + 1);
      ctx.leases.remember(crawlId, lease.url, lease);
      call.write(urlInfo(lease, crawlID));
      sent++;
      took++;
    }
    await giveBack(ctx, frontier, unsent);
    if (took === 0) break;
  }
  return sent - sentBefore;
}

/**
 * The hosts a key names: the host itself, or for a registrable domain (StormCrawler's
 * `byDomain`) the domain's hosts in the crawl, at most the 100 a claim may name.
 */
async function queueHosts(
  frontier: RedisFrontier,
  queue: { host: string; domain: string },
): Promise<string[]> {
  if (queue.host !== queue.domain) return [queue.host];
  return (await frontier.inspector.domainHosts(queue.domain)).slice(0, MAX_KEY_HOSTS);
}

/** Leases claimed past the call's limits go back to the front of their queues, untouched. */
async function giveBack(ctx: NodeContext, frontier: RedisFrontier, leases: Lease[]): Promise<void> {
  if (leases.length === 0) return;
  ctx.counters.add('get.given-back', leases.length);
  await Promise.all(
    leases.map((lease) =>
      frontier.release(lease).catch((error: unknown) =>
        // The lease then ends at its deadline like any unacked one: late, not lost.
        ctx.counters.fault('get.give-back-failed', 'GetURLs: giving back an unsent URL failed', {
          err: error,
          url: lease.url,
        }),
      ),
    ),
  );
}

function urlInfo(lease: Lease, crawlID: string): URLInfo {
  return { url: lease.url, key: lease.host, metadata: decodeMetadata(lease.meta), crawlID };
}
