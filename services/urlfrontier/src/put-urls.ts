/**
 * PutURLs: a bidirectional stream of URL items, each acked by its ID (or its URL). A
 * DiscoveredURLItem is enqueued through the frontier's dedup (any node accepts any URL: the
 * frontier puts it in its owner's due index); a KnownURLItem settles the lease GetURLs handed
 * out — `refetchable_from_date` 0 = done, a later date = fetched again then (the recrawl
 * schedule of the URL's host). Items are written to Redis in batches as they arrive.
 */
import type { ServerDuplexStream } from '@grpc/grpc-js';
import {
  type EnqueueItem,
  LeaseLostError,
  LeaseNotHeldError,
  MAX_REFETCH_MS,
  type RedisFrontier,
  RedisOomError,
} from '@shardline/frontier';
import type { CanonicalUrl } from '@shardline/url';
import type { NodeContext } from './context.js';
import { CrawlFrontiers } from './crawl-frontiers.js';
import { encodeMetadata } from './metadata.js';
import type { AckMessage, AckStatus, URLInfo, URLItem } from './proto.js';
import { canonicalUrl, keyFitsUrl } from './queue-key.js';

/** Items written to Redis per batch. */
const BATCH = 500;
/** Items waiting before the stream is paused (flow control back to the client). */
const HIGH_WATER = 4 * BATCH;

export function handlePutUrls(
  ctx: NodeContext,
  call: ServerDuplexStream<URLItem, AckMessage>,
): void {
  const pending: URLItem[] = [];
  let flushing = false;
  let ended = false;
  const flush = async () => {
    flushing = true;
    try {
      while (pending.length > 0 && !call.cancelled) {
        const batch = pending.splice(0, BATCH);
        ctx.counters.add('put.batches');
        if (call.isPaused() && pending.length < HIGH_WATER / 2) call.resume();
        let acks: AckMessage[];
        try {
          acks = await settleBatch(ctx, batch);
        } catch (error) {
          // Every item still gets its ack: FAIL, so the client sends it again.
          ctx.counters.fault('put.batch-failed', 'PutURLs: a batch failed; its items acked FAIL', {
            err: error,
          });
          acks = batch.map((item) => ({ ID: ackId(item), status: 'FAIL' }));
        }
        for (const ack of acks) call.write(ack);
      }
    } finally {
      flushing = false;
      if (ended && pending.length === 0) call.end();
    }
  };
  call.on('data', (item: URLItem) => {
    pending.push(item);
    if (pending.length >= HIGH_WATER) call.pause();
    // Started on the next turn so that the items already received form one batch.
    if (!flushing) {
      flushing = true;
      setImmediate(() => void flush());
    }
  });
  call.on('end', () => {
    ended = true;
    if (!flushing) call.end();
  });
  call.on('error', (error) => ctx.log.debug({ err: error }, 'PutURLs stream closed by the client'));
}

/** A crawl's share of a batch. */
interface CrawlBatch {
  crawlId: string;
  frontier: RedisFrontier;
  discovered: { k: number; info: URLInfo }[];
  known: { k: number; url: CanonicalUrl; refetchAfterMs: number }[];
}

/** One batch: per crawl, discovered items enqueued together, known items settled together; acks in input order. */
async function settleBatch(ctx: NodeContext, items: URLItem[]): Promise<AckMessage[]> {
  const acks: AckMessage[] = items.map((item) => ({ ID: ackId(item), status: 'OK' }));
  const crawls = new Map<string, CrawlBatch>();
  const nowMs = Date.now();
  for (const [k, item] of items.entries()) {
    const info = item.discovered?.info ?? item.known?.info;
    const set = (status: AckStatus, fault: string, message: string) => {
      acks[k]!.status = status;
      ctx.counters.fault(fault, message, { url: info?.url, id: item.ID });
    };
    if (!info || typeof info.url !== 'string' || info.url === '') {
      set('SKIPPED', 'put.no-url', 'PutURLs: an item without URLInfo.url was skipped');
      continue;
    }
    let crawl: CrawlBatch;
    try {
      const crawlId = CrawlFrontiers.toShardline(info.crawlID, 'PutURLs');
      crawl = crawls.get(crawlId) ?? {
        crawlId,
        frontier: ctx.crawls.ofShardline(crawlId, 'PutURLs'),
        discovered: [],
        known: [],
      };
      crawls.set(crawlId, crawl);
    } catch (error) {
      set('SKIPPED', 'put.bad-crawl', (error as Error).message);
      continue;
    }
    const canonical = canonicalUrl(info.url);
    if ('reason' in canonical) {
      set('SKIPPED', 'put.bad-url', `PutURLs: URL skipped: ${canonical.reason}`);
      continue;
    }
    if (!keyFitsUrl(info.key, canonical.url)) {
      set(
        'SKIPPED',
        'put.foreign-key',
        `PutURLs: key ${JSON.stringify(info.key)} names neither the URL's host nor its domain; ` +
          'queues here are hosts (send an empty key, the host, or the domain)',
      );
      continue;
    }
    if (item.known) {
      const date = item.known.refetchable_from_date;
      const refetchAfterMs = date === 0 ? 0 : Math.max(1, date * 1000 - nowMs);
      if (refetchAfterMs > MAX_REFETCH_MS) {
        set(
          'SKIPPED',
          'put.refetch-too-far',
          'PutURLs: refetchable_from_date is more than a year ahead; send 0 for never',
        );
        continue;
      }
      crawl.known.push({ k, url: canonical.url, refetchAfterMs });
    } else {
      crawl.discovered.push({ k, info });
    }
  }
  await Promise.all(
    [...crawls.values()].flatMap((crawl) => [
      enqueueDiscovered(ctx, crawl, acks),
      settleKnown(ctx, crawl, acks),
    ]),
  );
  for (const crawl of crawls.values()) {
    ctx.counters.add('put.discovered', crawl.discovered.length);
    ctx.counters.add('put.known', crawl.known.length);
  }
  return acks;
}

function ackId(item: URLItem): string {
  return item.ID || item.discovered?.info?.url || item.known?.info?.url || '';
}

async function enqueueDiscovered(
  ctx: NodeContext,
  { frontier, discovered: items }: CrawlBatch,
  acks: AckMessage[],
): Promise<void> {
  if (items.length === 0) return;
  const batch: EnqueueItem[] = items.map(({ info }) => {
    const meta = encodeMetadata(info.metadata);
    return meta === '' ? info.url : { url: info.url, meta };
  });
  try {
    const report = await frontier.enqueue(batch);
    report.results.forEach((result, j) => {
      const ack = acks[items[j]!.k]!;
      if (result.status === 'rejected') {
        ack.status = 'SKIPPED';
        ctx.counters.fault('put.rejected', `PutURLs: URL refused: ${result.reason}`, {
          url: items[j]!.info.url,
          code: result.code,
        });
      } else if (result.status === 'over-cap') {
        // Not marked seen: the client may send it again once the queue has room.
        ack.status = 'FAIL';
        ctx.counters.fault('put.over-cap', 'PutURLs: queue full or at its cap; URL not queued', {
          url: items[j]!.info.url,
          code: result.code,
        });
      }
    });
  } catch (error) {
    // Redis full: what was queued before the refusal is acked OK, the rest FAIL (resend).
    const pending = error instanceof RedisOomError ? new Set(error.pending) : undefined;
    items.forEach(({ k }, j) => {
      if (!pending || pending.has(j)) acks[k]!.status = 'FAIL';
    });
    ctx.counters.fault('put.enqueue-failed', 'PutURLs: enqueue failed; items acked FAIL', {
      err: error,
    });
  }
}

async function settleKnown(
  ctx: NodeContext,
  { crawlId, frontier, known: items }: CrawlBatch,
  acks: AckMessage[],
): Promise<void> {
  if (items.length === 0) return;
  const fail = (k: number, error: unknown) => {
    acks[k]!.status = 'FAIL';
    ctx.counters.fault('put.known-failed', 'PutURLs: settling a known URL failed', { err: error });
  };
  // First the leases this node remembers (one batch), then a lookup in Redis for the others
  // and for remembered leases that moved on (expired and handed out again, or settled).
  const remembered = items.flatMap((item) => {
    const lease = ctx.leases.take(crawlId, item.url.url);
    return lease ? [{ item, lease }] : [];
  });
  const took = new Set(remembered.map((r) => r.item));
  const rest = items.filter((item) => !took.has(item));
  try {
    const outcomes = await frontier.completeMany(
      remembered.map(({ item, lease }) => ({
        lease,
        result: { refetchAfterMs: item.refetchAfterMs },
      })),
    );
    outcomes.forEach((outcome, j) => {
      if (outcome === null) return;
      if (outcome instanceof LeaseLostError || outcome instanceof LeaseNotHeldError) {
        rest.push(remembered[j]!.item);
      } else fail(remembered[j]!.item.k, outcome);
    });
  } catch (error) {
    for (const { item } of remembered) fail(item.k, error);
  }
  await Promise.all(
    rest.map(async (item) => {
      try {
        const lease = await ctx.leases.lookup(frontier, item.url);
        if (!lease) {
          // Already settled, or its lease lapsed and it is queued again: nothing to settle.
          ctx.counters.add('put.known-without-lease');
          return;
        }
        await frontier.complete(lease, { refetchAfterMs: item.refetchAfterMs });
      } catch (error) {
        if (error instanceof LeaseLostError) ctx.counters.add('put.known-without-lease');
        else fail(item.k, error);
      }
    }),
  );
}
