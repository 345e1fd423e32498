/**
 * Sitemaps end to end: a real HTTP server on 127.0.0.1 (reached through the DNS override) and a
 * real Redis. robots.txt → sitemap index → sitemaps (one gzipped) → pages, all through the
 * frontier: each URL fetched once, the host's politeness gap kept, robots Disallow obeyed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import {
  CrawlerPod,
  type CrawlerPodOptions,
  type CrawlResult,
  decodeResult,
} from '../src/index.js';
import { watchStampSlack } from './fixtures/logging-server.js';

interface Hit {
  host: string;
  path: string;
  atMs: number;
}

let http: Server;
let port = 0;
let server: RedisServer;
let redis: Redis;
let log: Hit[] = [];
let stamps: ReturnType<typeof watchStampSlack>;
let n = 0;
const MIN_DELAY_MS = 150;
const BOMB_MAX = 50 * 1024 * 1024;

const origin = (host: string) => `http://${host}:${port}`;
const urlset = (host: string, paths: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths
    .map((p) => `<url><loc>${origin(host)}${p}</loc></url>`)
    .join('\n')}</urlset>`;

/** Per host: what robots.txt lists, and the sitemap bodies served. */
function route(host: string, path: string): { type: string; body: string | Buffer } | undefined {
  const o = origin(host);
  if (path === '/robots.txt') {
    const sitemaps: Record<string, string[]> = {
      'shop.test': ['/sitemap-index.xml'],
      'bomb.test': ['/bomb.xml.gz'],
      'broken.test': ['/broken.xml', '/broken.xml.gz', '/ok.xml'],
      'nest.test': ['/idx/0.xml'],
    };
    const lines = ['User-agent: *', 'Disallow: /private/'];
    for (const s of sitemaps[host] ?? []) lines.push(`Sitemap: ${o}${s}`);
    return { type: 'text/plain', body: `${lines.join('\n')}\n` };
  }
  if (path === '/sitemap-index.xml') {
    return {
      type: 'application/xml',
      body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${o}/sitemap-a.xml</loc></sitemap><sitemap><loc>${o}/sitemap-b.xml.gz</loc></sitemap></sitemapindex>`,
    };
  }
  const nested = /^\/idx\/(\d+)\.xml$/.exec(path);
  if (nested) {
    // Each index lists the next one: nesting the protocol forbids, bounded by the pod.
    const next = `${o}/idx/${Number(nested[1]) + 1}.xml`;
    return {
      type: 'application/xml',
      body: `<sitemapindex><sitemap><loc>${next}</loc></sitemap></sitemapindex>`,
    };
  }
  if (path === '/sitemap-a.xml') {
    return {
      type: 'application/xml',
      body: urlset(host, ['/a/1', '/a/2', '/shared', '/private/a']),
    };
  }
  if (path === '/sitemap-b.xml.gz') {
    // Served as a file (no Content-Encoding): the pod must spot the gzip magic itself.
    const body = gzipSync(urlset(host, ['/b/1', '/shared', '/private/b']));
    return { type: 'application/x-gzip', body };
  }
  if (path === '/bomb.xml.gz') {
    const head = Buffer.from(`<urlset><url><loc>${o}/before</loc></url>`);
    const tail = Buffer.from(`<url><loc>${o}/after</loc></url></urlset>`);
    const body = gzipSync(Buffer.concat([head, Buffer.alloc(BOMB_MAX + 1024 * 1024, 0x20), tail]));
    return { type: 'application/x-gzip', body };
  }
  if (path === '/broken.xml') return { type: 'application/xml', body: '<html><p>oops</p><loc>' };
  if (path === '/broken.xml.gz') {
    // A whole gzip header, then a deflate block of the reserved type 3.
    const body = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff]);
    return { type: 'application/x-gzip', body };
  }
  if (path === '/ok.xml') return { type: 'application/xml', body: urlset(host, ['/from-ok']) };
  return { type: 'text/html', body: `<!doctype html><title>${path}</title><p>no links</p>` };
}

beforeAll(async () => {
  // The server shares the process with the pod: a stall here delays a stamp, not the send.
  stamps = watchStampSlack();
  http = createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const path = req.url ?? '/';
    log.push({ host, path, atMs: Date.now() });
    const r = route(host, path);
    if (!r) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': r.type }).end(r.body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  port = (http.address() as AddressInfo).port;
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  stamps?.stop();
  await redis?.quit();
  await server?.stop();
  await new Promise((r) => http?.close(r));
});

function newPod(options: Partial<CrawlerPodOptions> = {}): CrawlerPod {
  n += 1;
  return new CrawlerPod({
    redis,
    podId: `sm-${n}`,
    prefix: `sm${n}`,
    minDelayMs: MIN_DELAY_MS,
    resolve: [`*.test:${port}:127.0.0.1`],
    exitWhenIdle: { graceMs: 300 },
    logger: pino({ level: 'silent' }),
    ...options,
  });
}

async function results(pod: CrawlerPod): Promise<CrawlResult[]> {
  const entries = (await redis.xrange(pod.resultsStreamKey, '-', '+')) as [string, string[]][];
  return entries.map(([, fields]) => decodeResult(fields));
}

function counts(host: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const h of log) if (h.host === host) m.set(h.path, (m.get(h.path) ?? 0) + 1);
  return m;
}

describe('sitemaps (enqueueSitemaps)', () => {
  // 300 ms: the first page waits long enough after robots.txt for the lease to give its slot
  // back; the listed sitemaps must still be enqueued.
  it.each([MIN_DELAY_MS, 300])(
    'follows robots.txt → index → sitemaps (one gzipped) → pages, politely, once each (delay %i ms)',
    async (delayMs) => {
      log = [];
      const pod = newPod({ enqueueSitemaps: true, minDelayMs: delayMs });
      await pod.seed([`${origin('shop.test')}/`]);
      await pod.start();
      await pod.done;
      const seen = counts('shop.test');
      const expected = [
        '/robots.txt',
        '/',
        '/sitemap-index.xml',
        '/sitemap-a.xml',
        '/sitemap-b.xml.gz',
        '/a/1',
        '/a/2',
        '/b/1',
        '/shared',
      ];
      expect([...seen.keys()].sort()).toEqual([...expected].sort());
      for (const path of expected) expect(seen.get(path), path).toBe(1);
      // Disallowed by robots.txt although both sitemaps list them.
      expect(seen.has('/private/a')).toBe(false);
      expect(seen.has('/private/b')).toBe(false);
      // Every request to the host, sitemaps included, went through the send gate.
      const times = log.filter((h) => h.host === 'shop.test').map((h) => h.atMs);
      for (let i = 1; i < times.length; i += 1) {
        expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(delayMs - stamps.slackMs());
      }
      const byPath = new Map((await results(pod)).map((r) => [new URL(r.url).pathname, r]));
      expect(byPath.get('/sitemap-b.xml.gz')).toMatchObject({ outcome: 'fetched', status: 200 });
      expect(byPath.get('/b/1')).toMatchObject({ outcome: 'fetched', depth: 1 });
      expect(pod.stats().robotsFilteredLinks).toBe(2);
    },
    20_000,
  );

  it('never requests a sitemap when the option is off', async () => {
    log = [];
    const pod = newPod();
    await pod.seed([`${origin('shop.test')}/`]);
    await pod.start();
    await pod.done;
    expect([...counts('shop.test').keys()].sort()).toEqual(['/', '/robots.txt']);
  }, 10_000);

  it('bounds a gzip bomb at 50 MiB inflated and records it', async () => {
    log = [];
    const pod = newPod({ enqueueSitemaps: true });
    await pod.seed([`${origin('bomb.test')}/`]);
    await pod.start();
    await pod.done;
    const seen = counts('bomb.test');
    expect(seen.get('/bomb.xml.gz')).toBe(1);
    expect(seen.get('/before')).toBe(1);
    expect(seen.has('/after')).toBe(false);
    const bomb = (await results(pod)).find((r) => r.url.endsWith('/bomb.xml.gz'));
    expect(bomb).toMatchObject({ outcome: 'fetched', status: 200, links: 1 });
    expect(bomb?.bounds?.split(',')).toContain('sitemap-bytes');
    expect(pod.stats().bounds['sitemap-bytes']).toBe(1);
  }, 20_000);

  it('follows nested sitemap indexes to a bounded level', async () => {
    log = [];
    const pod = newPod({ enqueueSitemaps: true });
    await pod.seed([`${origin('nest.test')}/`]);
    await pod.start();
    await pod.done;
    const seen = counts('nest.test');
    expect(['/idx/0.xml', '/idx/1.xml', '/idx/2.xml'].map((p) => seen.get(p))).toEqual([1, 1, 1]);
    expect(seen.has('/idx/3.xml')).toBe(false);
    const last = (await results(pod)).find((r) => r.url.endsWith('/idx/2.xml'));
    expect(last?.bounds?.split(',')).toContain('sitemap-nesting');
  }, 10_000);

  it('records malformed sitemaps and keeps crawling', async () => {
    log = [];
    const pod = newPod({ enqueueSitemaps: true });
    await pod.seed([`${origin('broken.test')}/`]);
    await pod.start();
    await pod.done;
    const seen = counts('broken.test');
    expect(seen.get('/from-ok')).toBe(1);
    const all = await results(pod);
    const xml = all.find((r) => r.url.endsWith('/broken.xml'));
    const gz = all.find((r) => r.url.endsWith('/broken.xml.gz'));
    expect(xml).toMatchObject({ outcome: 'fetched', links: 0 });
    expect(xml?.error).toMatch(/^sitemap: /);
    expect(xml?.bounds?.split(',')).toContain('sitemap-invalid');
    expect(gz).toMatchObject({ outcome: 'fetched', links: 0 });
    expect(gz?.error).toMatch(/^sitemap: gzip/);
    expect(pod.stats().bounds['sitemap-invalid']).toBe(2);
  }, 10_000);
});
