/**
 * The discover-links stage with the real extractor, scope and link filter: what a page, a
 * redirect and a sitemap lead to, scoped and robots-filtered, enqueued with the bounds the
 * frontier reported. Only the enqueue is recorded (its results are given).
 */
import type { EnqueueResult } from '@shardline/frontier';
import { RobotsTxt } from '@shardline/robots';
import { describe, expect, it } from 'vitest';
import { LinkExtractor, LinkScope } from '../../src/links.js';
import { DiscoverLinksStage } from '../../src/pipeline/discover-links.js';
import type { FoundLink, LeaseContext } from '../../src/pipeline/lease-context.js';
import { LinkFilter } from '../../src/pipeline/link-filter.js';
import { PodCounters } from '../../src/pod-counters.js';
import type { RobotsLoadResult } from '../../src/robots-loader.js';
import { contextOf, outcomeOf } from './lease-fixture.js';

const ROBOTS = 'User-agent: *\nDisallow: /private\nSitemap: http://site.test/sitemap.xml\n';

function robotsAnswer(from: RobotsLoadResult['from'] = 'memory'): RobotsLoadResult {
  return {
    origin: 'http://site.test',
    robots: RobotsTxt.parse(ROBOTS),
    from,
    expiresAtMs: Date.now() + 60_000,
    unreachable: 0,
    hops: [],
  };
}

function setup(
  o: { maxDepth?: number; enqueueSitemaps?: boolean; reply?: (l: FoundLink) => EnqueueResult } = {},
) {
  const counters = new PodCounters();
  const enqueued: FoundLink[] = [];
  const stage = new DiscoverLinksStage({
    extractor: new LinkExtractor({ maxLinksPerPage: 3 }),
    links: new LinkFilter({
      scope: new LinkScope({ maxDepth: o.maxDepth ?? 10 }),
      userAgentToken: 'shardline',
      enqueueSitemaps: o.enqueueSitemaps ?? false,
      counters,
    }),
    enqueue: async (items) => {
      enqueued.push(...items);
      return items.map((item) => o.reply?.(item) ?? { status: 'queued' as const });
    },
    counters,
  });
  return { stage, counters, enqueued };
}

function fetched(ctx: LeaseContext, body: string, patch: Parameters<typeof outcomeOf>[0] = {}) {
  ctx.robots ??= robotsAnswer();
  ctx.outcome = outcomeOf({ contentType: 'text/html', body: Buffer.from(body), ...patch });
  return ctx;
}

describe('DiscoverLinksStage', () => {
  it("enqueues a page's links one depth deeper, minus same-origin links robots.txt disallows", async () => {
    const s = setup();
    const ctx = fetched(
      contextOf('http://site.test/', { depth: 1 }),
      '<a href="/a">a</a><a href="/private/b">b</a><a href="http://other.test/c">c</a>',
    );
    expect(await s.stage.run(ctx)).toBeUndefined();
    expect(s.enqueued).toEqual([
      { url: 'http://site.test/a', depth: 2 },
      { url: 'http://other.test/c', depth: 2 },
    ]);
    expect(s.counters.robotsFilteredLinks).toBe(1);
    expect(ctx.links).toHaveLength(2);
    expect(ctx.linksQueued).toBe(2);
  });

  it('records the bounds the page and the frontier hit', async () => {
    const s = setup({
      maxDepth: 1,
      reply: (l) =>
        l.url.endsWith('/a')
          ? { status: 'over-cap' }
          : { status: 'rejected', code: 'SHARDLINE_ERR_FRONTIER_DEPTH' },
    });
    const links = ['/a', '/b', '/c', '/d'].map((p) => `<a href="${p}">x</a>`).join('');
    const ctx = fetched(contextOf('http://site.test/'), links);
    await s.stage.run(ctx);
    // Four links, three kept per page; over-cap and depth from the enqueue results.
    expect(s.enqueued).toHaveLength(3);
    expect(ctx.bounds.sort()).toEqual(['depth', 'depth', 'links-per-page', 'queue-cap']);
    expect(ctx.linksQueued).toBe(0);
  });

  it('sends a redirect target through the frontier, a sitemap redirect keeping its meta', async () => {
    const s = setup();
    const redirect = { status: 301, redirectTo: 'http://site.test/moved', body: undefined };
    const page = fetched(contextOf('http://site.test/old'), '', redirect);
    await s.stage.run(page);
    const map = fetched(contextOf('http://site.test/old.xml', { meta: 'sitemap' }), '', redirect);
    await s.stage.run(map);
    expect(s.enqueued).toEqual([
      { url: 'http://site.test/moved', depth: 1 },
      { url: 'http://site.test/moved', depth: 1, meta: 'sitemap' },
    ]);
    expect(s.counters.redirects).toBe(2);
  });

  it("reads a sitemap's urlset and an index's child sitemaps at the same depth", async () => {
    const s = setup();
    const urlset = fetched(
      contextOf('http://site.test/sitemap.xml', { meta: 'sitemap', depth: 2 }),
      '<urlset><url><loc>http://site.test/p1</loc></url><url><loc>http://site.test/private/p2</loc></url></urlset>',
      { contentType: 'application/xml' },
    );
    await s.stage.run(urlset);
    const index = fetched(
      contextOf('http://site.test/index.xml', { meta: 'sitemap', depth: 2 }),
      '<sitemapindex><sitemap><loc>http://site.test/s1.xml</loc></sitemap></sitemapindex>',
    );
    await s.stage.run(index);
    expect(s.enqueued).toEqual([
      { url: 'http://site.test/p1', depth: 3 },
      { url: 'http://site.test/s1.xml', depth: 2, meta: 'sitemap:1' },
    ]);
  });

  it('notes a broken sitemap and stops nesting indexes at the deepest level', async () => {
    const s = setup();
    const broken = fetched(contextOf('http://site.test/x.xml', { meta: 'sitemap' }), '<html/>');
    await s.stage.run(broken);
    expect(broken.bounds).toEqual(['sitemap-invalid']);
    expect(broken.note).toMatch(/^sitemap: /);
    const deep = fetched(
      contextOf('http://site.test/deep.xml', { meta: 'sitemap:2' }),
      '<sitemapindex><sitemap><loc>http://site.test/s9.xml</loc></sitemap></sitemapindex>',
    );
    await s.stage.run(deep);
    expect(deep.bounds).toEqual(['sitemap-nesting']);
    expect(s.enqueued).toEqual([]);
  });

  it('adds the sitemaps of a freshly fetched robots.txt when enqueueSitemaps is on', async () => {
    const s = setup({ enqueueSitemaps: true });
    const ctx = contextOf('http://site.test/');
    ctx.robots = robotsAnswer('fetch');
    fetched(ctx, '');
    await s.stage.run(ctx);
    expect(s.enqueued).toEqual([
      { url: 'http://site.test/sitemap.xml', depth: 0, meta: 'sitemap' },
    ]);
    const fromMemory = setup({ enqueueSitemaps: true });
    await fromMemory.stage.run(fetched(contextOf('http://site.test/'), ''));
    expect(fromMemory.enqueued).toEqual([]);
  });
});
