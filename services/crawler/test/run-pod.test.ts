/**
 * `runPod`, as main.ts and `shardline crawl` run a pod: from settings to a finished crawl
 * against the test web and a real Redis, the caller's hooks in their order, the final stats.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { startTestWeb, type TestWeb } from '../../../test/web/index.js';
import { CrawlerErrorCode } from '../src/errors.js';
import { runPod } from '../src/run-pod.js';

let web: TestWeb;
let server: RedisServer;

beforeAll(async () => {
  [web, server] = await Promise.all([
    startTestWeb({ hosts: 1, seed: 7, pagesPerHost: 3, behaviours: 'none' }),
    startRedis(),
  ]);
});

afterAll(async () => {
  await Promise.all([web?.close(), server?.stop()]);
});

describe('runPod', () => {
  it('seeds, runs until idle, stops, then reports; hooks in order', async () => {
    const events: string[] = [];
    const stats = await runPod({
      settings: {
        podId: 'run-1',
        prefix: 'rp1',
        minDelayMs: 20,
        resolve: web.resolveOverrides,
        exitWhenIdle: { graceMs: 200 },
      },
      redis: { url: server.url },
      logger: pino({ level: 'silent' }),
      beforeStart: async (pod) => {
        events.push('before-start');
        await pod.seed(web.seeds);
      },
      whileRunning: (pod) => {
        events.push(`running ready=${pod.ready}`);
        return () => events.push('stop-watching');
      },
      afterStop: (pod) => {
        events.push(`after-stop live=${pod.live}`);
      },
    });
    expect(events).toEqual([
      'before-start',
      'running ready=true',
      'stop-watching',
      'after-stop live=false',
    ]);
    const truth = web.groundTruth({ userAgentToken: 'shardline' }).reachableAllowed;
    expect(stats.fetched).toBe(truth.size);
    expect([...web.fetchCounts().values()].every((n) => n === 1)).toBe(true);
  });

  it('rejects a bad option before anything connects', async () => {
    await expect(
      runPod({
        settings: { concurrency: 0 },
        redis: { url: 'redis://127.0.0.1:1' },
        logger: pino({ level: 'silent' }),
      }),
    ).rejects.toMatchObject({ code: CrawlerErrorCode.INVALID_OPTION });
  });

  it('rejects a handler that cannot load before it connects, joins or seeds', async () => {
    // A closed port: the old order waited out the connect timeout and blamed Redis instead.
    const hooks: string[] = [];
    await expect(
      runPod({
        settings: { handler: '/nonexistent/handler.mjs' },
        redis: { url: 'redis://127.0.0.1:1' },
        redisConnectTimeoutMs: 60_000,
        logger: pino({ level: 'silent' }),
        beforeStart: async () => {
          hooks.push('before-start');
        },
      }),
    ).rejects.toMatchObject({
      code: CrawlerErrorCode.CONFIG,
      message: expect.stringMatching(/^handler \/nonexistent\/handler\.mjs: no such file/),
    });
    expect(hooks).toEqual([]);
  });
});
