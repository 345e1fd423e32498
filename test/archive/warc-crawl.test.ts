/**
 * A pod crawling the test web with a WARC directory and a page handler: every WARC file is
 * read back by an independent reader (warcio, and node:zlib member by member with digests
 * recomputed here), each response payload is compared with the bytes the test web serves, and
 * the handler's items land in the items stream and JSONL. A throwing handler dead-letters its
 * URL with SHARDLINE_ERR_HANDLER while the other pages complete.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CrawlerPod, type CrawlResult, decodeItem, type PageHandler } from '@shardline/crawler';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { membersOf, sha1Base32, warcioRecords } from '../../packages/warc/test/warc-files.js';
import { readResults } from '../helpers/hostile-crawl.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';
import { createTestWebAgent, startTestWeb, type TestWeb } from '../web/index.js';

let web: TestWeb;
let server: RedisServer;
let redis: Redis;
let dir: string;

beforeAll(async () => {
  [web, server] = await Promise.all([
    startTestWeb({
      hosts: 6,
      seed: 7,
      pagesPerHost: [4, 8],
      behaviours: { 'site2.test': ['huge-body'], 'site3.test': ['redirect-chain'] },
      hugeBodyBytes: 300_000,
    }),
    startRedis(),
  ]);
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
  dir = mkdtempSync(join(tmpdir(), 'warc-crawl-'));
});

afterAll(async () => {
  await redis?.quit();
  await Promise.all([web?.close(), server?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

async function crawl(prefix: string, handler: PageHandler, extra: Record<string, unknown> = {}) {
  const pod = new CrawlerPod({
    redis,
    podId: `${prefix}-pod`,
    prefix,
    concurrency: 16,
    minDelayMs: 20,
    resolve: web.resolveOverrides,
    maxBodyBytes: 100_000,
    maxRetries: 1,
    backoffBaseMs: 50,
    backoffMaxMs: 100,
    warcDir: join(dir, prefix),
    warcMaxBytes: 64 * 1024,
    pageHandler: handler,
    itemsJsonl: join(dir, `${prefix}-items.jsonl`),
    exitWhenIdle: { graceMs: 500 },
    logger: pino({ level: 'silent' }),
    ...extra,
  });
  await pod.seed(web.seeds);
  await pod.start();
  await pod.done;
  return { pod, results: await readResults(redis, pod.resultsStreamKey) };
}

describe('a crawl with WARC files and a page handler', () => {
  let results: CrawlResult[];
  let stats: ReturnType<CrawlerPod['stats']>;
  const warcDir = () => join(dir, 'w1');

  beforeAll(async () => {
    const handler: PageHandler = (page, ctx) => {
      ctx.push({ title: page.$('title').text(), h1: page.$('h1').first().text() });
    };
    const run = await crawl('w1', handler);
    results = run.results;
    stats = run.pod.stats();
  }, 90_000);

  it('closes every file (no .open left) and rotates at warcMaxBytes', () => {
    const names = readdirSync(warcDir());
    expect(names.length).toBeGreaterThan(1);
    expect(names.every((n) => /^shardline-\d{17}-w1-pod-\d{5}\.warc\.gz$/.test(n))).toBe(true);
    expect(stats.warc).toMatchObject({ errors: 0, filesClosed: names.length });
  });

  it('writes records an independent reader validates, paired, with correct digests', async () => {
    for (const name of readdirSync(warcDir())) {
      const path = join(warcDir(), name);
      const records = membersOf(path);
      const parsed = await warcioRecords(path);
      expect(parsed.map((r) => r.type)).toEqual(records.map((r) => r.type));
      expect(records[0]!.type).toBe('warcinfo');
      for (let i = 1; i < records.length; i += 2) {
        const [response, req] = [records[i]!, records[i + 1]!];
        expect(response.type).toBe('response');
        expect(req.type).toBe('request');
        expect(req.headers.get('WARC-Concurrent-To')).toBe(response.headers.get('WARC-Record-ID'));
        expect(response.headers.get('WARC-Block-Digest')).toBe(sha1Base32(response.block));
        expect(response.headers.get('WARC-Payload-Digest')).toBe(sha1Base32(response.payload));
        expect(response.headers.get('WARC-IP-Address')).toBe('127.0.0.1');
        expect(req.httpHead).toMatch(/^GET \S+ HTTP\/1\.1\r\nHost: [a-z0-9.]+\.test:\d+\r\n/);
        expect(req.httpHead).toContain('user-agent: shardline/');
      }
    }
  });

  it('archives one response per fetch — pages, redirects and robots.txt — with payloads as served', async () => {
    const responses = readdirSync(warcDir()).flatMap((name) =>
      membersOf(join(warcDir(), name)).filter((r) => r.type === 'response'),
    );
    const byUrl = new Map(responses.map((r) => [r.headers.get('WARC-Target-URI')!, r]));
    const fetched = results.filter((r) => r.outcome === 'fetched');
    expect(fetched.length).toBeGreaterThan(20);
    // Every fetch the server answered, robots.txt included, has exactly one response record.
    expect(responses.length).toBe(fetched.length + new Set(fetched.map((r) => r.host)).size);
    expect([...byUrl.keys()].filter((u) => u.endsWith('/robots.txt')).length).toBe(
      new Set(fetched.map((r) => r.host)).size,
    );
    const agent = createTestWebAgent();
    try {
      for (const result of fetched) {
        const record = byUrl.get(result.url)!;
        expect(record, result.url).toBeDefined();
        // One seek: the result's location is the response record.
        expect(record.offset).toBe(result.warcOffset);
        expect(record.length).toBe(result.warcLength);
        expect(readdirSync(warcDir())).toContain(result.warcFile);
        if (result.truncated) {
          expect(record.headers.get('WARC-Truncated')).toBe('length');
          expect(record.payload.length).toBe(100_000);
          continue;
        }
        expect(record.headers.has('WARC-Truncated')).toBe(false);
        const again = await request(result.url, { dispatcher: agent });
        const body = Buffer.from(await again.body.arrayBuffer());
        expect(record.payload.equals(body), result.url).toBe(true);
        expect(record.httpHead.startsWith(`HTTP/1.1 ${result.status} `)).toBe(true);
      }
    } finally {
      await agent.close();
    }
    expect(fetched.some((r) => r.status >= 300 && r.status < 400)).toBe(true);
    expect(fetched.some((r) => r.truncated)).toBe(true);
  });

  it('extracts title and heading of every 2xx page into the items stream and JSONL', async () => {
    const pages = results.filter((r) => r.outcome === 'fetched' && r.status === 200);
    const entries = (await redis.xrange('w1:items', '-', '+')) as [string, string[]][];
    const items = entries.map(([, fields]) => decodeItem(fields));
    expect(items.map((i) => i.url).sort()).toEqual(pages.map((r) => r.url).sort());
    for (const item of items) {
      expect(item.pod).toBe('w1-pod');
      expect(typeof item.item.title).toBe('string');
      expect((item.item.title as string).length).toBeGreaterThan(0);
    }
    const lines = readFileSync(join(dir, 'w1-items.jsonl'), 'utf8').trim().split('\n');
    expect(lines.length).toBe(items.length);
    expect(stats.items).toBe(items.length);
  });
});

describe('ctx.skipLinks and ctx.enqueue', () => {
  it('replaces link extraction with the URLs the handler enqueues, tags carried to their pages', async () => {
    const handler: PageHandler = (page, ctx) => {
      ctx.skipLinks();
      ctx.push({ tags: [...page.tags] });
      if (page.url === web.seeds[0]) {
        ctx.enqueue(page.$('a[href]').first().attr('href')!, { tags: ['picked'], priority: 5 });
      }
    };
    const { results } = await crawl('w4', handler, { noWarc: true });
    const fetched = results.filter((r) => r.outcome === 'fetched' && r.status === 200);
    // The seeds, and the one URL enqueued; no link of any page was followed.
    expect(fetched.length).toBe(web.seeds.length + 1);
    const picked = fetched.find((r) => !web.seeds.includes(r.url))!;
    const entries = (await redis.xrange('w4:items', '-', '+')) as [string, string[]][];
    const items = entries.map(([, fields]) => decodeItem(fields));
    expect(items.find((i) => i.url === picked.url)!.item).toEqual({ tags: ['picked'] });
    expect(items.find((i) => i.url === web.seeds[0])!.item).toEqual({ tags: [] });
  }, 90_000);

  it('fails the page on a bad enqueue argument instead of dropping its URL unseen', async () => {
    let target: string | undefined;
    const handler: PageHandler = (page, ctx) => {
      ctx.skipLinks();
      if (page.url === web.seeds[0]) {
        target = new URL(page.$('a[href]').first().attr('href')!, page.url).href;
        ctx.enqueue(target, { priority: 'high' as unknown as number });
      }
    };
    const { results } = await crawl('w5', handler, { noWarc: true });
    const seed = results.filter((r) => r.url === web.seeds[0]);
    expect(seed.at(-1)).toMatchObject({ outcome: 'dead', errorCode: 'SHARDLINE_ERR_HANDLER' });
    expect(seed.at(-1)!.error).toContain(
      'ctx.enqueue: priority must be an integer within ±1000000; got "high"',
    );
    // Nothing else was fetched: the URL was neither queued nor silently rejected and counted.
    expect(results.some((r) => r.url === target)).toBe(false);
    expect(await redis.hget('w5:stats', 'rejected')).toBeNull();
  }, 90_000);
});

describe('a throwing page handler', () => {
  it('dead-letters its URLs with SHARDLINE_ERR_HANDLER and the error; other URLs complete', async () => {
    const handler: PageHandler = (page, ctx) => {
      if (new URL(page.url).hostname === 'site1.test') throw new Error('boom on site1');
      ctx.push({ ok: true });
    };
    const { results, pod } = await crawl('w2', handler, { noWarc: true });
    const site1 = results.filter((r) => r.host === 'site1.test' && r.status === 200);
    expect(site1.length).toBeGreaterThan(0);
    const dead = site1.filter((r) => r.outcome === 'dead');
    expect(dead.length).toBeGreaterThan(0);
    for (const r of dead) {
      expect(r).toMatchObject({ errorCode: 'SHARDLINE_ERR_HANDLER' });
      expect(r.error).toContain('boom on site1');
    }
    expect(site1.every((r) => r.outcome !== 'fetched')).toBe(true);
    const others = results.filter((r) => r.host !== 'site1.test' && r.outcome === 'fetched');
    expect(others.length).toBeGreaterThan(10);
    expect(pod.stats().handlerErrors).toBe(site1.length);
    expect(pod.stats().warc).toBeUndefined();
    expect(readdirSync(dir)).not.toContain('w2');
  }, 90_000);

  it('times out a handler past handlerTimeoutMs the same way', async () => {
    const handler: PageHandler = async (page) => {
      if (new URL(page.url).pathname === '/') await new Promise((r) => setTimeout(r, 2000));
    };
    const { results } = await crawl('w3', handler, { noWarc: true, handlerTimeoutMs: 100 });
    const roots = results.filter((r) => new URL(r.url).pathname === '/' && r.outcome === 'dead');
    expect(roots.length).toBeGreaterThan(0);
    expect(roots[0]!.error).toContain('exceeded handlerTimeoutMs (100 ms)');
  }, 90_000);
});
