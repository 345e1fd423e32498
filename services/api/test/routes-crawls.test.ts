/**
 * Crawls in the API: `GET /v1/crawls` lists every crawl with its own counters, `?crawl=`
 * narrows the stats, domains, domain and dead-letter reads to one crawl (strictly
 * validated), and `/metrics` carries per-crawl gauges. A second crawl is written through
 * its own frontier on the fixture's Redis.
 */
import { CrawlRegistry, RedisFrontier } from '@shardline/frontier';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { crawlsResponse, statsResponse } from '../src/schemas-cluster.js';
import { deadLettersResponse, domainResponse, domainsResponse } from '../src/schemas-domains.js';
import { inspectResponse } from '../src/schemas-inspect.js';
import { call, type Fixture, startFixture, TOKEN } from './fixture.js';
import { expectSchema } from './schemas.js';

let fx: Fixture;
let news: RedisFrontier;

beforeAll(async () => {
  fx = await startFixture();
  news = new RedisFrontier({ redis: fx.redis, crawlId: 'news', ownerOf: () => 'pod-a' });
  // The same URLs as the default crawl's deepest domain, plus one domain of its own.
  const deepest = fx.domains[0]!.domain;
  await news.enqueue([
    `http://${deepest}/page/0`,
    `http://${deepest}/page/1`,
    'http://only-news.test/a',
    'http://dead-news.test/x',
  ]);
  // One dead letter in the news crawl; the other leases go back untouched.
  for (const lease of (await news.claim({ pod: 'pod-a', max: 10 })).leases) {
    if (lease.domain === 'dead-news.test')
      await news.fail(lease, { retryable: false, reason: 'gone' });
    else await news.release(lease);
  }
});
afterAll(async () => fx?.close());

describe('crawls in the API', () => {
  it('lists every crawl with its own counters', async () => {
    const { status, body } = await call(fx.base, '/v1/crawls');
    expect(status).toBe(200);
    expectSchema(crawlsResponse, body);
    const byId = new Map(body.crawls.map((c: { crawlId: string }) => [c.crawlId, c]));
    expect([...byId.keys()]).toEqual(['default', 'news']);
    expect(byId.get('news')).toMatchObject({ state: 'active', queued: 3, dead: 1, fetched: 0 });
    expect(byId.get('default')).toMatchObject({
      queued: fx.domains.reduce((n, d) => n + d.urls, 0),
      createdAtMs: null,
    });
  });

  it('narrows stats, domains, one domain and dead letters to the crawl asked for', async () => {
    const stats = await call(fx.base, '/v1/stats?crawl=news');
    expect(stats.status).toBe(200);
    expectSchema(statsResponse, stats.body);
    expect(stats.body.queued).toBe(3);
    expect((await call(fx.base, '/v1/stats')).body.queued).toBe(
      fx.domains.reduce((n, d) => n + d.urls, 0),
    );

    const domains = await call(fx.base, '/v1/domains?crawl=news&sort=depth');
    expectSchema(domainsResponse, domains.body);
    expect(
      domains.body.items.map((d: { domain: string; queued: number }) => [d.domain, d.queued]),
    ).toEqual([
      [fx.domains[0]!.domain, 2],
      ['only-news.test', 1],
      ['dead-news.test', 0],
    ]);

    const one = await call(fx.base, '/v1/domains/only-news.test?crawl=news');
    expect(one.status).toBe(200);
    expectSchema(domainResponse, one.body);
    expect(one.body.queued).toBe(1);
    expect((await call(fx.base, '/v1/domains/only-news.test')).status).toBe(404);

    const dead = await call(fx.base, '/v1/dead-letters?crawl=news');
    expect(dead.status).toBe(200);
    expectSchema(deadLettersResponse, dead.body);
    expect(dead.body.domains).toBe(1);
    expect(dead.body.items.map((l: { url: string }) => l.url)).toEqual(['http://dead-news.test/x']);
    const plainDead = await call(fx.base, '/v1/dead-letters');
    expect(JSON.stringify(plainDead.body)).not.toMatch(/dead-news/);
  });

  it('refuses a malformed crawl id with 400 naming the parameter', async () => {
    for (const path of [
      '/v1/stats?crawl=Bad%2Fid',
      '/v1/domains?crawl=',
      '/v1/dead-letters?crawl=-x',
      `/v1/domains/x.test?crawl=${'a'.repeat(65)}`,
    ]) {
      const r = await call(fx.base, path);
      expect(r.status, path).toBe(400);
      expect(JSON.stringify(r.body), path).toMatch(/crawl/);
    }
  });

  it('answers 404 naming the crawl for a well-formed id that never wrote a key, on every read and action', async () => {
    const deepest = fx.domains[0]!.domain;
    for (const path of [
      '/v1/stats?crawl=nwes',
      '/v1/pods?crawl=nwes',
      '/v1/ring?crawl=nwes',
      '/v1/domains?crawl=nwes',
      `/v1/domains/${deepest}?crawl=nwes`,
      '/v1/dead-letters?crawl=nwes',
      `/v1/ring/locate?domain=${deepest}&crawl=nwes`,
      `/v1/domains/${deepest}/inspect?crawl=nwes`,
    ]) {
      const r = await call(fx.base, path);
      expect(r.status, path).toBe(404);
      expect(r.body.code, path).toBe('SHARDLINE_ERR_API_UNKNOWN_CRAWL');
      expect(r.body.message, path).toMatch(/unknown crawl "nwes".*GET \/v1\/crawls/);
    }
    const pause = await call(fx.base, `/v1/domains/${deepest}/pause?crawl=nwes`, {
      method: 'POST',
      token: TOKEN,
    });
    expect(pause.status).toBe(404);
    expect(pause.body.code).toBe('SHARDLINE_ERR_API_UNKNOWN_CRAWL');
    // Nothing was written for the mistyped crawl: it is still not listed.
    const listed = (await call(fx.base, '/v1/crawls')).body.crawls.map(
      (c: { crawlId: string }) => c.crawlId,
    );
    expect(listed).toEqual(['default', 'news']);
  });

  it('exports per-crawl gauges', async () => {
    const { body } = await call(fx.base, '/metrics');
    expect(body).toMatch(/^shardline_crawl_queue_depth\{crawl="news"\} 3$/m);
    expect(body).toMatch(/^shardline_crawl_urls_dead\{crawl="news"\} 1$/m);
    expect(body).toMatch(/^shardline_crawl_queue_depth\{crawl="default"\} \d+$/m);
  });

  it('the domain page, pause and requeue act on the crawl asked for', async () => {
    const page = await call(fx.base, '/v1/domains/dead-news.test/inspect?crawl=news');
    expect(page.status).toBe(200);
    expectSchema(inspectResponse, page.body);
    expect(page.body.deadLetters.map((l: { url: string }) => l.url)).toEqual([
      'http://dead-news.test/x',
    ]);
    expect((await call(fx.base, '/v1/domains/dead-news.test/inspect')).status).toBe(404);

    const deepest = fx.domains[0]!.domain;
    const paused = await call(fx.base, `/v1/domains/${deepest}/pause?crawl=news`, {
      method: 'POST',
      token: TOKEN,
    });
    expect(paused.body).toEqual({ domain: deepest, paused: true });
    expect((await news.inspector.domainStats(deepest)).paused).toBe(true);
    expect((await fx.frontier.inspector.domainStats(deepest)).paused).toBe(false);

    const requeued = await call(
      fx.base,
      '/v1/domains/dead-news.test/dead-letters/requeue?crawl=news',
      {
        method: 'POST',
        token: TOKEN,
        body: {},
      },
    );
    expect(requeued.body).toMatchObject({
      domain: 'dead-news.test',
      requeued: 1,
      deadLettersKept: 0,
    });
    expect((await news.inspector.domainStats('dead-news.test')).queued).toBe(1);
  });

  it('seeds go to the crawl asked for; a crawl without pods is 503 and not started', async () => {
    const defaultBefore = (await call(fx.base, '/v1/stats')).body.queued;
    const newsBefore = (await call(fx.base, '/v1/stats?crawl=news')).body.queued;
    const seeded = await call(fx.base, '/v1/seeds?crawl=news', {
      body: { urls: ['http://only-news.test/seeded'] },
      token: TOKEN,
    });
    expect(seeded.status).toBe(200);
    expect(seeded.body).toMatchObject({ queued: 1, rejected: 0 });
    expect((await call(fx.base, '/v1/stats?crawl=news')).body.queued).toBe(newsBefore + 1);
    expect((await call(fx.base, '/v1/stats')).body.queued).toBe(defaultBefore);
    expect(await news.inspector.domainStats('only-news.test')).toMatchObject({ queued: 2 });

    // No pod serves "fresh": nobody would claim its URLs.
    const orphan = await call(fx.base, '/v1/seeds?crawl=fresh', {
      body: { urls: ['http://fresh.test/a'] },
      token: TOKEN,
    });
    expect(orphan.status).toBe(503);
    expect(orphan.body.code).toBe('SHARDLINE_ERR_API_NO_PODS');
    expect(orphan.body.message).toBe(
      'no live pods serve crawl "fresh": its URLs cannot be assigned to an owner yet; start one (shardline crawl --crawl-id fresh)',
    );
    const listed = (await call(fx.base, '/v1/crawls')).body.crawls.map(
      (c: { crawlId: string }) => c.crawlId,
    );
    expect(listed).toEqual(['default', 'news']);
  });

  it('a crawl being deleted refuses seeds and pauses with 409, not 500', async () => {
    const halted = new RedisFrontier({ redis: fx.redis, crawlId: 'halted', ownerOf: () => 'p' });
    await halted.enqueue(['http://halted.test/a']);
    const registry = new CrawlRegistry({ redis: fx.redis });
    await registry.markDeleting('halted');
    try {
      const seeds = await call(fx.base, '/v1/seeds?crawl=halted', {
        body: { urls: ['http://halted.test/b'] },
        token: TOKEN,
      });
      expect(seeds.status).toBe(409);
      expect(seeds.body.code).toBe('SHARDLINE_ERR_API_CRAWL_CONFLICT');
      expect(seeds.body.message).toMatch(/crawl "halted" is being deleted/);
      const pause = await call(fx.base, '/v1/domains/halted.test/pause?crawl=halted', {
        method: 'POST',
        token: TOKEN,
      });
      expect(pause.status).toBe(409);
      expect(await halted.inspector.domainStats('halted.test')).toMatchObject({
        queued: 1,
        paused: false,
      });
    } finally {
      await registry.delete('halted');
    }
  });
});

describe('DELETE /v1/crawls/:crawl', () => {
  it('needs the token, refuses the default crawl (409) and an unknown one (404)', async () => {
    expect((await call(fx.base, '/v1/crawls/gone', { method: 'DELETE' })).status).toBe(401);
    const byDefault = await call(fx.base, '/v1/crawls/default', {
      method: 'DELETE',
      token: TOKEN,
    });
    expect(byDefault.status).toBe(409);
    expect(byDefault.body.code).toBe('SHARDLINE_ERR_API_CRAWL_CONFLICT');
    expect(
      (await call(fx.base, '/v1/crawls/nope', { method: 'DELETE', token: TOKEN })).status,
    ).toBe(404);
    expect(
      (await call(fx.base, '/v1/crawls/Bad!', { method: 'DELETE', token: TOKEN })).status,
    ).toBe(400);
  });

  it("deletes one crawl's keys in the background, leaving the other crawl and the hosts' politeness", async () => {
    const doomed = new RedisFrontier({
      redis: fx.redis,
      crawlId: 'doomed',
      ownerOf: () => 'pod-a',
    });
    const domains = Array.from({ length: 30 }, (_, i) => `doomed${i}.test`);
    await doomed.enqueue(domains.map((d) => `http://${d}/a`));
    // One fetch in the doomed crawl leaves shared politeness state (next-allowed time).
    const [lease] = (await doomed.claim({ pod: 'pod-a', max: 1 })).leases;
    await doomed.complete(lease!, { bytes: 1, durationMs: 1 });
    const politeness = await fx.redis.keys(`sl:{d:${lease!.domain}}:h:*`);
    expect(politeness.length).toBeGreaterThan(0);
    const newsBefore = (await call(fx.base, '/v1/stats?crawl=news')).body.queued;

    const response = await call(fx.base, '/v1/crawls/doomed', { method: 'DELETE', token: TOKEN });
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ crawlId: 'doomed', state: 'deleting' });
    await vi.waitFor(
      async () => {
        const ids = (await call(fx.base, '/v1/crawls')).body.crawls.map(
          (c: { crawlId: string }) => c.crawlId,
        );
        expect(ids).toEqual(['default', 'news']);
      },
      { timeout: 20_000, interval: 100 },
    );
    // No key of the doomed crawl is left; the news crawl and the politeness keys are.
    const left: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await fx.redis.scan(cursor, 'MATCH', '*doomed*', 'COUNT', 1000);
      cursor = next;
      left.push(...keys.filter((k) => k.includes(':c:doomed')));
    } while (cursor !== '0');
    expect(left).toEqual([]);
    for (const key of politeness) expect(await fx.redis.exists(key)).toBe(1);
    expect((await call(fx.base, '/v1/stats?crawl=news')).body.queued).toBe(newsBefore);
  });
});
