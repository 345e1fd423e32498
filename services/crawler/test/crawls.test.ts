/**
 * Crawls (namespaces) in running pods, judged by the server's own request log: two pods of two
 * crawls fetching the same host at once never start requests closer than its delay, nor run
 * more at once than its concurrency (both are the host's, shared by every crawl); each crawl fetches the same URL once (its own
 * seen-set), counts in its own counters and writes its own results stream; pausing a domain in
 * one crawl leaves the other crawl fetching it.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { CrawlerPod, type CrawlerPodOptions } from '../src/index.js';
import { type LoggingServer, startLoggingServer } from './fixtures/logging-server.js';

let server: RedisServer;
let redis: Redis;
let n = 0;
const WAIT = { timeout: 30_000, interval: 50 };

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

/** One pod per crawl on one frontier prefix, each the owner of every domain of its crawl. */
function podsOf(
  crawls: string[],
  web: LoggingServer,
  hosts: string[],
  options: Partial<CrawlerPodOptions>,
): { prefix: string; pods: CrawlerPod[] } {
  n += 1;
  const prefix = `crw${n}`;
  const pods = crawls.map(
    (crawlId) =>
      new CrawlerPod({
        redis,
        podId: `pod-${crawlId}`,
        prefix,
        crawlId,
        maxDepth: 0,
        resolve: hosts.map((h) => `${h}:${web.address}`),
        assignment: { ownerOf: () => `pod-${crawlId}`, onChange: () => () => undefined },
        logger: pino({ level: 'silent' }),
        ...options,
      }),
  );
  return { prefix, pods };
}

const pages = (web: LoggingServer) => web.log.filter((e) => e.path !== '/robots.txt');

describe('crawls in running pods', () => {
  it('two crawls of one host keep to its delay together; each fetches every URL once', async () => {
    const web = await startLoggingServer('127.0.0.2');
    const { prefix, pods } = podsOf(['one', 'two'], web, ['shared.test'], { minDelayMs: 300 });
    const [one, two] = pods as [CrawlerPod, CrawlerPod];
    try {
      const urls = [1, 2, 3, 4].map((i) => `${web.origin('shared.test')}/p${i}`);
      expect((await one.seed(urls)).queued).toBe(4);
      expect((await two.seed(urls)).queued).toBe(4);
      await Promise.all([one.start(), two.start()]);
      await vi.waitFor(() => expect(pages(web)).toHaveLength(8), WAIT);

      // Both crawls were served, each path once per crawl.
      const perPath = new Map<string, number>();
      for (const e of pages(web)) perPath.set(e.path, (perPath.get(e.path) ?? 0) + 1);
      expect([...perPath.values()]).toEqual([2, 2, 2, 2]);
      // The host's delay holds across both crawls, at the server.
      const starts = pages(web)
        .map((e) => e.startMs)
        .sort((a, b) => a - b);
      for (let i = 1; i < starts.length; i++) {
        expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(300 - web.stampSlackMs());
      }
      // Counters and results are each crawl's own.
      await vi.waitFor(async () => {
        expect((await one.frontier.inspector.domainStats('shared.test')).fetched).toBe(4);
        expect((await two.frontier.inspector.domainStats('shared.test')).fetched).toBe(4);
      }, WAIT);
      await vi.waitFor(async () => {
        expect(await redis.xlen(`${prefix}:c:one:results`)).toBe(4);
        expect(await redis.xlen(`${prefix}:c:two:results`)).toBe(4);
      }, WAIT);
      expect(await redis.exists(`${prefix}:results`)).toBe(0);
    } finally {
      await Promise.all(pods.map((p) => p.stop()));
      await web.close();
    }
  }, 60_000);

  it('two crawls of one host keep to its concurrency together', async () => {
    const web = await startLoggingServer('127.0.0.4', { responseDelayMs: 150 });
    const { pods } = podsOf(['left', 'right'], web, ['busy.test'], {
      minDelayMs: 0,
      perHostConcurrency: 1,
    });
    try {
      const urls = [1, 2, 3].map((i) => `${web.origin('busy.test')}/p${i}`);
      for (const pod of pods) await pod.seed(urls);
      await Promise.all(pods.map((p) => p.start()));
      await vi.waitFor(() => expect(pages(web).filter((e) => e.endMs > 0)).toHaveLength(6), WAIT);
      const sorted = pages(web).sort((x, y) => x.startMs - y.startMs);
      for (let i = 1; i < sorted.length; i++) {
        // One request at a time to the host, whichever crawl sent it.
        expect(sorted[i]!.startMs).toBeGreaterThanOrEqual(
          sorted[i - 1]!.endMs - web.stampSlackMs(),
        );
      }
    } finally {
      await Promise.all(pods.map((p) => p.stop()));
      await web.close();
    }
  }, 60_000);

  it('a domain paused in one crawl is still fetched by the other', async () => {
    const web = await startLoggingServer('127.0.0.3');
    const { pods } = podsOf(['held', 'free'], web, ['pz.test'], { minDelayMs: 0 });
    const [held, free] = pods as [CrawlerPod, CrawlerPod];
    try {
      const urls = [1, 2, 3].map((i) => `${web.origin('pz.test')}/p${i}?x`);
      await held.seed(urls);
      await free.seed(urls);
      await held.frontier.pause('pz.test');
      await Promise.all([held.start(), free.start()]);
      await vi.waitFor(() => expect(pages(web)).toHaveLength(3), WAIT);
      await vi.waitFor(async () => {
        expect((await free.frontier.inspector.domainStats('pz.test')).fetched).toBe(3);
      }, WAIT);
      // Give the paused crawl time it would have used: it sends nothing.
      await new Promise((r) => setTimeout(r, 500));
      expect(pages(web)).toHaveLength(3);
      expect(await held.frontier.inspector.domainStats('pz.test')).toMatchObject({
        paused: true,
        queued: 3,
        fetched: 0,
      });
    } finally {
      await Promise.all(pods.map((p) => p.stop()));
      await web.close();
    }
  }, 60_000);
});
