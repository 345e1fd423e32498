/**
 * What a crawl costs, on one throwaway redis-server, in one run:
 *
 * - enqueue time of the same URLs in the default crawl and in the second one (ratio);
 * - the crawl's domain set (`P:c:X:{crawls}:domains`, what `crawl delete` walks instead of a
 *   scan): `MEMORY USAGE` per domain;
 * - the same URLs queued in the default crawl and in a second crawl: `used_memory` per URL
 *   of each (the second crawl's seen-set, queues, domain and host hashes, and its domain set);
 * - deleting the second crawl (`CrawlRegistry.delete`, 200 domains per batch): ms per domain,
 *   and that `used_memory` comes back to the default crawl's figure.
 *
 * 20,000 domains × 5 URLs (a tenth with `BENCH_SCALE=0.1`). `npm run bench -- crawls`.
 */
import { Redis } from 'ioredis';
import { startRedis } from '../../../test/helpers/redis.js';
import { CrawlRegistry, RedisFrontier } from '../src/index.js';
import { FrontierKeys } from '../src/keys.js';
import { usedMemory } from './redis-memory.js';

const scale = Number(process.env.BENCH_SCALE ?? 1);
const DOMAINS = Math.round(20_000 * scale);
const PER_DOMAIN = 5;
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

async function enqueueAll(frontier: RedisFrontier): Promise<void> {
  for (let k = 0; k < PER_DOMAIN; k++) {
    const batch: string[] = [];
    for (let d = 0; d < DOMAINS; d++) batch.push(`https://www.site${d}.com/articles/${k}/a-title`);
    for (let s = 0; s < batch.length; s += 1000) await frontier.enqueue(batch.slice(s, s + 1000));
  }
}

const server = await startRedis();
const redis = new Redis(server.url);
try {
  const prefix = 'cb';
  const urls = DOMAINS * PER_DOMAIN;
  const m0 = await usedMemory(redis);
  let t = performance.now();
  await enqueueAll(new RedisFrontier({ redis, ownerOf: () => 'p', prefix }));
  const enqueueDefaultMs = performance.now() - t;
  const m1 = await usedMemory(redis);
  const keys1 = await redis.dbsize();
  t = performance.now();
  await enqueueAll(new RedisFrontier({ redis, ownerOf: () => 'p', prefix, crawlId: 'second' }));
  const enqueueCrawlMs = performance.now() - t;
  const m2 = await usedMemory(redis);
  const set = new FrontierKeys(prefix, 'second').crawlDomains();
  const setBytes = Number(await redis.memory('USAGE', set, 'SAMPLES', 0));
  console.log(`${fmt(DOMAINS)} domains × ${PER_DOMAIN} URLs`);
  console.log(`default crawl        ${fmt((m1 - m0) / urls, 1)} B/URL`);
  console.log(`second crawl         ${fmt((m2 - m1) / urls, 1)} B/URL (same URLs, own seen-set)`);
  console.log(`crawl domain set     ${fmt(setBytes / DOMAINS, 1)} B/domain (${fmt(setBytes)} B)`);
  // The second crawl records the domains of each enqueue call first (one more script call).
  console.log(
    `enqueue, batches of 1,000: default ${fmt((enqueueDefaultMs * 1000) / urls, 1)} µs/URL, second crawl ${fmt((enqueueCrawlMs * 1000) / urls, 1)} µs/URL (ratio ${fmt(enqueueCrawlMs / enqueueDefaultMs, 2)})`,
  );

  const started = performance.now();
  const done = await new CrawlRegistry({ redis, prefix }).delete('second', { batchDomains: 200 });
  const ms = performance.now() - started;
  // UNLINK frees in the background: wait for lazyfree to finish before reading used_memory.
  for (
    let i = 0;
    i < 50 &&
    Number(/lazyfree_pending_objects:(\d+)/.exec(await redis.info('memory'))?.[1] ?? 0) > 0;
    i++
  ) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const m3 = await usedMemory(redis);
  const keys3 = await redis.dbsize();
  console.log(
    `delete second crawl  ${fmt(ms)} ms, ${fmt((ms * 1000) / DOMAINS, 1)} µs/domain, ${fmt(done.keys)} keys; keys left ${fmt(keys3)} (default crawl alone: ${fmt(keys1)}); used_memory default + ${fmt(m3 - m1)} B (the keyspace table keeps its grown size)`,
  );
} finally {
  redis.disconnect();
  await server.stop();
}
