/**
 * A page handler never holds its host's politeness slot: the frontier frees the slot when the
 * fetch is done (`freeSlot`), while the lease stays out until the handler ends. Judged by the
 * test web's request log: a handler that sleeps on every page does not space the host's
 * requests by its sleep. A throwing handler still dead-letters after the retries, leaving the
 * host's in-flight count at zero; a pod killed (-9) while its handler runs leaves the lease in
 * Redis, reaped and fetched again by the next incarnation — nothing lost.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CrawlerPod, type PageHandler } from '@shardline/crawler';
import { RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FrontierKeys } from '../../packages/frontier/src/keys.js';
import { readResults, sentTimeLog } from '../helpers/hostile-crawl.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';
import { SOURCE_NODE_FLAGS } from '../helpers/source-runtime.js';
import { politenessViolations } from '../web/analysis.js';
import { startTestWeb, type TestWeb } from '../web/index.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DELAY_MS = 250;
const HANDLER_SLEEP_MS = 3000;

let web: TestWeb;
let server: RedisServer;
let redis: Redis;
let dir: string;

beforeAll(async () => {
  [web, server] = await Promise.all([
    startTestWeb({ hosts: 2, seed: 11, pagesPerHost: [8, 8], behaviours: 'none' }),
    startRedis(),
  ]);
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
  dir = mkdtempSync(join(tmpdir(), 'handler-slot-'));
});

afterAll(async () => {
  await redis?.quit();
  await Promise.all([web?.close(), server?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

function pod(
  prefix: string,
  podId: string,
  handler: PageHandler,
  extra: Record<string, unknown> = {},
) {
  return new CrawlerPod({
    redis,
    podId,
    prefix,
    concurrency: 16,
    minDelayMs: DELAY_MS,
    adaptiveDelayFactor: 0,
    resolve: web.resolveOverrides,
    maxRetries: 1,
    backoffBaseMs: 50,
    backoffMaxMs: 100,
    noWarc: true,
    pageHandler: handler,
    exitWhenIdle: { graceMs: 500 },
    logger: pino({ level: 'silent' }),
    ...extra,
  });
}

/** Page requests (robots.txt left out) the server saw for `host`, by arrival. */
function pageRequests(host: string, sinceMs = 0) {
  return web.log
    .filter((e) => e.host === host && e.path !== '/robots.txt' && e.startMs >= sinceMs)
    .sort((a, b) => a.startMs - b.startMs);
}

/** The host's in-flight count and freed-slot marks as Redis holds them. */
async function hostSlots(prefix: string, domain: string, host: string) {
  const keys = new FrontierKeys(prefix);
  const f = Number((await redis.hget(keys.hostState(domain, host), 'f')) ?? 0);
  const freed = await redis.smembers(keys.hostFreedLeases(domain, host));
  const leases = await redis.hlen(keys.hostLeases(domain, host));
  return { f, freed, leases };
}

describe('a slow page handler', () => {
  it('does not delay its host’s next request beyond the delay (server log)', async () => {
    const since = performance.timeOrigin + performance.now();
    const slow: PageHandler = async (_page, ctx) => {
      await new Promise((r) => setTimeout(r, HANDLER_SLEEP_MS));
      ctx.push({ slept: HANDLER_SLEEP_MS });
    };
    const crawler = pod('hs1', 'hs1-pod', slow);
    await crawler.seed([web.seeds[0]!]);
    await crawler.start();
    await crawler.done;
    const host = new URL(web.seeds[0]!).hostname;
    const requests = pageRequests(host, since);
    // The site's pages (and a broken link), each once.
    expect(requests.length).toBeGreaterThanOrEqual(8);
    expect(new Set(requests.map((e) => e.path)).size).toBe(requests.length);
    const gaps = requests.slice(1).map((e, i) => e.startMs - requests[i]!.startMs);
    // The root's links arrive when its handler returns; the seven pages they lead to are then
    // fetched a delay apart while their handlers sleep. Had a handler held the slot, every gap
    // would be at least the sleep plus the delay.
    expect(gaps.filter((gap) => gap < HANDLER_SLEEP_MS / 2).length).toBeGreaterThanOrEqual(
      requests.length - 3,
    );
    // Politeness holds all the same: one at a time, a delay apart, by the pod's send times
    // (sentTimeLog: the server's stamps lag when this process stalls).
    const results = await readResults(redis, crawler.resultsStreamKey);
    expect(
      politenessViolations(sentTimeLog(web.log, results), {
        minGapMs: DELAY_MS,
        maxConcurrency: 1,
      }),
    ).toEqual([]);
    expect(results.every((r) => r.outcome === 'fetched')).toBe(true);
    expect(results.filter((r) => r.host === host)).toHaveLength(requests.length);
    expect(crawler.stats().items).toBe(results.filter((r) => r.status === 200).length);
    for (const other of new Set(results.map((r) => r.host))) {
      expect(await hostSlots('hs1', other, other)).toEqual({ f: 0, freed: [], leases: 0 });
    }
  }, 90_000);
});

describe('a throwing page handler', () => {
  it('still fails the URL, retried then dead-lettered, and leaves no slot taken', async () => {
    const since = performance.timeOrigin + performance.now();
    const throwing: PageHandler = () => {
      throw new Error('boom');
    };
    const crawler = pod('hs2', 'hs2-pod', throwing);
    await crawler.seed([web.seeds[1]!]);
    await crawler.start();
    await crawler.done;
    const host = new URL(web.seeds[1]!).hostname;
    const results = await readResults(redis, crawler.resultsStreamKey);
    // maxRetries 1: fetched twice, the handler failing each time; its links never enqueued.
    expect(results.map((r) => r.outcome)).toEqual(['retry', 'dead']);
    expect(results[1]).toMatchObject({ errorCode: 'SHARDLINE_ERR_HANDLER' });
    expect(pageRequests(host, since).map((e) => e.path)).toEqual(['/', '/']);
    const frontier = new RedisFrontier({ redis, prefix: 'hs2', ownerOf: () => 'hs2-pod' });
    const dead = await frontier.inspector.deadLetters(host);
    expect(dead.map((d) => d.reason)).toEqual(['SHARDLINE_ERR_HANDLER']);
    expect(await hostSlots('hs2', host, host)).toEqual({ f: 0, freed: [], leases: 0 });
  }, 90_000);
});

describe('kill -9 while a page handler runs', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it('leaves the lease in Redis: reaped and the page fetched again, nothing lost', async () => {
    const since = performance.timeOrigin + performance.now();
    const mark = join(dir, 'handler-started');
    const handlerFile = join(dir, 'hang.mjs');
    writeFileSync(
      handlerFile,
      `import { writeFileSync } from 'node:fs';
export default async function hang(page) {
  writeFileSync(${JSON.stringify(mark)}, page.url);
  await new Promise((resolve) => setTimeout(resolve, 600000));
}
`,
    );
    const seed = web.seeds[0]!;
    const host = new URL(seed).hostname;
    const frontier = new RedisFrontier({ redis, prefix: 'hs3', ownerOf: () => 'hs3-pod' });
    await frontier.enqueue([seed]);
    child = spawn(
      process.execPath,
      [...SOURCE_NODE_FLAGS, join(ROOT, 'services', 'crawler', 'src', 'main.ts')],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          REDIS_URL: server.url,
          POD_ID: 'hs3-pod',
          KEY_PREFIX: 'hs3',
          RESOLVE: web.resolveOverrides.join(','),
          ALLOW_PRIVATE_ADDRESSES: '1',
          MIN_DELAY_MS: String(DELAY_MS),
          LEASE_TIMEOUT_MS: '3000',
          HEARTBEAT_INTERVAL_MS: '500',
          NO_WARC: '1',
          HANDLER: handlerFile,
          HANDLER_TIMEOUT_MS: '600000',
          LOG_LEVEL: 'error',
        },
        stdio: 'ignore',
      },
    );
    await vi.waitFor(() => expect(existsSync(mark)).toBe(true), { timeout: 60_000, interval: 100 });
    // The handler runs: the host's slot is free, the lease still recorded (and marked freed).
    const during = await hostSlots('hs3', host, host);
    expect(during).toMatchObject({ f: 0, leases: 1 });
    expect(during.freed).toHaveLength(1);
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    // The next incarnation reaps the expired lease and fetches the page again.
    const quick = pod('hs3', 'hs3-pod', (_page, ctx) => ctx.push({ ok: true }));
    await quick.start();
    await quick.done;
    const paths = pageRequests(host, since).map((e) => e.path);
    expect(paths.filter((path) => path === '/')).toHaveLength(2);
    expect(new Set(paths).size).toBe(paths.length - 1);
    const results = await readResults(redis, quick.resultsStreamKey);
    expect(results.find((r) => r.url === seed)).toMatchObject({ outcome: 'fetched' });
    expect(results.every((r) => r.outcome === 'fetched')).toBe(true);
    const stats = await frontier.stats();
    expect(stats.fetched).toBe(results.length);
    expect(stats.repeats).toBe(1);
    for (const other of new Set(results.map((r) => r.host))) {
      expect(await hostSlots('hs3', other, other)).toEqual({ f: 0, freed: [], leases: 0 });
    }
  }, 120_000);
});
