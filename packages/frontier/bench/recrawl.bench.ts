/**
 * Memory of recrawl schedules, on one throwaway redis-server, in one run: `INFO memory`
 * `used_memory` per URL (seen buckets deleted first, as in frontier.bench.ts) for
 *
 * - baseline: the URLs queued once (no refetch interval), the frontier's plain queue entry;
 * - scheduled: the same URLs, each fetched once (claim + complete with an ETag, a
 *   Last-Modified and a content hash) and waiting in its host's refetch schedule;
 *   with and without validators.
 *
 * Each at 1,000 domains × 100 URLs and at 50 domains × 2,000 URLs (100,000 URLs; a tenth with
 * `BENCH_SCALE=0.1`). `npm run bench -- recrawl`.
 */
import { Redis } from 'ioredis';
import { startRedis } from '../../../test/helpers/redis.js';
import { type EnqueueItem, RedisFrontier, type Validators } from '../src/index.js';
import { usedMemory } from './redis-memory.js';

const scale = Number(process.env.BENCH_SCALE ?? 1);
const WEEK_MS = 7 * 86_400_000;
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

function urlOf(domain: number, i: number): string {
  return `https://www.site${domain}.com/articles/${i}/a-page-title-${(i * 7919) % 100_000}`;
}

async function deleteMatching(redis: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 5000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}

type Mode = 'queued' | 'scheduled' | 'scheduled+validators';

/** Bytes per URL of `mode`, seen-set excluded. */
async function measure(redis: Redis, mode: Mode, domains: number, perDomain: number) {
  await redis.flushall();
  const prefix = 'rc';
  const frontier = new RedisFrontier({ redis, ownerOf: () => 'p', prefix, defaultDelayMs: 0 });
  const before = await usedMemory(redis);
  const urls = domains * perDomain;
  for (let i = 0; i < perDomain; i += 10) {
    const batch: EnqueueItem[] = [];
    for (let d = 0; d < domains; d++) {
      for (let k = i; k < Math.min(perDomain, i + 10); k++) {
        const url = urlOf(d, k);
        batch.push(mode === 'queued' ? url : { url, refetchAfterMs: WEEK_MS });
      }
    }
    for (let s = 0; s < batch.length; s += 1000) await frontier.enqueue(batch.slice(s, s + 1000));
  }
  if (mode !== 'queued') {
    const validators: Validators | undefined =
      mode === 'scheduled+validators'
        ? {
            etag: '"5f3c-6b1d2a9e7c4f0"',
            lastModified: 'Tue, 14 Oct 2025 09:12:44 GMT',
            contentHash: 'q3k9Xw2mB7',
          }
        : undefined;
    let done = 0;
    while (done < urls) {
      const { leases } = await frontier.claim({ pod: 'p', max: 1000 });
      if (leases.length === 0) continue;
      const errors = await frontier.completeMany(
        leases.map((lease) => ({ lease, result: validators ? { validators } : {} })),
      );
      if (errors.some((e) => e !== null)) throw new Error('complete failed');
      done += leases.length;
    }
    const { scheduled } = await frontier.inspector.domainStats('www.site0.com'.slice(4));
    if (scheduled !== perDomain)
      throw new Error(`expected ${perDomain} scheduled, got ${scheduled}`);
  }
  await deleteMatching(redis, `${prefix}:{d:*}:s:*`);
  return (await usedMemory(redis)) - before;
}

const server = await startRedis();
const redis = new Redis(server.port, server.host);
try {
  const version = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1];
  console.log(`redis ${version}, scale ${scale}`);
  for (const [domains, perDomain] of [
    [Math.round(1000 * scale), 100],
    [Math.round(50 * scale), 2000],
  ] as const) {
    const urls = domains * perDomain;
    const mean =
      Array.from({ length: 1000 }, (_, i) => urlOf(i % domains, i % perDomain)).reduce(
        (sum, u) => sum + Buffer.byteLength(u),
        0,
      ) / 1000;
    console.log(
      `${fmt(urls)} URLs on ${fmt(domains)} domains of ${fmt(perDomain)} (mean URL ${fmt(mean, 1)} B)`,
    );
    const base = (await measure(redis, 'queued', domains, perDomain)) / urls;
    console.log(
      `  baseline, queued once     ${fmt(base, 1)} B/URL = URL + ${fmt(base - mean, 1)} B`,
    );
    for (const mode of ['scheduled', 'scheduled+validators'] as const) {
      const per = (await measure(redis, mode, domains, perDomain)) / urls;
      console.log(
        `  ${mode.padEnd(24)}  ${fmt(per, 1)} B/URL = URL + ${fmt(per - mean, 1)} B  (${fmt(per / base, 2)}× baseline)`,
      );
    }
  }
} finally {
  redis.disconnect();
  await server.stop();
}
