/**
 * Claim ahead at one host, A/B in one run: a pod crawls one host of 150 pages (30 links each) at
 * d = 50 ms with `claimLeadMs` 0 (claim when due) and 25 (the default), alternating, and the
 * gaps between request starts are taken from a loopback server's own log. Pod, server and a
 * throwaway redis-server share the machine; pod and server share this process (a busy event
 * loop delays the server's stamps too: the crawl bench, `crawler/bench/crawl`, runs the pod in
 * its own process and is the figure of record).
 *
 *   npm run bench -- crawler/bench/claim-ahead            (3 rounds of each)
 *   BENCH_ROUNDS=5 BENCH_LEADS=0,25,45 npm run bench -- crawler/bench/claim-ahead
 *
 * Prints per run: mean / p50 / p90 gap, the fraction of the bound (d / mean gap), ms per request
 * over d, and for leases claimed ahead how far the send followed the turn (send − notBeforeMs,
 * server clock vs Redis time) and how far the turn followed the previous send + d (the
 * rounding that keeps a reserved slot at or after the real send).
 */
import { loadavg } from 'node:os';
import type { ClaimResult } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { startRedis } from '../../../test/helpers/redis.js';
import { CrawlerPod } from '../src/index.js';
import { startLoggingServer } from '../test/fixtures/logging-server.js';

const DELAY_MS = 50;
const PAGES = 150;
const LINKS = 30;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LEADS = (process.env.BENCH_LEADS ?? '0,25').split(',').map(Number);

const quantile = (xs: number[], p: number) =>
  xs.length === 0 ? Number.NaN : xs.slice().sort((a, b) => a - b)[Math.floor(xs.length * p)]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const f1 = (x: number) => x.toFixed(1);

async function run(redis: Redis, leadMs: number, serial: number): Promise<string> {
  const web = await startLoggingServer('127.0.0.9', {
    respond: (req, res) => {
      const k = Number((req.url ?? '/p0').slice(2)) || 0;
      const links = Array.from(
        { length: LINKS },
        (_, i) => `<a href="/p${(k * 7 + i * 13) % PAGES}">x</a>`,
      );
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html><body>${links.join('')}</body></html>`);
    },
  });
  const pod = new CrawlerPod({
    redis,
    podId: `ahead-${serial}`,
    prefix: `ahead${serial}`,
    minDelayMs: DELAY_MS,
    claimLeadMs: leadMs,
    maxDepth: 5,
    resolve: ['one.test:127.0.0.9'],
    exitWhenIdle: { graceMs: 300 },
    logger: pino({ level: 'silent' }),
  });
  // Each lease's turn (Redis ms), by path: read off the claims the work loop makes.
  const turns = new Map<string, number>();
  const claim = pod.frontier.claim.bind(pod.frontier);
  pod.frontier.claim = async (request): Promise<ClaimResult> => {
    const result = await claim(request);
    for (const l of result.leases) {
      if (l.notBeforeMs !== undefined) turns.set(new URL(l.url).pathname, l.notBeforeMs);
    }
    return result;
  };
  const load = loadavg()[0]!.toFixed(1);
  await pod.seed(Array.from({ length: PAGES }, (_, i) => `${web.origin('one.test')}/p${i}`));
  await pod.start();
  await pod.done;
  await pod.stop();
  await web.close();
  const log = web.log.slice().sort((a, b) => a.startMs - b.startMs);
  // From the first page on (robots.txt → first page is one gap of its own).
  const gaps = log.slice(2).map((e, i) => e.startMs - log[i + 1]!.startMs);
  const late: number[] = [];
  const overshoot: number[] = [];
  log.forEach((e, i) => {
    const turn = turns.get(e.path);
    if (turn === undefined || i === 0) return;
    late.push(e.startMs - turn);
    overshoot.push(turn - log[i - 1]!.startMs - DELAY_MS);
  });
  const m = mean(gaps);
  const ahead =
    late.length === 0
      ? ''
      : `  ahead ${late.length}: send−turn p50 ${f1(quantile(late, 0.5))} p90 ${f1(quantile(late, 0.9))}, turn−(prev+d) p50 ${f1(quantile(overshoot, 0.5))}`;
  return `lead ${String(leadMs).padStart(2)} ms  load ${load}  gap mean ${f1(m)} p50 ${f1(quantile(gaps, 0.5))} p90 ${f1(quantile(gaps, 0.9))}  fraction ${(DELAY_MS / m).toFixed(3)}  ms/request ${f1(m - DELAY_MS)}${ahead}`;
}

const server = await startRedis();
const redis = new Redis(server.url, { maxRetriesPerRequest: null });
try {
  console.log(
    `one host, ${PAGES} pages × ${LINKS} links, d = ${DELAY_MS} ms; pod, server in one process`,
  );
  let serial = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const lead of LEADS) console.log(await run(redis, lead, ++serial));
  }
} finally {
  await redis.quit();
  await server.stop();
}
