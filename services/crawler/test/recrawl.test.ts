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
import { watchStampSlack } from './fixtures/logging-server.js';

let web: TestWeb;
// The test web shares the process with the pod: a stall delays a stamp, not the send.
const stamps = watchStampSlack();
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
  stamps.stop();
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
      expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(400 - stamps.slackMs());
    }
    const stats = await pod.frontier.inspector.domainStats('site1.test');
    expect(stats.fetched).toBe(starts.length);
    // Between fetches the URL waits in the schedule, counted as queued: the crawl is not done.
    expect(stats.queued).toBe(1);
    expect(stats.inFlight).toBe(0);
    expect(await pod.frontier.settled()).toBe(false);
  }, 30_000);

  it('a page handler schedules the URLs it enqueues with ctx.enqueue(…, { refetchAfterMs })', async () => {
    web.clearLog();
    const seed = `${web.origin('site1.test')}/`;
    let picked = '';
    const pod = new CrawlerPod({
      redis,
      podId: 'rc-2',
      prefix: 'rc2',
      minDelayMs: 0,
      resolve: web.resolveOverrides,
      logger: pino({ level: 'silent' }),
      pageHandler: (page, ctx) => {
        ctx.skipLinks();
        if (page.url === seed) {
          picked = new URL(page.$('a[href]').first().attr('href')!, seed).href;
          ctx.enqueue(picked, { refetchAfterMs: 300 });
        }
      },
    });
    await pod.seed([seed]);
    await pod.start();
    // The seed is fetched once; the handler's URL again and again, 300 ms apart.
    await vi.waitFor(() => expect(web.fetchCounts().get(picked)).toBeGreaterThanOrEqual(2), {
      timeout: 15_000,
      interval: 50,
    });
    await pod.stop();
    expect(web.fetchCounts().get(seed)).toBe(1);
    const path = new URL(picked).pathname;
    const starts = web.log.filter((e) => e.path === path).map((e) => e.startMs);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(300 - stamps.slackMs());
  }, 30_000);
});
