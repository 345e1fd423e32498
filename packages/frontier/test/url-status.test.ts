/**
 * `FrontierInspector.urlStatus`: one URL found where Redis holds it — never accepted, queued
 * (with its metadata), leased, scheduled for a refetch, dead-lettered, done — including in a
 * seen-set that has split into many buckets, and `seen` when the read bound stops the search.
 */
import { describe, expect, it } from 'vitest';
import { frontierFixture } from './frontier-fixture.js';

describe('urlStatus', () => {
  const { connect, make } = frontierFixture('us');
  const at = (url: string) => {
    const host = new URL(url).host;
    return { url, host, domain: host.split('.').slice(-2).join('.') };
  };

  it('tells unseen, queued, leased, scheduled, dead and done apart', async () => {
    const { frontier } = make({ defaultConcurrency: 10, maxRetries: 0 });
    const { inspector } = frontier;
    const urls = Array.from({ length: 6 }, (_, i) => `https://www.status-test.com/${i}`);
    await frontier.enqueue(urls.map((url, i) => ({ url, meta: i === 5 ? '{"k":1}' : '' })));
    const [leased, scheduled, dead, done] = (
      await frontier.claim({ pod: 'pod-a', max: 4, leaseTimeoutMs: 60_000 })
    ).leases;
    await frontier.complete(scheduled!, { refetchAfterMs: 3_600_000 });
    await frontier.fail(dead!, { retryable: false, reason: 'http-404' });
    await frontier.complete(done!);

    expect(await inspector.urlStatus(at('https://www.status-test.com/never'))).toMatchObject({
      state: 'unseen',
    });
    const out = await inspector.urlStatus(at(leased!.url));
    expect(out).toMatchObject({ state: 'leased', host: 'www.status-test.com' });
    expect(out.atMs).toBeGreaterThan(Date.now() + 50_000);
    const later = await inspector.urlStatus(at(scheduled!.url));
    expect(later.state).toBe('scheduled');
    expect(later.atMs).toBeGreaterThan(Date.now() + 3_500_000);
    expect(await inspector.urlStatus(at(dead!.url))).toMatchObject({
      state: 'dead',
      reason: 'http-404',
    });
    expect(await inspector.urlStatus(at(done!.url))).toMatchObject({ state: 'done' });
    expect(await inspector.urlStatus(at(urls[5]!))).toMatchObject({
      state: 'queued',
      meta: '{"k":1}',
    });
    // The read bound: the queued URL is the second waiting one, so one entry read is not enough.
    expect(await inspector.urlStatus(at(urls[5]!), 1)).toMatchObject({ state: 'seen' });
  });

  it('answers per crawl: a URL of one crawl is unseen in another', async () => {
    const { frontier, prefix } = make();
    const other = make({ crawlId: 'other' }, prefix).frontier;
    await frontier.enqueue(['https://crawls-test.com/a']);
    const url = at('https://crawls-test.com/a');
    expect((await frontier.inspector.urlStatus(url)).state).toBe('queued');
    expect((await other.inspector.urlStatus(url)).state).toBe('unseen');
    await other.enqueue(['https://crawls-test.com/a']);
    expect((await other.inspector.urlStatus(url)).state).toBe('queued');
  });

  it('finds every accepted URL in a seen-set split over many buckets', async () => {
    // Buckets of ~100 (the server's layout would hold 1,500 in two).
    const { frontier, keys } = make({ seenBucketLoad: 100 });
    const urls = Array.from({ length: 1500 }, (_, i) => `https://split-test.com/p/${i}`);
    await frontier.enqueue(urls);
    const stats = await frontier.inspector.domainStats('split-test.com');
    expect(stats.seen).toBe(1500);
    // Linear hashing has split the seen-set: 2^sL + sS buckets, far more than one.
    const [level] = await connect().hmget(keys.domain('split-test.com'), 'sL', 'sS');
    expect(Number(level)).toBeGreaterThanOrEqual(2);
    for (const url of urls.filter((_, i) => i % 50 === 0)) {
      expect((await frontier.inspector.urlStatus(at(url))).state).toBe('queued');
    }
    for (let i = 0; i < 20; i++) {
      const url = `https://split-test.com/q/${i}`;
      expect((await frontier.inspector.urlStatus(at(url))).state).toBe('unseen');
    }
  });
});
