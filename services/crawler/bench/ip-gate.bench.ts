/**
 * What per-IP politeness costs, in one run (after an unreported warm-up phase): one in-process pod against H hosts served by real
 * HTTP servers on loopback addresses, per-host delay d, three phases on fresh key prefixes:
 *
 *   off        per-IP gate off, every host on its own address (baseline: bound H/d)
 *   on-own     per-IP delay = d, every host on its own address: the gate never binds, so the
 *              ratio to `off` is its overhead (two or three Redis scripts per request)
 *   on-shared  per-IP delay g, the H hosts on A addresses: the gate binds at A/g pages/s
 *
 *   npm run bench -- ip-gate          (H = 100, d = 200 ms, A = 10, g = 100 ms, 12 s per phase)
 *   BENCH_PHASE_MS=20000 npm run bench -- ip-gate
 */
import { CrawlerPod, type CrawlerPodOptions } from '@shardline/crawler';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { startRedis } from '../../../test/helpers/redis.js';
import { type LoggingServer, startLoggingServer } from '../test/fixtures/logging-server.js';

const HOSTS = 100;
const DELAY_MS = 200;
const SHARED_ADDRESSES = 10;
const SHARED_DELAY_MS = 100;
const PAGES_PER_HOST = 200;
const WARMUP_MS = 3000;
const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 12_000);

const redisServer = await startRedis();
const redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
const own: LoggingServer[] = [];
for (let i = 1; i <= HOSTS; i++) own.push(await startLoggingServer(`127.0.1.${i}`));
const shared = own.slice(0, SHARED_ADDRESSES);

interface Phase {
  name: string;
  bound: number;
  perIpDelayMs: number;
  /** Host i → its server. */
  serverOf: (i: number) => LoggingServer;
}

const phases: Phase[] = [
  // Not reported: the first phase of a process pays for JIT, sockets and robots.txt caches.
  { name: 'warm-up', bound: HOSTS / (DELAY_MS / 1000), perIpDelayMs: 0, serverOf: (i) => own[i]! },
  { name: 'off', bound: HOSTS / (DELAY_MS / 1000), perIpDelayMs: 0, serverOf: (i) => own[i]! },
  {
    name: 'on-own',
    bound: HOSTS / (DELAY_MS / 1000),
    perIpDelayMs: DELAY_MS,
    serverOf: (i) => own[i]!,
  },
  {
    name: 'on-shared',
    bound: SHARED_ADDRESSES / (SHARED_DELAY_MS / 1000),
    perIpDelayMs: SHARED_DELAY_MS,
    serverOf: (i) => shared[i % SHARED_ADDRESSES]!,
  },
];

const rows: string[] = [];
let base = 0;
for (const [index, phase] of phases.entries()) {
  const hosts = Array.from({ length: HOSTS }, (_, i) => `h${i}.bench`);
  const options: CrawlerPodOptions = {
    redis,
    podId: 'bench',
    prefix: `ipb${index}`,
    concurrency: 256,
    minDelayMs: DELAY_MS,
    maxDepth: 0,
    perIpDelayMs: phase.perIpDelayMs,
    resolve: hosts.map((h, i) => `${h}:${phase.serverOf(i).address}`),
    logger: pino({ level: 'silent' }),
  };
  const pod = new CrawlerPod(options);
  const urls = hosts.flatMap((h, i) =>
    Array.from({ length: PAGES_PER_HOST }, (_, p) => `${phase.serverOf(i).origin(h)}/p${p}`),
  );
  await pod.seed(urls);
  await pod.start();
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  const from = pod.stats().fetched;
  const cpuFrom = process.cpuUsage();
  await new Promise((r) => setTimeout(r, PHASE_MS));
  const pages = pod.stats().fetched - from;
  const cpu = process.cpuUsage(cpuFrom);
  const ipGate = pod.stats().ipGate;
  await pod.stop();
  const rate = pages / (PHASE_MS / 1000);
  if (phase.name === 'warm-up') continue;
  if (phase.name === 'off') base = rate;
  rows.push(
    `| ${phase.name} | ${pages} | ${rate.toFixed(1)} | ${phase.bound} | ${(rate / phase.bound).toFixed(3)} | ${(rate / base).toFixed(3)} | ${((cpu.user + cpu.system) / 1000 / Math.max(1, pages)).toFixed(2)} | ${ipGate.waits} |`,
  );
}

console.log(
  `H = ${HOSTS} hosts, d = ${DELAY_MS} ms, shared: ${SHARED_ADDRESSES} addresses at ${SHARED_DELAY_MS} ms, ${PHASE_MS / 1000} s per phase after ${WARMUP_MS / 1000} s warm-up`,
);
console.log(
  '| phase | pages | pages/s | bound | fraction of bound | ratio to off | CPU ms/page (bench process) | per-IP waits |',
);
console.log(
  '| ----- | ----- | ------- | ----- | ----------------- | ------------ | --------------------------- | ------------ |',
);
for (const row of rows) console.log(row);

await redis.quit();
await Promise.all(own.map((s) => s.close()));
await redisServer.stop();
