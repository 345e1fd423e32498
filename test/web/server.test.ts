import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestWebAgent } from './agent.js';
import type { HostBehaviour } from './behaviours.js';
import type { HtmlResource } from './model.js';
import { readPage } from './page-reader.js';
import { startTestWeb, type TestWeb } from './server.js';

const SLOW_MS = 300;
const DRIP_MS = 1500;
const HUGE = 50 * 1024 * 1024;
const ROBOTS_DELAY_MS = 400;

let web: TestWeb;
const agent = createTestWebAgent({ connections: 8 });

beforeAll(async () => {
  web = await startTestWeb({
    hosts: 45,
    seed: 3,
    slowMs: SLOW_MS,
    dripMs: DRIP_MS,
    hugeBodyBytes: HUGE,
    robotsDelayMs: ROBOTS_DELAY_MS,
    failFirstCount: 2,
    retryAfterS: 1,
  });
});
afterAll(async () => {
  await web?.close();
  await agent.close();
});

function hostWith(behaviour: HostBehaviour): string {
  for (const host of web.model.hosts.values()) {
    if (host.behaviours.includes(behaviour)) return host.name;
  }
  throw new Error(`no host with ${behaviour}`);
}

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await request(url, { dispatcher: agent, headers });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body };
}

const header = (h: Record<string, string | string[] | undefined>, name: string) =>
  String(h[name] ?? '');

describe('test web server', () => {
  it('answers by Host header with the model pages; served links equal the model links', async () => {
    for (const name of ['site1.test', 'site2.test', 'www.site3.test']) {
      const host = web.model.hosts.get(name)!;
      for (const [path, resource] of host.resources) {
        if (resource.kind !== 'html' || resource.delayMs || resource.dripMs || resource.padToBytes)
          continue;
        if (resource.failFirst) continue;
        const res = await get(web.origin(name) + path);
        expect(res.status).toBe(resource.status);
        const page = readPage(header(res.headers, 'content-type'), res.body);
        expect(page.links).toEqual(resource.links.map((l) => ({ ...l })));
      }
    }
  });

  it('serves the same bytes for the same seed (up to the port) and other bytes for another seed', async () => {
    const twin = await startTestWeb({ hosts: 45, seed: 3 });
    const other = await startTestWeb({ hosts: 45, seed: 4 });
    try {
      for (const path of ['/', '/p/1', '/p/2']) {
        const a = (await get(web.origin('site5.test') + path)).body.toString();
        const b = (await get(twin.origin('site5.test') + path)).body.toString();
        const c = (await get(other.origin('site5.test') + path)).body.toString();
        expect(b.replaceAll(`:${twin.port}`, ':PORT')).toBe(a.replaceAll(`:${web.port}`, ':PORT'));
        if (path === '/')
          expect(c.replaceAll(`:${other.port}`, ':PORT')).not.toBe(
            a.replaceAll(`:${web.port}`, ':PORT'),
          );
      }
    } finally {
      await twin.close();
      await other.close();
    }
  });

  it('reports ports, seeds, hosts and the DNS override', () => {
    expect(web.seeds).toHaveLength(45);
    expect(web.seeds[0]).toBe(`http://site1.test:${web.port}/`);
    expect(web.hosts).toContain('blog.site3.test');
    expect(web.resolveOverrides).toEqual([`*.test:${web.port}:127.0.0.1`]);
  });

  it('404s unknown hosts and paths and 405s other methods', async () => {
    expect((await get(`http://nowhere.test:${web.port}/`)).status).toBe(404);
    expect((await get(`${web.origin('site1.test')}/no/such/page`)).status).toBe(404);
    const post = await request(`${web.origin('site1.test')}/`, {
      dispatcher: agent,
      method: 'POST',
    });
    await post.body.dump();
    expect(post.statusCode).toBe(405);
  });

  describe('robots variants', () => {
    it('plain, disallow, wildcard and crawl-delay files are served as text', async () => {
      const plain = await get(`${web.origin('site1.test')}/robots.txt`);
      expect(plain.status).toBe(200);
      expect(plain.body.toString()).toContain('User-agent: *');
      const dis = await get(`${web.origin(hostWith('robots-disallow'))}/robots.txt`);
      expect(dis.body.toString()).toMatch(/User-agent: shardline\nDisallow: \/p\/3/);
      const wild = await get(`${web.origin(hostWith('robots-wildcard'))}/robots.txt`);
      expect(wild.body.toString()).toContain('Allow: /p/1$');
      const delayed = hostWith('robots-crawl-delay');
      const cd = await get(`${web.origin(delayed)}/robots.txt`);
      expect(cd.body.toString()).toContain('Crawl-delay: 2');
      expect(web.crawlDelayMs(delayed)).toBe(2000);
      expect(web.crawlDelayMs('site1.test')).toBe(0);
    });

    it('answers 404 and 500 for the status variants', async () => {
      expect((await get(`${web.origin(hostWith('robots-404'))}/robots.txt`)).status).toBe(404);
      expect((await get(`${web.origin(hostWith('robots-500'))}/robots.txt`)).status).toBe(500);
    });

    it('answers 503 to the first robots.txt request of robots-503-first, the file after', async () => {
      const host = hostWith('robots-503-first');
      const first = await get(`${web.origin(host)}/robots.txt`);
      expect(first.status).toBe(503);
      const second = await get(`${web.origin(host)}/robots.txt`);
      expect(second.status).toBe(200);
      expect(second.body.toString()).toContain('Disallow: /p/2');
      // The ground truth follows the file served after the retry.
      const truth = web.groundTruth({ userAgentToken: 'shardline' });
      expect(truth.reachableAllowed.has(`${web.origin(host)}/`)).toBe(true);
      expect(truth.disallowedLinked.has(`${web.origin(host)}/p/2`)).toBe(true);
    });

    it('holds the timeout variant, then drops the socket without an answer', async () => {
      const host = hostWith('robots-timeout');
      const error = await request(`${web.origin(host)}/robots.txt`, { dispatcher: agent }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      const entry = web.log.find((e) => e.host === host && e.path === '/robots.txt')!;
      expect(entry.status).toBe(0);
      expect(entry.endMs - entry.startMs).toBeGreaterThanOrEqual(ROBOTS_DELAY_MS - 5);
    });

    it('serves 2 MiB for the huge variant with the Disallow: / past the 500 KiB limit', async () => {
      const res = await get(`${web.origin(hostWith('robots-huge'))}/robots.txt`);
      expect(res.body.length).toBeGreaterThanOrEqual(2 * 1024 * 1024);
      const text = res.body.toString();
      expect(text.indexOf('Disallow: /p/2')).toBeLessThan(500 * 1024);
      expect(text.indexOf('Disallow: /\n')).toBeGreaterThan(500 * 1024);
    });

    it('serves binary garbage and a redirect to /robots-real.txt', async () => {
      const bin = await get(`${web.origin(hostWith('robots-binary'))}/robots.txt`);
      expect(bin.status).toBe(200);
      expect(bin.body.toString('latin1')).not.toMatch(/allow/i);
      expect(bin.body.some((b) => b >= 0x80)).toBe(true);
      const host = hostWith('robots-redirect');
      const moved = await get(`${web.origin(host)}/robots.txt`);
      expect(moved.status).toBe(301);
      expect(header(moved.headers, 'location')).toBe('/robots-real.txt');
      const real = await get(`${web.origin(host)}/robots-real.txt`);
      expect(real.body.toString()).toContain('Disallow: /p/2');
      expect(web.robotsFetchCounts().get(`${web.origin(host)}/robots-real.txt`)).toBe(1);
    });
  });

  describe('page behaviours', () => {
    it('slow pages answer only after slowMs', async () => {
      const host = hostWith('slow');
      const res = await get(`${web.origin(host)}/slow/1`);
      expect(res.status).toBe(200);
      const entry = web.log.findLast((e) => e.host === host && e.path === '/slow/1')!;
      expect(entry.endMs - entry.startMs).toBeGreaterThanOrEqual(SLOW_MS - 5);
    });

    it('drip pages trickle the body in many chunks spread over dripMs', async () => {
      const res = await request(`${web.origin(hostWith('drip'))}/drip`, { dispatcher: agent });
      const arrivals: number[] = [];
      let bytes = 0;
      for await (const chunk of res.body) {
        arrivals.push(performance.now());
        bytes += (chunk as Buffer).length;
      }
      expect(bytes).toBe(Number(res.headers['content-length']));
      expect(arrivals.length).toBeGreaterThanOrEqual(10);
      expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThanOrEqual(DRIP_MS / 2);
    });

    it('huge pages announce and stream 50 MiB (a prefix is read, then the request aborted)', async () => {
      const host = hostWith('huge-body');
      const res = await request(`${web.origin(host)}/huge`, { dispatcher: agent });
      expect(Number(res.headers['content-length'])).toBe(HUGE);
      let prefix = Buffer.alloc(0);
      for await (const chunk of res.body) {
        prefix = Buffer.concat([prefix, chunk as Buffer]);
        if (prefix.length >= 1024 * 1024) break;
      }
      expect(prefix.subarray(0, 15).toString()).toBe('<!doctype html>');
      expect(prefix.toString()).toContain('filler text');
      await sleep(50);
      const entry = web.log.findLast((e) => e.host === host && e.path === '/huge')!;
      expect(entry.endMs).toBeGreaterThan(0);
      expect(entry.bytes).toBeLessThan(HUGE);
    });

    it.each([
      ['retry-429', 429],
      ['retry-503', 503],
    ] as const)(
      '%s: the first two GETs fail with Retry-After, then the page is served',
      async (behaviour, status) => {
        const url = `${web.origin(hostWith(behaviour))}/retry/${status}`;
        for (let i = 0; i < 2; i++) {
          const res = await get(url);
          expect(res.status).toBe(status);
          expect(header(res.headers, 'retry-after')).toBe('1');
        }
        const ok = await get(url);
        expect(ok.status).toBe(200);
        expect(readPage(header(ok.headers, 'content-type'), ok.body).links[0]?.href).toBe(
          `/retry/${status}-child`,
        );
        expect(web.fetchCounts().get(url)).toBe(3);
        web.resetState();
        expect((await get(url)).status).toBe(status);
      },
    );

    it('error-500 pages fail every time', async () => {
      const url = `${web.origin(hostWith('error-500'))}/broken`;
      for (let i = 0; i < 3; i++) expect((await get(url)).status).toBe(500);
    });

    it('redirect chains take three hops to a real page; loops bounce between two URLs', async () => {
      const origin = web.origin(hostWith('redirect-chain'));
      let url = `${origin}/chain/1`;
      const statuses: number[] = [];
      for (let hop = 0; hop < 5; hop++) {
        const res = await get(url);
        statuses.push(res.status);
        if (res.status < 300 || res.status >= 400) break;
        url = new URL(header(res.headers, 'location'), url).href;
      }
      expect(statuses).toEqual([301, 302, 308, 200]);
      expect(url).toBe(`${origin}/chain/end`);
      const loop = web.origin(hostWith('redirect-loop'));
      const a = await get(`${loop}/loop/a`);
      const b = await get(new URL(header(a.headers, 'location'), `${loop}/loop/a`).href);
      expect(header(a.headers, 'location')).toBe('/loop/b');
      expect(header(b.headers, 'location')).toBe('/loop/a');
    });

    it('serves non-HTML content with its media type', async () => {
      const origin = web.origin(hostWith('non-html'));
      const png = await get(`${origin}/files/pixel.png`);
      expect(header(png.headers, 'content-type')).toBe('image/png');
      expect(png.body.subarray(1, 4).toString()).toBe('PNG');
      const pdf = await get(`${origin}/files/paper.pdf`);
      expect(header(pdf.headers, 'content-type')).toBe('application/pdf');
      expect(pdf.body.subarray(0, 5).toString()).toBe('%PDF-');
      const txt = await get(`${origin}/files/notes.txt`);
      expect(header(txt.headers, 'content-type')).toMatch(/^text\/plain/);
      expect(txt.body.toString()).toContain('href="/hidden/in-text"');
    });

    it('declares <base href>, meta robots and X-Robots-Tag as modelled', async () => {
      const based = await get(`${web.origin(hostWith('base-href'))}/based/page`);
      const page = readPage(header(based.headers, 'content-type'), based.body);
      expect(page.baseHref).toBe(`${web.origin(hostWith('base-href'))}/deep/dir/`);
      expect((await get(new URL(page.links[0]!.href, page.baseHref).href)).status).toBe(200);
      const nofollowHost = hostWith('meta-nofollow');
      const meta = await get(`${web.origin(nofollowHost)}/meta/nofollow-upper`);
      expect(readPage(header(meta.headers, 'content-type'), meta.body).metaRobots).toBe(
        'noindex, nofollow',
      );
      const noindex = await get(`${web.origin(hostWith('meta-noindex'))}/meta/noindex`);
      expect(readPage(undefined, noindex.body).metaRobots).toBe('noindex');
      const xrt = await get(`${web.origin(hostWith('header-nofollow'))}/xrobots/nofollow`);
      expect(header(xrt.headers, 'x-robots-tag')).toBe('nofollow');
      const root = await get(`${web.origin(hostWith('nofollow-link'))}/`);
      const rels = readPage(undefined, root.body).links.filter((l) => l.rel !== undefined);
      expect(rels.map((l) => l.href).sort()).toEqual(['/hidden/nofollow', '/hidden/nofollow-2']);
    });

    it('encodes charset pages in ISO-8859-1, declared in the header or only in <meta>', async () => {
      const origin = web.origin(hostWith('charset'));
      const inHeader = await get(`${origin}/charset/header`);
      expect(header(inHeader.headers, 'content-type')).toBe('text/html; charset=iso-8859-1');
      expect(inHeader.body.includes(Buffer.from([0xe9]))).toBe(true);
      const inMeta = await get(`${origin}/charset/meta`);
      expect(header(inMeta.headers, 'content-type')).toBe('text/html');
      const page = readPage(header(inMeta.headers, 'content-type'), inMeta.body);
      expect(page.metaCharset).toBe('iso-8859-1');
      expect(page.links[0]?.href).toBe('/charset/naïve');
      const target = new URL(page.links[0]!.href, origin).href;
      expect(target).toBe(`${origin}/charset/na%C3%AFve`);
      expect((await get(target)).status).toBe(200);
    });
  });

  describe('log and analyses', () => {
    it('records host, path, method, times, status, bytes, user agent and remote port', async () => {
      web.clearLog();
      const res = await get(`${web.origin('site2.test')}/p/1?v=2`, {
        'user-agent': 'shardline-test/1.0',
      });
      const [entry] = web.log;
      expect(web.log).toHaveLength(1);
      expect(entry).toMatchObject({
        host: 'site2.test',
        path: '/p/1?v=2',
        method: 'GET',
        status: 200,
        bytes: res.body.length,
        userAgent: 'shardline-test/1.0',
      });
      expect(entry!.remotePort).toBeGreaterThan(0);
      expect(entry!.startMs).toBeGreaterThan(Date.now() - 60_000);
      expect(entry!.endMs).toBeGreaterThanOrEqual(entry!.startMs);
      expect(web.fetchCounts()).toEqual(new Map([[`${web.origin('site2.test')}/p/1?v=2`, 1]]));
    });

    it('politenessViolations flags two concurrent requests to one host', async () => {
      web.clearLog();
      const host = hostWith('slow');
      await Promise.all([get(`${web.origin(host)}/slow/1`), get(`${web.origin(host)}/slow/2`)]);
      const found = web.politenessViolations({ minGapMs: 100, maxConcurrency: 1 });
      expect(found.map((v) => v.kind).sort()).toEqual(['concurrency', 'gap']);
      expect(found.every((v) => v.host === host)).toBe(true);
      expect(web.politenessViolations({ minGapMs: 0, maxConcurrency: 2 })).toEqual([]);
    });

    it('politenessViolations reports nothing for well-spaced sequential requests', async () => {
      web.clearLog();
      for (const path of ['/', '/p/1', '/p/2', '/p/3']) {
        await get(`${web.origin('site1.test')}${path}`);
        await get(`${web.origin('site2.test')}${path}`);
        await sleep(150);
      }
      expect(web.log).toHaveLength(8);
      expect(web.politenessViolations({ minGapMs: 100, maxConcurrency: 1 })).toEqual([]);
      // The same log breaks a gap it does not keep.
      expect(web.politenessViolations({ minGapMs: 5000, maxConcurrency: 1 }).length).toBe(6);
    });
  });
});

describe('ground truth against the model of the served web', () => {
  it('lists the redirect target and excludes the disallowed and nofollow-only pages', () => {
    const truth = web.groundTruth();
    const chain = web.origin(hostWith('redirect-chain'));
    expect(truth.reachableAllowed.has(`${chain}/chain/end`)).toBe(true);
    const dis = web.origin(hostWith('robots-disallow'));
    expect(truth.disallowedLinked.has(`${dis}/private/area`)).toBe(true);
    expect(truth.reachableAllowed.has(`${dis}/private/area`)).toBe(false);
    for (const trap of web.traps) expect(truth.reachableAllowed.has(trap)).toBe(false);
    const root = web.model.lookup('site1.test', '/') as HtmlResource;
    expect(root.links.length).toBeGreaterThan(0);
  });
});
