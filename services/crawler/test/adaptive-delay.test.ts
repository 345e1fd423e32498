/**
 * `--adaptive-delay` end to end, judged by the server's request log: the pod reports each
 * fetch's response time and its 5xx to the frontier's host state, so a slow host sees gaps of
 * about factor × its response time, a 503 doubles them, and fast answers decay them back to
 * the minimum delay.
 */
import type { IncomingMessage } from 'node:http';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { CrawlerPod } from '../src/index.js';
import { startLoggingServer } from './fixtures/logging-server.js';

let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

describe('adaptive delay', () => {
  it('grows the gaps of a slow and failing host and decays them when it is fast again', async () => {
    const SLOW_MS = 120;
    const MIN_DELAY_MS = 100;
    let pages = 0;
    // Page requests 1-3 answer slowly, the 4th is a 503, every later one at once.
    const nth = (req: IncomingMessage) => (req.url === '/robots.txt' ? 0 : ++pages);
    const web = await startLoggingServer('127.0.0.2', {
      responseDelayMs: (req) => {
        const n = nth(req);
        (req as IncomingMessage & { n?: number }).n = n;
        return n >= 1 && n <= 3 ? SLOW_MS : 0;
      },
      respond: (req, res) => {
        const n = (req as IncomingMessage & { n?: number }).n;
        res.writeHead(n === 4 ? 503 : 200, { 'content-type': 'text/html' });
        res.end('<p>page</p>');
      },
    });
    const pod = new CrawlerPod({
      redis,
      podId: 'adaptive',
      prefix: 'adaptive',
      minDelayMs: MIN_DELAY_MS,
      adaptiveDelay: true, // factor 5, Heritrix's default
      backoffBaseMs: 10, // the failure backoff stays out of the way of what is measured
      maxDepth: 0,
      resolve: ['host.test:127.0.0.2'],
      logger: pino({ level: 'silent' }),
    });
    try {
      await pod.seed(Array.from({ length: 11 }, (_, i) => `${web.origin('host.test')}/p${i + 1}`));
      await pod.start();
      // 11 pages, one of them answered 503 once and fetched again.
      await vi.waitFor(
        () =>
          expect(web.log.filter((e) => e.path !== '/robots.txt' && e.status > 0)).toHaveLength(12),
        { timeout: 30_000, interval: 50 },
      );
      const starts = web.log
        .filter((e) => e.path !== '/robots.txt')
        .map((e) => e.startMs)
        .sort((a, b) => a - b);
      const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
      console.log(gaps.map(Math.round).join(' '));
      // After each slow answer: about 5 × 120 ms (generous bounds: a loaded machine).
      for (const gap of gaps.slice(0, 3)) expect(gap).toBeGreaterThanOrEqual(500);
      // After the 503: doubled.
      expect(gaps[3]).toBeGreaterThanOrEqual(1000);
      // Then fast answers halve it step by step, back to the minimum delay (a gap also holds
      // the completion's batching and the next claim, up to ~200 ms on a loaded machine).
      expect(gaps[6]).toBeLessThan(gaps[3]! / 2);
      const last = gaps.slice(-3);
      for (const gap of last) expect(gap).toBeGreaterThanOrEqual(MIN_DELAY_MS - 10);
      expect(last.reduce((a, b) => a + b, 0) / last.length).toBeLessThan(350);
      // Back at the floor, the adaptive state is gone from the host's Redis state.
      const state = await pod.frontier.inspector.hostState('host.test', 'host.test');
      expect(state).toMatchObject({ adaptiveDelayMs: 0, adaptiveReason: null });
    } finally {
      await pod.stop();
      await web.close();
    }
  }, 40_000);
});
