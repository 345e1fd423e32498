/**
 * A pod with `refetchAfterMs` fetches a page again after each interval instead of once,
 * judged by the test web's log; the schedule waits in Redis between fetches.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { startTestWeb, type TestWeb } from '../../../test/web/index.js';
import { CrawlerPod } from '../src/index.js';

let web: TestWeb;
let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  [web, server] = await Promise.all([
    startTestWeb({ hosts: 1, seed: 4, pagesPerHost: 2, behaviours: 'none' }),
    startRedis(),
  ]);
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  await redis?.quit();
  await Promise.all([web?.close(), server?.stop()]);
});

describe('recrawl in the pod', () => {
  it('fetches a page again each refetch interval, never sooner', async () => {
    const pod = new CrawlerPod({
      redis,
      podId: 'rc-1',
      prefix: 'rc',
      minDelayMs: 0,
      maxDepth: 0,
      refetchAfterMs: 400,
      resolve: web.resolveOverrides,
      logger: pino({ level: 'silent' }),
    });
    const url = `${web.origin('site1.test')}/`;
    await pod.seed([url]);
    await pod.start();
    await vi.waitFor(() => expect(web.fetchCounts().get(url)).toBeGreaterThanOrEqual(3), {
      timeout: 15_000,
      interval: 50,
    });
    await pod.stop();
    const starts = web.log.filter((e) => e.path === '/').map((e) => e.startMs);
    for (let i = 1; i < starts.length; i++) {
      // The refetch is scheduled at completion + 400 ms, so starts are at least that apart.
      expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(400 - 5);
    }
    const stats = await pod.frontier.inspector.domainStats('site1.test');
    expect(stats.fetched).toBe(starts.length);
    // Between fetches the URL waits in the schedule, counted as queued: the crawl is not done.
    expect(stats.queued).toBe(1);
    expect(stats.inFlight).toBe(0);
    expect(await pod.frontier.settled()).toBe(false);
  }, 30_000);
});
