/**
 * Frontier throughput and memory, on one throwaway redis-server, in one run:
 *
 * 1. Raw pipelined `ZADD` of the URLs into per-domain sorted sets (the baseline), then
 *    enqueue of the same URLs through the frontier, in the same batches, and
 *    claim+complete of all of them; rates and the ratio to the baseline; Redis CPU per
 *    claimed+completed URL (`INFO cpu`) as URLs per second of one Redis core, split by script
 *    and command (test/helpers/redis-cpu.ts).
 * 2. Redis memory per queued URL and per seen URL: `INFO memory` delta over 1,000,000 URLs
 *    enqueued on 10,000 domains, then on 100 domains of 10,000 URLs. The seen share is
 *    the drop when the seen buckets and the domain hashes' inline seen-sets (field S) are
 *    deleted afterwards; everything else (queues, host and domain state, due index, domains
 *    index) is charged to the queued URLs. Goals (the wide-crawl issue): seen ≤ 9 B; queued
 *    ≤ URL + 16 B at 100 URLs per domain.
 *
 * `BENCH_SCALE=0.1 npm run bench -- frontier` runs a tenth of every size;
 * `BENCH_MEMORY_ONLY=1` only step 2.
 */
import { Redis } from 'ioredis';
import { startRedis } from '../../../test/helpers/redis.js';
import {
  cpuTable,
  scriptNamesBySha,
  scriptTimes,
  startCpuWindow,
} from '../../../test/helpers/redis-cpu.js';
import { RedisFrontier } from '../src/index.js';
import { claimAll } from './claim-loops.js';
import { usedMemory } from './redis-memory.js';

const scale = Number(process.env.BENCH_SCALE ?? 1);
const BATCH = 1000;

function urlOf(domain: number, i: number): string {
  return `https://www.site${domain}.com/articles/${i}/a-page-title-${(i * 7919) % 100_000}`;
}

/** URLs in batch order: each batch spreads over `domainsPerBatch` domains. */
function* batches(
  domains: number,
  perDomain: number,
  domainsPerBatch: number,
): Generator<string[]> {
  const perBatchPerDomain = Math.max(1, Math.floor(BATCH / domainsPerBatch));
  for (let start = 0; start < perDomain; start += perBatchPerDomain) {
    for (let d0 = 0; d0 < domains; d0 += domainsPerBatch) {
      const batch: string[] = [];
      for (let d = d0; d < Math.min(domains, d0 + domainsPerBatch); d++) {
        for (let i = start; i < Math.min(perDomain, start + perBatchPerDomain); i++)
          batch.push(urlOf(d, i));
      }
      yield batch;
    }
  }
}

/** Runs `each` on every page of the keys matching `pattern` (SCAN). */
async function forMatching(
  redis: Redis,
  pattern: string,
  each: (keys: string[]) => Promise<unknown>,
): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 5000);
    if (keys.length > 0) await each(keys);
    cursor = next;
  } while (cursor !== '0');
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

async function throughput(redis: Redis): Promise<void> {
  const domains = Math.round(1000 * scale);
  const perDomain = 200;
  const all = [...batches(domains, perDomain, 10)];
  const total = all.reduce((n, b) => n + b.length, 0);

  let t = performance.now();
  let score = 0;
  for (const batch of all) {
    const pipe = redis.pipeline();
    for (const url of batch) {
      const host = url.slice(8, url.indexOf('/', 8));
      pipe.zadd(`raw:{d:${host}}:q`, score++, url);
    }
    await pipe.exec();
  }
  const zaddRate = total / ((performance.now() - t) / 1000);

  const frontier = new RedisFrontier({
    redis,
    ownerOf: () => 'bench',
    prefix: 'tp',
    defaultDelayMs: 0,
    leaseTimeoutMs: 60_000,
  });
  t = performance.now();
  for (const batch of all) await frontier.enqueue(batch);
  const enqueueRate = total / ((performance.now() - t) / 1000);

  const names = scriptNamesBySha();
  const endWindow = await startCpuWindow(redis);
  t = performance.now();
  await claimAll(frontier, total);
  const claimRate = total / ((performance.now() - t) / 1000);
  const cpu = await endWindow();
  // The split by script: a quarter of the URLs again (fresh prefix) with every command logged.
  const again = new RedisFrontier({
    redis,
    ownerOf: () => 'bench',
    prefix: 'tp-split',
    defaultDelayMs: 0,
    leaseTimeoutMs: 60_000,
  });
  const splitBatches = all.slice(0, Math.ceil(all.length / 4));
  for (const batch of splitBatches) await again.enqueue(batch);
  const splitTotal = splitBatches.reduce((n, b) => n + b.length, 0);
  const splitRun = claimAll(again, splitTotal);
  const split = await scriptTimes(redis, splitRun, names);
  await splitRun;
  console.log(`throughput: ${fmt(total)} URLs on ${fmt(domains)} domains, batches of ${BATCH}`);
  console.log(`  raw pipelined ZADD (baseline)   ${fmt(zaddRate)} URLs/s`);
  console.log(
    `  frontier enqueue                ${fmt(enqueueRate)} URLs/s  (${fmt(enqueueRate / zaddRate, 2)}× baseline, goal ≥ 0.5×)`,
  );
  console.log(
    `  frontier claim+complete         ${fmt(claimRate)} URLs/s  (${fmt(claimRate / zaddRate, 2)}× baseline)`,
  );
  console.log(
    `  claim+complete on one Redis core: ${fmt(total / (cpu.cpuUs / 1e6))} URLs per Redis CPU-second (${fmt(cpu.cpuUs / total, 1)} µs/URL, goal ≥ 50,000 URLs/s)`,
  );
  for (const line of cpuTable(cpu, total, split, splitTotal)) {
    console.log(`  ${line.replace('per fetched page', 'per claimed+completed URL')}`);
  }
}

/**
 * The seen-set layout before it followed the server's settings (buckets of ~200, 63 inline):
 * the baseline of the memory step, run on the same server.
 */
const FIXED_SEEN_LAYOUT = { seenBucketLoad: 200, seenInlineMax: 63 };

async function memory(
  redis: Redis,
  domains: number,
  perDomain: number,
  layout: Partial<typeof FIXED_SEEN_LAYOUT> = {},
): Promise<void> {
  await redis.flushall();
  const prefix = 'mem';
  const frontier = new RedisFrontier({
    redis,
    ownerOf: (d) => `pod${d.length % 3}`,
    prefix,
    defaultDelayMs: 0,
    ...layout,
  });
  const before = await usedMemory(redis);
  let urls = 0;
  let urlBytes = 0;
  for (const batch of batches(domains, perDomain, Math.max(1, Math.floor(BATCH / perDomain)))) {
    const report = await frontier.enqueue(batch);
    if (report.queued !== batch.length) throw new Error('bench URLs must all be new');
    for (const r of report.results) urlBytes += Buffer.byteLength(r.url!);
    urls += batch.length;
  }
  const afterAll = await usedMemory(redis);
  await forMatching(redis, `${prefix}:{d:*}:s:*`, (keys) => redis.unlink(...keys));
  await forMatching(redis, `${prefix}:{d:*}:d`, (keys) => {
    const pipe = redis.pipeline();
    for (const key of keys) pipe.hdel(key, 'S');
    return pipe.exec();
  });
  const afterSeenGone = await usedMemory(redis);
  const seen = (afterAll - afterSeenGone) / urls;
  const queued = (afterSeenGone - before) / urls;
  const avgUrl = urlBytes / urls;
  const seenLayout =
    layout.seenBucketLoad === undefined
      ? "seen layout from the server's settings"
      : `baseline: seen buckets of ~${layout.seenBucketLoad}, ${layout.seenInlineMax} inline`;
  console.log(
    `memory: ${fmt(urls)} URLs on ${fmt(domains)} domains of ${fmt(perDomain)} (mean URL ${fmt(avgUrl, 1)} B; ${seenLayout})`,
  );
  console.log(`  per seen URL    ${fmt(seen, 2)} B   (goal ≤ 9 B)  ${seen <= 9 ? 'OK' : 'MISSED'}`);
  const queuedGoal =
    perDomain <= 100 ? ` (goal ≤ URL + 16 B)  ${queued - avgUrl <= 16 ? 'OK' : 'MISSED'}` : '';
  console.log(
    `  per queued URL  ${fmt(queued, 1)} B = URL + ${fmt(queued - avgUrl, 1)} B${queuedGoal}`,
  );
}

const server = await startRedis();
const redis = new Redis(server.port, server.host);
try {
  const version = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1];
  console.log(`redis ${version}, scale ${scale}`);
  if (process.env.BENCH_MEMORY_ONLY !== '1') await throughput(redis);
  for (const layout of [FIXED_SEEN_LAYOUT, {}]) {
    await memory(redis, Math.round(10_000 * scale), 100, layout);
    await memory(redis, Math.round(100 * scale), 10_000, layout);
  }
} finally {
  redis.disconnect();
  await server.stop();
}
