/**
 * End-to-end crawl throughput of one pod against the test web (its runner, a child process)
 * with D hosts and a per-host delay d = 1 s. The politeness bound is D/d pages/s; the bench
 * prints the achieved fraction of it (the baseline), CPU ms per page of the pod and Redis
 * together, and the pod's RSS every 10 s.
 *
 *   npm run bench -- crawler            (D = 200 for 40 s, then D = 1,000 up to 100,000 pages)
 *   BENCH_PAGES=20000 npm run bench -- crawler    (a shorter second phase)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { CrawlerPod } from '../src/index.js';

const DELAY_MS = 1000;
const TARGET_PAGES = Number(process.env.BENCH_PAGES ?? 100_000);
const WARMUP_MS = 5000;

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
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`test web exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      resolve({ child, seeds: (JSON.parse(line) as { seeds: string[] }).seeds });
    });
  });
}

async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const get = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (get('used_cpu_sys') + get('used_cpu_user')) * 1000;
}

interface PhaseResult {
  hosts: number;
  pages: number;
  seconds: number;
  rate: number;
  fraction: number;
  cpuMsPerPage: number;
  podCpuMsPerPage: number;
  rssMb: number[];
}

async function phase(
  server: RedisServer,
  hosts: number,
  pagesPerHost: number,
  stop: { pages?: number; ms?: number },
): Promise<PhaseResult> {
  const web = await startWeb(hosts, pagesPerHost);
  const redis = new Redis(server.url, { maxRetriesPerRequest: null });
  const pod = new CrawlerPod({
    redis,
    podId: `bench-${hosts}`,
    prefix: `bench${hosts}`,
    concurrency: 256,
    minDelayMs: DELAY_MS,
    resolve: ['*.test:127.0.0.1'],
    resultsMaxLen: 10_000,
    logger: pino({ level: 'warn' }),
  });
  await pod.seed(web.seeds);
  await pod.start();
  const began = Date.now();
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  // Measurement window: after robots.txt and the first page of every host.
  const start = {
    at: Date.now(),
    pages: pod.stats().fetched,
    cpu: process.cpuUsage(),
    redis: await redisCpuMs(redis),
  };
  const rss: number[] = [];
  let nextSample = start.at;
  for (;;) {
    const now = Date.now();
    if (now >= nextSample) {
      rss.push(Math.round(process.memoryUsage().rss / 1048576));
      nextSample += 10_000;
    }
    const fetched = pod.stats().fetched;
    if (stop.pages !== undefined && fetched >= stop.pages) break;
    if (stop.ms !== undefined && now - start.at >= stop.ms) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const end = {
    at: Date.now(),
    pages: pod.stats().fetched,
    cpu: process.cpuUsage(start.cpu),
    redis: await redisCpuMs(redis),
  };
  rss.push(Math.round(process.memoryUsage().rss / 1048576));
  await pod.stop();
  await redis.quit();
  web.child.kill('SIGTERM');
  const pages = end.pages - start.pages;
  const seconds = (end.at - start.at) / 1000;
  const podCpuMs = (end.cpu.user + end.cpu.system) / 1000;
  const rate = pages / seconds;
  void began;
  return {
    hosts,
    pages,
    seconds,
    rate,
    fraction: rate / (hosts / (DELAY_MS / 1000)),
    cpuMsPerPage: (podCpuMs + end.redis - start.redis) / pages,
    podCpuMsPerPage: podCpuMs / pages,
    rssMb: rss,
  };
}

const server = await startRedis();
try {
  const results: PhaseResult[] = [];
  results.push(await phase(server, 200, 60, { ms: 40_000 }));
  results.push(
    await phase(server, 1000, Math.ceil((TARGET_PAGES * 1.3) / 1000) + 10, { pages: TARGET_PAGES }),
  );
  console.log(`one pod, per-host delay d = ${DELAY_MS} ms, test web in its own process`);
  console.log(
    'hosts  pages    s      pages/s  bound  fraction  cpu ms/page (pod+redis)  pod ms/page',
  );
  for (const r of results) {
    console.log(
      `${String(r.hosts).padEnd(6)} ${String(r.pages).padEnd(8)} ${r.seconds.toFixed(0).padEnd(6)} ${r.rate.toFixed(1).padEnd(8)} ${String(r.hosts).padEnd(6)} ${r.fraction.toFixed(3).padEnd(9)} ${r.cpuMsPerPage.toFixed(2).padEnd(24)} ${r.podCpuMsPerPage.toFixed(2)}`,
    );
  }
  for (const r of results) console.log(`RSS MB every 10 s (D=${r.hosts}): ${r.rssMb.join(' ')}`);
} finally {
  await server.stop();
}
