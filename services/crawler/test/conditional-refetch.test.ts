/**
 * Conditional refetch end to end: a pod with a refetch interval keeps each page's validators in
 * the frontier's schedule and sends them back; the server (which honours `If-None-Match`)
 * answers 304 while the page is unchanged and 200 once it changed, after which the new ETag
 * is the one sent. Judged by the server's own log and counts.
 */
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

describe('conditional refetch in the pod', () => {
  it('refetches with If-None-Match: 304 while unchanged, 200 with the new ETag once changed', async () => {
    let version = 1;
    const answers = { full: 0, notModified: 0 };
    const web = await startLoggingServer('127.0.0.2', {
      respond: (req, res) => {
        const etag = `"v${version}"`;
        if (req.headers['if-none-match'] === etag) {
          answers.notModified += 1;
          res.writeHead(304, { etag });
          res.end();
          return;
        }
        answers.full += 1;
        res.writeHead(200, { 'content-type': 'text/html', etag });
        res.end(`<p>version ${version}</p>`);
      },
    });
    const pod = new CrawlerPod({
      redis,
      podId: 'cr-1',
      prefix: 'cr',
      minDelayMs: 0,
      maxDepth: 0,
      refetchAfterMs: 200,
      resolve: ['page.test:127.0.0.2'],
      logger: pino({ level: 'silent' }),
    });
    const pages = () => web.log.filter((e) => e.path === '/' && e.status > 0);
    try {
      await pod.seed([`${web.origin('page.test')}/`]);
      await pod.start();
      await vi.waitFor(() => expect(pages().length).toBeGreaterThanOrEqual(3), {
        timeout: 15_000,
        interval: 50,
      });
      version = 2;
      const changedAt = pages().length;
      await vi.waitFor(() => expect(pages().length).toBeGreaterThanOrEqual(changedAt + 2), {
        timeout: 15_000,
        interval: 50,
      });
      await pod.stop();
      const log = pages();
      // First fetch: nothing to send back; a full answer.
      expect(log[0]!.headers['if-none-match']).toBeUndefined();
      expect(log[0]!.status).toBe(200);
      // Unchanged refetches: the stored ETag goes out, the server answers 304.
      for (const e of log.slice(1, changedAt)) {
        expect(e.headers['if-none-match']).toBe('"v1"');
        expect(e.status).toBe(304);
      }
      // The page changed: one full answer, then the new ETag is sent and 304 again.
      expect(log[changedAt]!.status).toBe(200);
      expect(log.at(-1)!.headers['if-none-match']).toBe('"v2"');
      expect(log.at(-1)!.status).toBe(304);
      expect(answers.full).toBe(2);
      expect(answers.notModified).toBe(log.length - 2);
      expect(pod.stats().notModified).toBe(answers.notModified);
    } finally {
      await pod.stop();
      await web.close();
    }
  }, 40_000);
});
