/**
 * Claim ahead (`claimLeadMs`), judged by the server's log: a pod claims a host's next URL up to
 * the lead before the host's turn and sends at the turn, never before — robots.txt included,
 * across two pods sharing the host (two crawls: only Redis knows the other's sends), with a pod
 * whose wall clock is skewed, and when a pod is killed (SIGKILL) holding a lease claimed ahead.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FrontierKeys } from '../../../packages/frontier/src/keys.js';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { SOURCE_NODE_FLAGS } from '../../../test/helpers/source-runtime.js';
import { CrawlerPod, type CrawlerPodOptions } from '../src/index.js';
import { type LoggingServer, startLoggingServer } from './fixtures/logging-server.js';

let server: RedisServer;
let redis: Redis;
let n = 0;
const WAIT = { timeout: 30_000, interval: 20 };
const MAIN = join(import.meta.dirname, '..', 'src', 'main.ts');
const SKEWED_CLOCK = join(import.meta.dirname, 'fixtures', 'skewed-clock.mjs');

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

/** An in-process pod of `crawlId` that owns every domain of its crawl. */
function podOf(crawlId: string, web: LoggingServer, host: string, prefix: string, more = {}) {
  const options: CrawlerPodOptions = {
    redis,
    podId: `pod-${crawlId}`,
    prefix,
    crawlId,
    maxDepth: 0,
    resolve: [`${host}:${web.address}`],
    assignment: { ownerOf: () => `pod-${crawlId}`, onChange: () => () => undefined },
    logger: pino({ level: 'silent' }),
    ...more,
  };
  return new CrawlerPod(options);
}

/** Every gap between request starts at the server (robots.txt included) is at least `d`. */
function expectGaps(web: LoggingServer, delayMs: number): number[] {
  const starts = web.log.map((e) => e.startMs).sort((a, b) => a - b);
  const gaps = starts.slice(1).map((s, i) => s - starts[i]!);
  for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(delayMs - web.stampSlackMs());
  return gaps;
}

describe('claim ahead at the server', () => {
  it('two pods sharing a host send at its turn, never ahead of it, robots.txt included', async () => {
    const web = await startLoggingServer('127.0.0.5');
    n += 1;
    const prefix = `cah${n}`;
    // A lead most of the delay long: a pod that sent at its claim would halve the gaps.
    const pods = ['one', 'two'].map((crawl) =>
      podOf(crawl, web, 'ahead.test', prefix, { minDelayMs: 250, claimLeadMs: 200 }),
    );
    try {
      const urls = [1, 2, 3, 4, 5].map((i) => `${web.origin('ahead.test')}/p${i}`);
      for (const pod of pods) await pod.seed(urls);
      await Promise.all(pods.map((p) => p.start()));
      const pages = () => web.log.filter((e) => e.path !== '/robots.txt');
      await vi.waitFor(() => expect(pages()).toHaveLength(10), WAIT);
      expect(web.log.filter((e) => e.path === '/robots.txt').length).toBeGreaterThanOrEqual(1);
      expectGaps(web, 250);
    } finally {
      await Promise.all(pods.map((p) => p.stop()));
      await web.close();
    }
  }, 60_000);

  it('a restarted pod (nothing in its local gate) claims ahead and waits for the turn, robots.txt too', async () => {
    const web = await startLoggingServer('127.0.0.6');
    n += 1;
    const prefix = `cah${n}`;
    const options = { minDelayMs: 1000, claimLeadMs: 900 };
    const first = podOf('default', web, 'restart.test', prefix, options);
    const pages = () => web.log.filter((e) => e.path !== '/robots.txt');
    let second: CrawlerPod | undefined;
    try {
      await first.seed([1, 2, 3, 4].map((i) => `${web.origin('restart.test')}/p${i}`));
      await first.start();
      await vi.waitFor(() => expect(pages()).toHaveLength(1), WAIT);
      // Stopped before it claims the next URL (900 ms ahead of its turn, 100 ms after this send):
      // the next pod knows of that send only through the turn Redis keeps.
      await first.stop();
      // And robots.txt forgotten: the next pod's first request, claimed ahead, is robots.txt.
      await redis.del(`${prefix}:robots:${web.origin('restart.test')}`);
      second = podOf('default', web, 'restart.test', prefix, options);
      await second.start();
      await vi.waitFor(() => expect(pages()).toHaveLength(3), WAIT);
      expect(web.log.filter((e) => e.path === '/robots.txt')).toHaveLength(2);
      expectGaps(web, 1000);
    } finally {
      await first.stop();
      await second?.stop();
      await web.close();
    }
  }, 60_000);

  it('a pod with a skewed clock, killed holding a lease claimed ahead: no send before the turn it held', async () => {
    const web = await startLoggingServer('127.0.0.7');
    n += 1;
    const prefix = `cah${n}`;
    const host = 'killed.test';
    const dead = 'ahead-killed';
    const seeder = new Redis(server.url, { maxRetriesPerRequest: null });
    const frontier = new RedisFrontier({ redis: seeder, prefix, ownerOf: () => dead });
    await frontier.enqueue([1, 2, 3, 4, 5, 6].map((i) => `${web.origin(host)}/p${i}`));
    // Its wall clock 4 s behind the machine's (the server's and Redis'): claims, waits and sends
    // follow Redis time and the pod's monotonic clock only.
    const child = spawn(process.execPath, [...SOURCE_NODE_FLAGS, '--import', SKEWED_CLOCK, MAIN], {
      env: {
        PATH: process.env.PATH ?? '',
        TEST_CLOCK_SKEW_MS: '-4000',
        REDIS_URL: server.url,
        POD_ID: dead,
        KEY_PREFIX: prefix,
        RESOLVE: `${host}:${web.address}`,
        MIN_DELAY_MS: '1000',
        CLAIM_LEAD_MS: '900',
        SESSION_TIMEOUT_MS: '1000',
        MAX_DEPTH: '0',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const pages = () => web.log.filter((e) => e.path !== '/robots.txt');
    const keys = new FrontierKeys(prefix);
    let survivor: CrawlerPod | undefined;
    try {
      await vi.waitFor(() => expect(pages()).toHaveLength(2), WAIT);
      // Kill it while it holds a lease claimed ahead, at least 300 ms before that lease's turn.
      let turnMs = 0;
      await vi.waitFor(async () => {
        const [held, next, [sec, usec]] = await Promise.all([
          seeder.hlen(keys.hostLeases(host, host)),
          seeder.hget(keys.hostState(host, host), 'n'),
          seeder.time(),
        ]);
        turnMs = Number(next) - 1000;
        expect(held).toBe(1);
        expect(Number(sec) * 1000 + Number(usec) / 1000).toBeLessThan(turnMs - 300);
      }, WAIT);
      child.kill('SIGKILL');
      await exited;
      const sentBeforeKill = web.log.length;
      survivor = new CrawlerPod({
        redis,
        podId: 'ahead-survivor',
        prefix,
        minDelayMs: 1000,
        claimLeadMs: 900,
        sessionTimeoutMs: 1000,
        maxDepth: 0,
        resolve: [`${host}:${web.address}`],
        logger: pino({ level: 'silent' }),
      });
      await survivor.start();
      await vi.waitFor(() => expect(pages()).toHaveLength(4), WAIT);
      expectGaps(web, 1000);
      // The dead pod's turn (it may have sent then) holds: the survivor goes one delay later.
      const after = web.log.slice(sentBeforeKill).map((e) => e.startMs);
      expect(Math.min(...after)).toBeGreaterThanOrEqual(turnMs + 1000 - web.stampSlackMs());
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await survivor?.stop();
      seeder.disconnect();
      await web.close();
    }
  }, 60_000);
});
