/**
 * What keeping the pages costs. Part 1: one pod process (the sources under tsx, with the
 * `memory-probe.js` preload for its CPU) crawls D = 1,000 hosts of the test web at a per-host
 * delay of 1 s in three modes — WARC off, WARC on, WARC on + the example page handler
 * (`examples/extract-headings.mjs`) — interleaved over `BENCH_WARC_REPS` rounds (default 2) so
 * load on a shared machine hits every mode alike, and prints per run and as the median of the
 * rounds the fraction of the politeness bound D/d, pod CPU ms per page (the whole process, the
 * WARC writer's worker thread included) and of its main JavaScript thread alone, and disk MB/s
 * written, with the differences and ratios to WARC off, and the load average during each run. The writer alone, less noisy:
 * `npm run bench -- warc/bench/writer` (packages/warc). Part 2: `wget --warc-file` and shardline archive the same small site (plain
 * hosts, no delay); records per page and bytes per page of each, records counted by warcio.
 *
 *   npm run bench -- warc                   (the writer micro-bench; 2 rounds × 3 modes × 30 s
 *                                            windows at D = 1,000; then the wget comparison)
 *   BENCH_WARC_PARTS=cost BENCH_WARC_REPS=3 BENCH_WARC_MS=60000 npm run bench -- crawler/bench/warc
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CrawlerPod } from '@shardline/crawler';
import { RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { startProxy } from '../../../bench/compare/contenders.js';
import { warcioRecords } from '../../../packages/warc/test/warc-files.js';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { SOURCE_NODE_FLAGS } from '../../../test/helpers/source-runtime.js';

const DELAY_MS = 1000;
const HOSTS = 1000;
const WINDOW_MS = Number(process.env.BENCH_WARC_MS ?? 30_000);
const WARMUP_MS = 6000;
const root = join(import.meta.dirname, '..', '..', '..');
const probe = join(import.meta.dirname, 'memory-probe.js');
const handler = join(root, 'examples', 'extract-headings.mjs');
const MB = 1048576;

async function startWeb(
  args: string[],
): Promise<{ child: ChildProcess; port: number; seeds: string[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/web/main.ts', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`test web exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      const info = JSON.parse(line) as { seeds: string[]; port: number };
      resolve({ child, port: info.port, seeds: info.seeds });
    });
  });
}

function dirBytes(dir: string): number {
  try {
    return readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
  } catch {
    return 0;
  }
}

interface Mode {
  name: string;
  env: Record<string, string>;
}

interface PhaseResult {
  mode: string;
  pages: number;
  fraction: number;
  podMsPerPage: number;
  /** The main JavaScript thread's share of podMsPerPage. */
  mainMsPerPage: number;
  diskMBps: number;
  /** 1-minute load average at the end of the window. */
  load: number;
}

async function phase(server: RedisServer, mode: Mode, run: number): Promise<PhaseResult> {
  const web = await startWeb(['--hosts', String(HOSTS), '--pages', '60', '--behaviours', 'none']);
  const warcDir = mkdtempSync(join(tmpdir(), 'sl-warc-bench-'));
  const podId = `warc-bench-${run}`;
  const prefix = `wb${run}`;
  const redis = new Redis(server.url, { maxRetriesPerRequest: null });
  const frontier = new RedisFrontier({ redis, prefix, ownerOf: () => podId });
  await frontier.enqueue(web.seeds);
  const samples: { cpuUs: number; mainCpuUs: number }[] = [];
  const pod = spawn(
    process.execPath,
    [...SOURCE_NODE_FLAGS, '--import', probe, join(root, 'services', 'crawler', 'src', 'main.ts')],
    {
      cwd: root,
      env: {
        ...process.env,
        NODE_OPTIONS: '--max-old-space-size=256',
        REDIS_URL: server.url,
        POD_ID: podId,
        KEY_PREFIX: prefix,
        CONCURRENCY: '256',
        MIN_DELAY_MS: String(DELAY_MS),
        RESOLVE: '*.test:127.0.0.1',
        RESULTS_MAX_LEN: '10000',
        ITEMS_MAX_LEN: '10000',
        LOG_LEVEL: 'warn',
        BENCH_PROBE_MS: '250',
        WARC_DIR: warcDir,
        ...mode.env,
      },
      stdio: ['ignore', 'inherit', 'inherit', 'pipe'],
    },
  );
  createInterface({ input: pod.stdio[3] as NodeJS.ReadableStream }).on('line', (line) => {
    samples.push(JSON.parse(line) as { cpuUs: number; mainCpuUs: number });
  });
  const exited = new Promise((resolve) => pod.once('exit', resolve));
  const fetched = async () => (await frontier.stats()).fetched ?? 0;
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  const start = {
    at: Date.now(),
    pages: await fetched(),
    cpu: samples.at(-1)!.cpuUs,
    mainCpu: samples.at(-1)!.mainCpuUs,
    disk: dirBytes(warcDir),
  };
  await new Promise((r) => setTimeout(r, WINDOW_MS));
  const end = {
    at: Date.now(),
    pages: await fetched(),
    cpu: samples.at(-1)!.cpuUs,
    mainCpu: samples.at(-1)!.mainCpuUs,
    disk: dirBytes(warcDir),
  };
  const load = loadavg()[0]!;
  pod.kill('SIGTERM');
  await exited;
  await redis.quit();
  web.child.kill('SIGTERM');
  rmSync(warcDir, { recursive: true, force: true });
  const pages = end.pages - start.pages;
  const seconds = (end.at - start.at) / 1000;
  return {
    mode: mode.name,
    pages,
    fraction: pages / seconds / (HOSTS / (DELAY_MS / 1000)),
    podMsPerPage: (end.cpu - start.cpu) / 1000 / pages,
    mainMsPerPage: (end.mainCpu - start.mainCpu) / 1000 / pages,
    diskMBps: (end.disk - start.disk) / MB / seconds,
    load,
  };
}

/** wget --warc-file against shardline on the same small site: records and bytes per page. */
async function againstWget(server: RedisServer): Promise<void> {
  const web = await startWeb(['--hosts', '3', '--pages', '40,40', '--behaviours', 'none']);
  const dir = mkdtempSync(join(tmpdir(), 'sl-warc-wget-'));
  try {
    const proxy = await startProxy(web.port);
    console.error('wget --warc-file …');
    // Not spawnSync: the forwarding proxy runs on this process's event loop.
    const wget = spawn(
      '/usr/bin/wget',
      [
        '--recursive',
        '--level=inf',
        '--no-verbose',
        '--delete-after',
        '-e',
        'robots=on',
        '-e',
        'use_proxy=on',
        '-e',
        `http_proxy=http://127.0.0.1:${proxy.port}`,
        `--warc-file=${join(dir, 'wget')}`,
        '--directory-prefix',
        join(dir, 'files'),
        ...web.seeds,
      ],
      { stdio: 'ignore' },
    );
    const status = await new Promise((resolve, reject) => {
      wget.once('error', reject);
      wget.once('exit', resolve);
    });
    proxy.server.close();
    console.error(`wget exited with ${status}`);
    const wgetFile = join(dir, 'wget.warc.gz');
    const wgetRecords = await warcioRecords(wgetFile);
    console.error('shardline …');
    const redis = new Redis(server.url, { maxRetriesPerRequest: null });
    const pod = new CrawlerPod({
      redis,
      podId: 'warc-compare',
      prefix: 'wcmp',
      minDelayMs: 0,
      resolve: ['*.test:127.0.0.1'],
      allowPrivateAddresses: true,
      warcDir: join(dir, 'shardline'),
      exitWhenIdle: { graceMs: 500 },
      logger: pino({ level: 'silent' }),
    });
    await pod.seed(web.seeds);
    await pod.start();
    await pod.done;
    await redis.quit();
    const ours = readdirSync(join(dir, 'shardline')).map((name) => join(dir, 'shardline', name));
    const ourRecords = (await Promise.all(ours.map((file) => warcioRecords(file)))).flat();
    const ourBytes = ours.reduce((sum, file) => sum + statSync(file).size, 0);
    const row = (
      name: string,
      records: { type: string; url: string | undefined }[],
      bytes: number,
    ) => {
      const pages = records.filter((r) => r.type === 'response' && !r.url?.endsWith('/robots.txt'));
      const types = new Map<string, number>();
      for (const r of records) types.set(r.type, (types.get(r.type) ?? 0) + 1);
      console.log(
        `${name.padEnd(10)} ${String(pages.length).padEnd(6)} ${String(records.length).padEnd(8)} ${(records.length / pages.length).toFixed(2).padEnd(13)} ${(bytes / pages.length).toFixed(0).padEnd(15)} ${[...types].map(([t, n]) => `${t} ${n}`).join(', ')}`,
      );
    };
    console.log(
      `\nsame site (3 hosts × 40 pages, plain), wget ${wgetVersion()} --warc-file vs shardline`,
    );
    console.log('crawler    pages  records  records/page  bytes/page (gz)  record types');
    row('wget', wgetRecords, statSync(wgetFile).size);
    row('shardline', ourRecords, ourBytes);
  } finally {
    web.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

function wgetVersion(): string {
  const out = spawnSync('/usr/bin/wget', ['--version'], { encoding: 'utf8' }).stdout ?? '';
  return /Wget (\S+)/.exec(out)?.[1] ?? '?';
}

const server = await startRedis();
try {
  // BENCH_WARC_PARTS=wget runs the comparison alone; =cost the D = 1,000 runs alone.
  const parts = (process.env.BENCH_WARC_PARTS ?? 'cost,wget').split(',');
  if (parts.includes('cost')) await cost(server);
  if (parts.includes('wget')) await againstWget(server);
} finally {
  await server.stop();
}

async function cost(server: RedisServer): Promise<void> {
  const modes: Mode[] = [
    { name: 'warc off', env: { NO_WARC: '1' } },
    { name: 'warc on', env: {} },
    { name: 'warc+handler', env: { HANDLER: handler } },
  ];
  const reps = Number(process.env.BENCH_WARC_REPS ?? 2);
  const runs: PhaseResult[][] = modes.map(() => []);
  for (let rep = 0; rep < reps; rep++) {
    for (const [i, mode] of modes.entries()) {
      runs[i]!.push(await phase(server, mode, rep * modes.length + i));
    }
  }
  console.log(
    `one pod process (sources under tsx), D = ${HOSTS} hosts, d = ${DELAY_MS} ms, ${WINDOW_MS / 1000} s window each, ${reps} interleaved rounds`,
  );
  console.log(
    'mode          round   pages   fraction  Δ fraction  pod ms/page  Δ ms/page  CPU ratio  main ms/page  Δ main  disk MB/s  load',
  );
  // Of an even count, the mean of the middle two (with 2 rounds: their mean, not the larger).
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  const row = (r: PhaseResult, base: PhaseResult, round: string) =>
    console.log(
      `${r.mode.padEnd(13)} ${round.padEnd(7)} ${String(Math.round(r.pages)).padEnd(7)} ${r.fraction.toFixed(3).padEnd(9)} ${(r.fraction - base.fraction).toFixed(3).padEnd(11)} ${r.podMsPerPage.toFixed(3).padEnd(12)} ${(r.podMsPerPage - base.podMsPerPage).toFixed(3).padEnd(10)} ${(r.podMsPerPage / base.podMsPerPage).toFixed(2).padEnd(10)} ${r.mainMsPerPage.toFixed(3).padEnd(13)} ${(r.mainMsPerPage - base.mainMsPerPage).toFixed(3).padEnd(7)} ${r.diskMBps.toFixed(2).padEnd(10)} ${r.load.toFixed(1)}`,
    );
  for (let rep = 0; rep < reps; rep++) {
    for (const list of runs) row(list[rep]!, runs[0]![rep]!, String(rep + 1));
  }
  const medians = runs.map((list) => ({
    mode: list[0]!.mode,
    pages: median(list.map((r) => r.pages)),
    fraction: median(list.map((r) => r.fraction)),
    podMsPerPage: median(list.map((r) => r.podMsPerPage)),
    mainMsPerPage: median(list.map((r) => r.mainMsPerPage)),
    diskMBps: median(list.map((r) => r.diskMBps)),
    load: median(list.map((r) => r.load)),
  }));
  for (const m of medians) row(m, medians[0]!, 'median');
}
