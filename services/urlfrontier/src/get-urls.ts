/**
 * GetURLs: streams up to `max_urls_per_queue` URLs from up to `max_queues` queues (hosts) of
 * the domains this node owns. Each URL is handed out under a lease whose deadline is the
 * call's `delay_requestable` (the node's lease timeout when 0): invisible to every node until
 * a KnownURLItem settles it or the deadline passes (then the frontier requeues it, counted as a
 * repeat). The frontier's claim keeps per-host politeness cluster-wide; ownership only decides
 * which node tries, so a node that is told of a ring change late still never hands out a URL
 * that is leased.
 */
import type { ServerWritableStream } from '@grpc/grpc-js';
import type { Lease } from '@shardline/frontier';
import type { NodeContext } from './context.js';
import { DEFAULT_CRAWL_ID } from './crawl-frontiers.js';
import { invalidArgument, toServiceError, unimplemented } from './errors.js';
import { decodeMetadata } from './metadata.js';
import type { GetParams, URLInfo } from './proto.js';

/** Claims per call: later rounds pick up queues the first round's hosts left room for. */
const MAX_ROUNDS = 4;
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
  if (p.key !== '') {
    throw unimplemented(
      'GetURLs',
      'a key (one queue) is not served: a node hands out its due queues in due order from its ' +
        'due index; leave key empty (BlockQueueUntil holds back a queue you do not want)',
    );
  }
  // anyCrawlID: every crawl this frontier serves, which is the default one.
  const frontier = ctx.crawls.get(p.item === 'crawlID' ? p.crawlID : undefined, 'GetURLs');
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
  const leaseTimeoutMs = p.delay_requestable > 0 ? p.delay_requestable * 1000 : defaultTimeoutMs;
  const perQueue = Math.min(p.max_urls_per_queue || maxUrlsPerCall, maxUrlsPerCall);
  const maxQueues = p.max_queues || Number.POSITIVE_INFINITY;
  const total = Math.min(maxUrlsPerCall, maxQueues * perQueue);
  const perHost = new Map<string, number>();
  let sent = 0;
  for (let round = 0; round < MAX_ROUNDS && sent < total && !call.cancelled; round++) {
    const { leases } = await frontier.claim({
      pod: ctx.podId,
      max: total - sent,
      leaseTimeoutMs,
      maxPerHost: perQueue,
    });
    if (leases.length === 0) break;
    const unsent: Lease[] = [];
    let took = 0;
    for (const lease of leases) {
      const n = perHost.get(lease.host) ?? 0;
      const fits = n < perQueue && (n > 0 || perHost.size < maxQueues) && sent < total;
      if (!fits || call.cancelled) {
        unsent.push(lease);
        continue;
      }
      perHost.set(lease.host, n + 1);
      ctx.leases.remember(lease.url, lease);
      call.write(urlInfo(lease));
      sent++;
      took++;
    }
    await giveBack(ctx, unsent);
    if (took === 0) break;
  }
  ctx.counters.add('get.handed-out', sent);
}

/** Leases claimed past the call's limits go back to the front of their queues, untouched. */
async function giveBack(ctx: NodeContext, leases: Lease[]): Promise<void> {
  if (leases.length === 0) return;
  const frontier = ctx.crawls.get(undefined, 'GetURLs');
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

function urlInfo(lease: Lease): URLInfo {
  return {
    url: lease.url,
    key: lease.host,
    metadata: decodeMetadata(lease.meta),
    crawlID: DEFAULT_CRAWL_ID,
  };
}
