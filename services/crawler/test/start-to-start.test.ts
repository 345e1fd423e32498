/**
 * Politeness is start-to-start, judged by the server's log: with a slow response the next
 * request to the host starts the delay after the previous request STARTED (not after it
 * ended), and never earlier; robots.txt counts as a request.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { CrawlerPod } from '../src/index.js';
import { startLoggingServer } from './fixtures/logging-server.js';

let server: RedisServer;
let redis: Redis;
let n = 0;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('start-to-start politeness', () => {
  // [delay, response time]: a response shorter than the delay (the next request waits out the
  // rest of the delay) and one longer (it goes as soon as the first ends, concurrency 1).
  it.each([
    [300, 200],
    [200, 350],
  ])(
    'delay %i ms, pages answered in %i ms: gaps count from the previous start',
    async (delayMs, responseMs) => {
      const web = await startLoggingServer('127.0.0.2', {
        responseDelayMs: (req) => (req.url === '/robots.txt' ? 0 : responseMs),
      });
      n += 1;
      const pod = new CrawlerPod({
        redis,
        podId: `sts-${n}`,
        prefix: `sts${n}`,
        minDelayMs: delayMs,
        maxDepth: 0,
        resolve: ['slow.test:127.0.0.2'],
        exitWhenIdle: { graceMs: 300 },
        logger: pino({ level: 'silent' }),
      });
      try {
        await pod.seed(Array.from({ length: 8 }, (_, i) => `${web.origin('slow.test')}/p${i}`));
        await pod.start();
        await pod.done;
        const log = web.log.slice().sort((a, b) => a.startMs - b.startMs);
        expect(log.map((e) => e.path).filter((p) => p !== '/robots.txt')).toHaveLength(8);
        expect(log[0]?.path).toBe('/robots.txt');
        const gaps = log.slice(1).map((e, i) => e.startMs - log[i]!.startMs);
        // Never closer than the delay (robots.txt included), never two at once.
        const slackMs = web.stampSlackMs();
        for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(delayMs - slackMs);
        for (let i = 1; i < log.length; i++) {
          expect(log[i]!.startMs).toBeGreaterThanOrEqual(log[i - 1]!.endMs - slackMs);
        }
        // From a page's start, the next waits max(delay, response) plus the pipeline, not the
        // response AND the delay (the old rule: delay counted from the completion).
        const pageGaps = gaps.slice(1);
        expect(median(pageGaps)).toBeLessThan(Math.max(delayMs, responseMs) + 60);
        expect(median(pageGaps)).toBeLessThan(delayMs + responseMs - 60);
      } finally {
        await pod.stop();
        await web.close();
      }
    },
    30_000,
  );
});
