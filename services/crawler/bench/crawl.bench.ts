/**
 * End-to-end crawl throughput and memory of ONE pod process against the test web, with D hosts
 * and a per-host delay d = 1 s, and one host with many pages at d = 50 ms (the per-request
 * overhead: at 50 ms every ms between "host is due" and "request sent" costs 2% of the bound). Three processes: the test web's runner, a throwaway
 * redis-server, and the pod itself — the production entry, compiled `services/crawler/dist/main.js`
 * on plain node (as the Docker image runs it; the bench runs `npm run build` first), with the
 * production `NODE_OPTIONS` (`--max-old-space-size=256 --max-semi-space-size=4`, see the crawler README "Memory"),
 * configured by environment variables, with a preloaded probe (`memory-probe.js`) that reports
 * `process.memoryUsage()`,
 * `cpuUsage()` and V8 heap spaces on fd 3. This process only seeds, watches the frontier's
 * counters and prints.
 *
 * Prints per phase: pages, pages/s against the politeness bound D/d (the baseline), CPU ms per
 * page (pod process, and pod + Redis), Redis CPU per page split by script and command with calls
 * per page (test/helpers/redis-cpu.ts; the split is logged in a BENCH_SPLIT_MS window, default
 * 8 s, after the clean one), then the pod's RSS every 10 s with start / end / max and
 * a least-squares slope in MB per 10k pages (flat = ~0), and the heap split at the end. It also
 * prints the RSS of an idle pod process (all modules loaded, nothing crawled).
 *
 *   npm run bench -- crawler                       (D = 1 at 50 ms for 30 s, D = 200 for 40 s, then D = 1,000 to 100,000 pages)
 *   BENCH_PAGES=20000 npm run bench -- crawler     (a shorter second phase)
 *   BENCH_POD_NODE_OPTIONS= npm run bench -- crawler   (V8 defaults, for comparison)
 *   BENCH_RUNTIME=tsx npm run bench -- crawler     (the sources under tsx: `node --import tsx src/main.ts`)
 *   BENCH_D1=0, BENCH_D200=0, BENCH_D1000=0, BENCH_NODE_FLAGS='--flag …', BENCH_HEAP_SNAPSHOT=<dir>   (experiments, diagnosis)
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import {
  cpuTable,
  scriptNamesBySha,
  scriptTimes,
  startCpuWindow,
} from '../../../test/helpers/redis-cpu.js';
import { SOURCE_NODE_FLAGS } from '../../../test/helpers/source-runtime.js';

const DELAY_MS = 1000;
/** The one-host phase: its delay, pages and length. */
const ONE_HOST = { delayMs: 50, pages: 3000, ms: 30_000 };
/** The D = 1,000 phase runs unless BENCH_D1000=0. */
const RUN_D1000 = process.env.BENCH_D1000 !== '0';
const TARGET_PAGES = Number(process.env.BENCH_PAGES ?? 100_000);
const WARMUP_MS = 5000;
const SAMPLE_MS = 10_000;
const RUNTIMES = {
  dist: 'plain node, compiled dist/main.js',
  tsx: 'node --import tsx src/main.ts',
} as const;
const RUNTIME = (process.env.BENCH_RUNTIME ?? 'dist') as keyof typeof RUNTIMES;
if (!(RUNTIME in RUNTIMES)) {
  throw new Error(`BENCH_RUNTIME must be one of ${Object.keys(RUNTIMES).join(', ')}`);
}
const root = join(import.meta.dirname, '..', '..', '..');
const probe = join(import.meta.dirname, 'memory-probe.js');
const MB = 1048576;
/**
 * The pod's production heap setting (see the crawler README, "Memory"): with V8's defaults on a
 * machine with GBs of RAM the old generation may grow to ~4× the live heap before a full GC;
 * a heap limit sized for a pod container makes V8 grow it by less. `BENCH_POD_NODE_OPTIONS=`
 * (empty) runs V8's defaults instead.
 */
const POD_NODE_OPTIONS =
  process.env.BENCH_POD_NODE_OPTIONS ?? '--max-old-space-size=256 --max-semi-space-size=4';

interface Probe {
  atMs: number;
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  cpuUs: number;
  spaces: Record<string, number>;
}

async function startWeb(
  hosts: number,
  pages: number,
): Promise<{ child: ChildProcess; seeds: string[] }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'test/web/main.ts',
      '--hosts',
      String(hosts),
      '--pages',
      String(pages),
      '--behaviours',
      'none',
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`test web exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      resolve({ child, seeds: (JSON.parse(line) as { seeds: string[] }).seeds });
    });
  });
}

/**
 * The pod's entry and node flags for the chosen runtime: `main` (the pod) or `idle` (a pod built
 * and never started, `idle-pod.js`, which imports `@shardline/crawler` as the runtime resolves it).
 */
function podCommand(entry: 'main' | 'idle'): string[] {
  const crawler = join(root, 'services', 'crawler');
  // Diagnosis only (perturbs the figures): BENCH_HEAP_SNAPSHOT=<dir> writes a heap snapshot of
  // the pod there halfway through each phase.
  const snap = process.env.BENCH_HEAP_SNAPSHOT;
  const diag = snap ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snap}`] : [];
  // Experiments: extra node/V8 flags for the pod process (printed with the figures).
  if (process.env.BENCH_NODE_FLAGS) diag.push(...process.env.BENCH_NODE_FLAGS.split(' '));
  const runtime = RUNTIME === 'tsx' ? SOURCE_NODE_FLAGS : [];
  const main =
    RUNTIME === 'tsx' ? join(crawler, 'src', 'main.ts') : join(crawler, 'dist', 'main.js');
  const script = entry === 'main' ? main : join(crawler, 'bench', 'idle-pod.js');
  return [...diag, ...runtime, '--import', probe, script];
}

/** The compiled runtime runs what `npm run build` emitted: bring dist/ up to date first. */
function buildDist(): void {
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`npm run build failed (status ${build.status})`);
}

function spawnPod(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; samples: Probe[]; exited: Promise<number | null> } {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, NODE_OPTIONS: POD_NODE_OPTIONS, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'pipe'],
  });
  const samples: Probe[] = [];
  createInterface({ input: child.stdio[3] as NodeJS.ReadableStream }).on('line', (line) => {
    samples.push(JSON.parse(line) as Probe);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, samples, exited };
}

/** The window after the clean one in which every Redis command is logged, split by script. */
const SPLIT_MS = Number(process.env.BENCH_SPLIT_MS ?? 8000);

/** RSS (MB) of a pod process that loaded everything but crawls nothing. */
async function idleRss(server: RedisServer): Promise<number> {
  const pod = spawnPod(podCommand('idle'), {
    REDIS_URL: server.url,
    BENCH_PROBE_MS: '500',
  });
  await new Promise((r) => setTimeout(r, 4000));
  pod.child.kill('SIGTERM');
  await pod.exited;
  return Math.round((pod.samples.at(-1)?.rss ?? 0) / MB);
}

interface PhaseResult {
  hosts: number;
  delayMs: number;
  pages: number;
  seconds: number;
  rate: number;
  fraction: number;
  podCpuMsPerPage: number;
  cpuMsPerPage: number;
  /** Redis CPU per page, by script/command (see test/helpers/redis-cpu.ts). */
  redisTable: string[];
  /** [pages crawled since the window began, RSS MB], one per 10 s. */
  rss: [number, number][];
  last: Probe;
}

async function phase(
  server: RedisServer,
  hosts: number,
  pagesPerHost: number,
  stop: { pages?: number; ms?: number },
  delayMs = DELAY_MS,
): Promise<PhaseResult> {
  const web = await startWeb(hosts, pagesPerHost);
  const podId = `bench-${hosts}`;
  const prefix = `bench${hosts}`;
  const redis = new Redis(server.url, { maxRetriesPerRequest: null });
  const frontier = new RedisFrontier({ redis, prefix, ownerOf: () => podId });
  await frontier.enqueue(web.seeds);
  const pod = spawnPod(podCommand('main'), {
    REDIS_URL: server.url,
    POD_ID: podId,
    KEY_PREFIX: prefix,
    CONCURRENCY: '256',
    MIN_DELAY_MS: String(delayMs),
    RESOLVE: '*.test:127.0.0.1',
    RESULTS_MAX_LEN: '10000',
    LOG_LEVEL: 'warn',
  });
  const fetched = async () => (await frontier.stats()).fetched ?? 0;
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  // Measurement window: after robots.txt and the first page of every host.
  const startProbe = pod.samples.at(-1)!;
  const endRedisWindow = await startCpuWindow(redis);
  const start = { at: Date.now(), pages: await fetched() };
  const rss: [number, number][] = [[0, Math.round(startProbe.rss / MB)]];
  let nextSample = start.at + SAMPLE_MS;
  let pages = start.pages;
  let snapshotTaken = !process.env.BENCH_HEAP_SNAPSHOT;
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    const now = Date.now();
    pages = await fetched();
    const half =
      stop.pages !== undefined
        ? pages - start.pages >= stop.pages / 2
        : now - start.at >= stop.ms! / 2;
    if (!snapshotTaken && half) {
      snapshotTaken = true;
      pod.child.kill('SIGUSR2');
    }
    if (now >= nextSample) {
      rss.push([pages - start.pages, Math.round(pod.samples.at(-1)!.rss / MB)]);
      nextSample += SAMPLE_MS;
    }
    if (stop.pages !== undefined && pages - start.pages >= stop.pages) break;
    if (stop.ms !== undefined && now - start.at >= stop.ms) break;
  }
  const endProbe = pod.samples.at(-1)!;
  const end = { at: Date.now(), pages, redis: await endRedisWindow() };
  rss.push([pages - start.pages, Math.round(endProbe.rss / MB)]);
  // The split window: the pod goes on crawling while every command is logged.
  const splitStart = await fetched();
  const split = await scriptTimes(redis, SPLIT_MS, scriptNames);
  const splitPages = (await fetched()) - splitStart;
  pod.child.kill('SIGTERM');
  await pod.exited;
  await redis.quit();
  web.child.kill('SIGTERM');
  const n = end.pages - start.pages;
  const seconds = (end.at - start.at) / 1000;
  const podCpuMs = (endProbe.cpuUs - startProbe.cpuUs) / 1000;
  return {
    hosts,
    delayMs,
    pages: n,
    seconds,
    rate: n / seconds,
    fraction: n / seconds / (hosts / (delayMs / 1000)),
    podCpuMsPerPage: podCpuMs / n,
    cpuMsPerPage: (podCpuMs + end.redis.cpuUs / 1000) / n,
    redisTable: cpuTable(end.redis, n, split, splitPages),
    rss,
    last: endProbe,
  };
}

/** Least-squares slope of RSS against pages, in MB per 10,000 pages (from the 2nd sample on). */
function slopePer10k(points: [number, number][]): number {
  const p = points.slice(1);
  const mx = p.reduce((s, [x]) => s + x, 0) / p.length;
  const my = p.reduce((s, [, y]) => s + y, 0) / p.length;
  let num = 0;
  let den = 0;
  for (const [x, y] of p) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 10_000;
}

if (RUNTIME === 'dist') buildDist();
const scriptNames = scriptNamesBySha();
const server = await startRedis();
try {
  const idle = await idleRss(server);
  const results: PhaseResult[] = [];
  if (process.env.BENCH_D1 !== '0') {
    results.push(await phase(server, 1, ONE_HOST.pages, { ms: ONE_HOST.ms }, ONE_HOST.delayMs));
  }
  if (process.env.BENCH_D200 !== '0') results.push(await phase(server, 200, 60, { ms: 40_000 }));
  if (RUN_D1000) {
    results.push(
      await phase(server, 1000, Math.ceil((TARGET_PAGES * 1.3) / 1000) + 10, {
        pages: TARGET_PAGES,
      }),
    );
  }
  console.log(
    `one pod process (${RUNTIMES[RUNTIME]}), per-host delay d as listed; test web and redis-server in their own processes`,
  );
  console.log(`pod NODE_OPTIONS: ${POD_NODE_OPTIONS || '(none: V8 defaults)'}`);
  if (process.env.BENCH_NODE_FLAGS) console.log(`pod node flags: ${process.env.BENCH_NODE_FLAGS}`);
  console.log(`idle pod process (modules loaded, nothing crawled): RSS ${idle} MB`);
  console.log(
    'hosts  d ms  pages    s      pages/s  bound  fraction  ms/request  cpu ms/page (pod+redis)  pod ms/page',
  );
  for (const r of results) {
    console.log(
      `${String(r.hosts).padEnd(6)} ${String(r.delayMs).padEnd(5)} ${String(r.pages).padEnd(8)} ${r.seconds.toFixed(0).padEnd(6)} ${r.rate.toFixed(1).padEnd(8)} ${String(r.hosts / (r.delayMs / 1000)).padEnd(6)} ${r.fraction.toFixed(3).padEnd(9)} ${(r.delayMs / r.fraction - r.delayMs).toFixed(1).padEnd(11)} ${r.cpuMsPerPage.toFixed(2).padEnd(24)} ${r.podCpuMsPerPage.toFixed(2)}`,
    );
  }
  for (const r of results) {
    console.log(`D=${r.hosts}, d=${r.delayMs} ms, ${r.pages} pages: ${r.redisTable.join('\n')}`);
  }
  for (const r of results) {
    const mb = r.rss.map(([, y]) => y);
    const l = r.last;
    console.log(`D=${r.hosts} RSS MB every 10 s: ${mb.join(' ')}`);
    console.log(
      `D=${r.hosts} RSS start ${mb[0]} end ${mb.at(-1)} max ${Math.max(...mb)} MB; slope ${slopePer10k(r.rss).toFixed(2)} MB per 10k pages over ${r.pages} pages; at end heapUsed ${Math.round(l.heapUsed / MB)} heapTotal ${Math.round(l.heapTotal / MB)} external ${Math.round(l.external / MB)} arrayBuffers ${Math.round(l.arrayBuffers / MB)} MB, spaces ${Object.entries(
        l.spaces,
      )
        .filter(([, b]) => b >= MB)
        .map(([n, b]) => `${n.replace('_space', '')} ${Math.round(b / MB)}`)
        .join(', ')} MB`,
    );
  }
} finally {
  await server.stop();
}
