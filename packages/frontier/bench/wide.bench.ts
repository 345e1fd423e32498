/**
 * The wide shape: D domains × 1 URL (a web crawl's median domain has very few pages; K URLs
 * with BENCH_WIDE_URLS=K), through
 * the public `RedisFrontier` API on one throwaway redis-server (one core), in one run:
 *
 * 1. enqueue: rate, Redis `used_memory` per queued URL (against the mean URL length), keys
 *    per domain, and where it goes. Raw pipelined `SET` of the same URLs first, the baseline
 *    rate; then (up to 1,000,000 domains) the same enqueue with `packNewDomains: false`, the
 *    baseline layout (every new domain live, its hosts in the due index).
 * 2. pod-a claims every host it owns (half): claim rate.
 * 3. pod-a dies: what a survivor does (`reclaimPod`, then every domain of the dead pod's
 *    index reindexed to its new owner, evicted from the dead index): hosts per second.
 * 4. pod-b claims and completes everything: claim+complete URLs/s, Redis CPU per page
 *    (`INFO cpu` delta).
 * 5. all fetched: `used_memory` per domain kept, keys per domain, right after and once the
 *    pins of the finished hosts lapsed (claims then drop them from the due index and fold
 *    each idle domain into its archive hash), and where it goes (`MEMORY USAGE` of a sample
 *    of domains' keys and archive shares, and of the global indexes).
 *
 * Peak RSS of this process (the "pod": it only ever holds one batch of URLs) and of
 * redis-server (`VmHWM`). The URLs are generated batch by batch and the dead pod's index is
 * read page by page, so 10,000,000 domains fit a small heap.
 *
 *   npm run bench -- wide                              (100,000 domains)
 *   BENCH_WIDE_DOMAINS=1000000 npm run bench -- wide
 *   BENCH_WIDE_DOMAINS=10000000 BENCH_WIDE_UNTIL=reclaim npm run bench -- wide  (steps 1-3)
 *   BENCH_WIDE_DOMAINS=50000 BENCH_WIDE_URLS=5 npm run bench -- wide
 */
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { startRedis } from '../../../test/helpers/redis.js';
import { RedisFrontier } from '../src/index.js';
import { FrontierKeys } from '../src/keys.js';
import { envInt, refuse } from './bench-env.js';

const DOMAINS = envInt('BENCH_WIDE_DOMAINS', 100_000, 10, 1_000_000_000);
/** URLs per domain. */
const PER_DOMAIN = envInt('BENCH_WIDE_URLS', 1, 1, 10_000);
const URLS = DOMAINS * PER_DOMAIN;
/** `reclaim` ends the run after step 3 (the 10,000,000-domain run's goals end there). */
const UNTIL = process.env.BENCH_WIDE_UNTIL ?? 'all';
const BATCH = 1000;
/** Concurrent claim loops, and reindex calls in flight during the reclaim. */
const LOOPS = 4;
/** The frontier's pinMs in this bench. */
const PIN_MS = 2000;

if (UNTIL !== 'all' && UNTIL !== 'reclaim') {
  refuse(`BENCH_WIDE_UNTIL must be all or reclaim, got ${UNTIL}`);
}

/** Domain i's URL j: a registrable domain of its own, a typical path (distinct for j < 100,000). */
function urlOf(i: number, j: number): string {
  return `https://www.site${i}.com/articles/a-page-title-${(i * 7919 + j * 4729) % 100_000}`;
}

/** Every URL, a domain's together, BATCH at a time (a domain may straddle two batches). */
function* batches(): Generator<string[]> {
  for (let start = 0; start < URLS; start += BATCH) {
    const batch: string[] = [];
    for (let k = start; k < Math.min(URLS, start + BATCH); k++) {
      batch.push(urlOf(Math.floor(k / PER_DOMAIN), k % PER_DOMAIN));
    }
    yield batch;
  }
}

/** Two pods by a cheap hash of the domain; after the death of pod-a, all pod-b. */
let podADead = false;
function owner(domain: string): string {
  if (podADead) return 'pod-b';
  let h = 0;
  for (let k = 0; k < domain.length; k++) h = (h * 31 + domain.charCodeAt(k)) >>> 0;
  return h % 2 === 0 ? 'pod-a' : 'pod-b';
}

async function info(redis: Redis, section: string, field: string): Promise<number> {
  const text = await redis.info(section);
  return Number(new RegExp(`${field}:([\\d.]+)`).exec(text)?.[1] ?? Number.NaN);
}

async function redisCpuMs(redis: Redis): Promise<number> {
  return (
    ((await info(redis, 'cpu', 'used_cpu_sys')) + (await info(redis, 'cpu', 'used_cpu_user'))) *
    1000
  );
}

/** Peak RSS (MB) of a process, from /proc (Linux). */
function peakRssMb(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
const seconds = (t0: number) => (performance.now() - t0) / 1000;

/** Claims `pod`'s due hosts in LOOPS loops until `want` leases; completes them if asked. */
async function claimAll(
  frontier: RedisFrontier,
  pod: string,
  want: number,
  complete: boolean,
): Promise<{ claimed: number; claimSeconds: number }> {
  let claimed = 0;
  let claimSeconds = 0;
  let idle = 0;
  await Promise.all(
    Array.from({ length: LOOPS }, async () => {
      while (claimed < want && idle < 50) {
        const t0 = performance.now();
        const { leases } = await frontier.claim({ pod, max: BATCH });
        claimSeconds += seconds(t0);
        if (leases.length === 0) {
          idle += 1;
          await new Promise((r) => setTimeout(r, 20));
          continue;
        }
        idle = 0;
        claimed += leases.length;
        if (complete) await frontier.completeMany(leases.map((lease) => ({ lease })));
      }
    }),
  );
  return { claimed, claimSeconds: claimSeconds / LOOPS };
}

/** `MEMORY USAGE` of a key / `n`, or 0 when it does not exist. */
async function share(redis: Redis, key: string, n: number): Promise<number> {
  return Number((await redis.memory('USAGE', key, 'SAMPLES', 0)) ?? 0) / n;
}

/**
 * Where a queued domain's memory goes: its archive share (packed) or live keys, averaged over
 * a sample, and each pod's backlog, due index and the depth index per domain.
 */
async function queuedBreakdown(redis: Redis, keys: FrontierKeys): Promise<string> {
  const sample = Math.min(200, DOMAINS);
  let archived = 0;
  let live = 0;
  for (let k = 0; k < sample; k++) {
    const domain = `site${Math.floor((k * DOMAINS) / sample)}.com`;
    const fields = await redis.hlen(keys.archive(domain));
    if (fields > 0) archived += (await share(redis, keys.archive(domain), fields)) / sample;
    live +=
      ((await share(redis, keys.domain(domain), 1)) +
        (await share(redis, keys.hostState(domain, `www.${domain}`), 1))) /
      sample;
  }
  const parts: [string, number][] = [
    ['archive share', archived],
    ['live hashes', live],
    [
      'backlogs',
      (await share(redis, keys.backlog('pod-a'), DOMAINS)) +
        (await share(redis, keys.backlog('pod-b'), DOMAINS)),
    ],
    [
      'due indexes + meta',
      (await share(redis, keys.due('pod-a'), DOMAINS)) +
        (await share(redis, keys.due('pod-b'), DOMAINS)) +
        (await share(redis, keys.dueMeta('pod-a'), DOMAINS)) +
        (await share(redis, keys.dueMeta('pod-b'), DOMAINS)),
    ],
    ['P:domains', await share(redis, keys.domains(), DOMAINS)],
  ];
  return parts.map(([name, bytes]) => `${name} ${fmt(bytes)}`).join(', ');
}

/**
 * Where a finished domain's memory goes: `MEMORY USAGE` of each per-domain key, averaged over
 * a sample of domains, and of each global index divided by the domain count.
 */
async function keptBreakdown(redis: Redis, keys: FrontierKeys): Promise<string> {
  const sample = Math.min(200, DOMAINS);
  const perDomain: Record<string, number> = {};
  for (let k = 0; k < sample; k++) {
    const i = Math.floor((k * DOMAINS) / sample);
    const domain = `site${i}.com`;
    const named: [string, string][] = [
      ['domain hash d', keys.domain(domain)],
      ['hosts H', keys.hosts(domain)],
      ['seen bucket s:0', keys.seenBucket(domain, 0)],
      ['host state h:s', keys.hostState(domain, `www.${domain}`)],
    ];
    for (const [name, key] of named) {
      perDomain[name] =
        (perDomain[name] ?? 0) + Number((await redis.memory('USAGE', key)) ?? 0) / sample;
    }
    // An archived domain's share of its archive hash (shared with the slot's other domains).
    const archive = keys.archive(domain);
    const fields = await redis.hlen(archive);
    if (fields > 0) {
      perDomain['archive share'] =
        (perDomain['archive share'] ?? 0) +
        Number((await redis.memory('USAGE', archive, 'SAMPLES', 0)) ?? 0) / fields / sample;
    }
  }
  const global: [string, string][] = [
    ['P:domains', keys.domains()],
    ['P:domains:fetched', keys.domainsByFetched()],
    ['P:domains:errors', keys.domainsByErrors()],
    ['due index pod-b', keys.due('pod-b')],
    ['due meta pod-b', keys.dueMeta('pod-b')],
  ];
  for (const [name, key] of global) {
    perDomain[name] = Number((await redis.memory('USAGE', key)) ?? 0) / DOMAINS;
  }
  return Object.entries(perDomain)
    .map(([name, bytes]) => `${name} ${fmt(bytes)}`)
    .join(', ');
}

const server = await startRedis();
const redis = new Redis(server.port, server.host);

async function printPeaks(): Promise<void> {
  const peak = (await info(redis, 'memory', 'used_memory_peak')) / 1048576;
  console.log(
    `peak RSS            pod (this process) ${fmt(process.resourceUsage().maxRSS / 1024)} MB, redis-server ${fmt(peakRssMb(server.pid))} MB (used_memory_peak ${fmt(peak)} MB)`,
  );
}
try {
  const version = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1];
  console.log(
    `redis ${version}; ${fmt(DOMAINS)} domains × ${fmt(PER_DOMAIN)} URL, batches of ${fmt(BATCH)}`,
  );

  // Baseline: raw pipelined SET of the same URLs, one key per domain (then dropped).
  let t0 = performance.now();
  for (const batch of batches()) {
    const pipe = redis.pipeline();
    for (const url of batch) pipe.set(`raw:{${url.slice(12, url.indexOf('/', 12))}}`, url);
    await pipe.exec();
  }
  const rawRate = URLS / seconds(t0);
  await redis.flushall();

  // Baseline layout: the same enqueue with every new domain live (then dropped).
  let liveQueued: number | undefined;
  if (DOMAINS <= 1_000_000) {
    const live = new RedisFrontier({
      redis,
      ownerOf: owner,
      prefix: 'wl',
      defaultDelayMs: 0,
      packNewDomains: false,
    });
    const before = await info(redis, 'memory', 'used_memory');
    for (const batch of batches()) await live.enqueue(batch);
    liveQueued = (await info(redis, 'memory', 'used_memory')) - before;
    await redis.flushall();
  }

  const frontier = new RedisFrontier({
    redis,
    ownerOf: owner,
    prefix: 'w',
    defaultDelayMs: 0,
    leaseTimeoutMs: 0,
    // A completed host stays in the due index until its pin lapses and a claim parks it;
    // the bench waits that out (the default is 30 s).
    pinMs: PIN_MS,
  });
  const mem0 = await info(redis, 'memory', 'used_memory');
  const keys0 = await redis.dbsize();
  let urlBytes = 0;
  t0 = performance.now();
  for (const batch of batches()) {
    const report = await frontier.enqueue(batch);
    if (report.queued !== batch.length) throw new Error('bench URLs must all be new');
    for (const url of batch) urlBytes += Buffer.byteLength(url);
  }
  const enqueueRate = URLS / seconds(t0);
  const memQueued = (await info(redis, 'memory', 'used_memory')) - mem0;
  const keysQueued = (await redis.dbsize()) - keys0;
  const meanUrl = urlBytes / URLS;
  // Each phase prints as soon as it ends: a long run that fails late keeps what it measured.
  console.log(`mean URL ${fmt(meanUrl, 1)} B`);
  console.log(
    `enqueue             ${fmt(enqueueRate)} URLs/s   (raw pipelined SET ${fmt(rawRate)}/s: ${fmt(enqueueRate / rawRate, 2)}×)`,
  );
  console.log(
    `queued              ${fmt(memQueued / URLS)} B per URL = URL + ${fmt(memQueued / URLS - meanUrl)} B   ${fmt(memQueued / DOMAINS)} B and ${fmt(keysQueued / DOMAINS, 2)} keys per domain`,
  );
  if (liveQueued !== undefined) {
    console.log(
      `  baseline layout   ${fmt(liveQueued / URLS)} B per URL = URL + ${fmt(liveQueued / URLS - meanUrl)} B (packNewDomains: false, same run): ${fmt(memQueued / liveQueued, 2)}×`,
    );
  }
  console.log(`  where (B per domain): ${await queuedBreakdown(redis, new FrontierKeys('w'))}`);

  // pod-a claims what it owns: one URL per host (its one slot of concurrency stays taken, as
  // leases never expire: only the reclaim gives them back).
  const ownedByA =
    (await redis.zcard('w:pod:{p:pod-a}:due')) + (await redis.llen('w:pod:{p:pod-a}:dueb'));
  t0 = performance.now();
  const a = await claimAll(frontier, 'pod-a', ownedByA, false);
  const claimWall = seconds(t0);
  console.log(
    `claim (pod-a)       ${fmt(a.claimed)} leases in ${fmt(claimWall, 1)} s: ${fmt(a.claimed / claimWall)} URLs/s`,
  );

  // pod-a dies: the survivor's reclaim (membership's reclaimRemovedPod, the dead index
  // read page by page here instead of as one array).
  podADead = true;
  t0 = performance.now();
  const back = await frontier.reclaimPod('pod-a');
  const reclaimSeconds = seconds(t0);
  console.log(
    `reclaim (pod-a dead) ${fmt(back.requeued)} leases requeued in ${fmt(reclaimSeconds, 1)} s: ${fmt(back.requeued / reclaimSeconds)} leases/s`,
  );
  // What it had not claimed yet (its backlog of packed domains) into its index, read below.
  t0 = performance.now();
  const spilled = await frontier.spillBacklog('pod-a');
  console.log(
    `  spill backlog     ${fmt(spilled)} names in ${fmt(seconds(t0), 1)} s (left by pod-a's claims)`,
  );
  t0 = performance.now();
  let moved = 0;
  let cursor = '0';
  do {
    const [next, page] = (await redis.zscan('w:pod:{p:pod-a}:due', cursor, 'COUNT', 500)) as [
      string,
      string[],
    ];
    cursor = next;
    const domains = new Set<string>();
    for (let i = 0; i < page.length; i += 2) domains.add(page[i]!.slice(0, page[i]!.indexOf('/')));
    const list = [...domains];
    for (let k = 0; k < list.length; k += LOOPS) {
      await Promise.all(
        list.slice(k, k + LOOPS).map((d) => frontier.reindex(d, { evictFrom: 'pod-a' })),
      );
    }
    moved += list.length;
  } while (cursor !== '0');
  const reindexSeconds = seconds(t0);
  const leftInDead = await redis.zcard('w:pod:{p:pod-a}:due');
  console.log(
    `  reindex + evict   ${fmt(moved)} domains in ${fmt(reindexSeconds, 1)} s: ${fmt(moved / reindexSeconds)} domains/s; ${leftInDead} left in the dead index`,
  );

  if (UNTIL === 'reclaim') {
    await printPeaks();
  } else {
    // pod-b claims and completes everything.
    const cpu0 = await redisCpuMs(redis);
    t0 = performance.now();
    const b = await claimAll(frontier, 'pod-b', URLS, true);
    const ccSeconds = seconds(t0);
    const cpuPerPage = ((await redisCpuMs(redis)) - cpu0) / b.claimed;
    const stats = await frontier.stats();
    const memKept = (await info(redis, 'memory', 'used_memory')) - mem0;
    const keysKept = (await redis.dbsize()) - keys0;
    console.log(
      `claim+complete      ${fmt(b.claimed)} URLs in ${fmt(ccSeconds, 1)} s: ${fmt(b.claimed / ccSeconds)} URLs/s (one Redis core); fetched ${fmt(stats.fetched ?? 0)}`,
    );
    console.log(`Redis CPU           ${fmt(cpuPerPage, 3)} ms per page (claim + complete only)`);
    console.log(
      `kept right after    ${fmt(memKept / DOMAINS)} B per domain   ${fmt(keysKept / DOMAINS, 2)} keys per domain`,
    );

    // The pins lapse; claims then park every finished host out of the due index.
    await new Promise((r) => setTimeout(r, PIN_MS + 500));
    t0 = performance.now();
    while ((await redis.zcard('w:pod:{p:pod-b}:due')) > 0) {
      const { leases } = await frontier.claim({ pod: 'pod-b', max: BATCH });
      if (leases.length > 0) throw new Error('nothing should be left to claim');
    }
    const parkSeconds = seconds(t0);
    const memParked = (await info(redis, 'memory', 'used_memory')) - mem0;
    const keysParked = (await redis.dbsize()) - keys0;
    console.log(
      `  after the pins lapsed and claims parked them (${fmt(parkSeconds, 1)} s): ${fmt(memParked / DOMAINS)} B per domain   ${fmt(keysParked / DOMAINS, 2)} keys per domain`,
    );
    console.log(`  where (B per domain): ${await keptBreakdown(redis, new FrontierKeys('w'))}`);
    await printPeaks();
  }
} finally {
  redis.disconnect();
  await server.stop();
}
