/**
 * A crawl's limit on a host (`setHostPolicy`'s `crawlLimit`, URLFrontier's SetCrawlLimit):
 * what Redis holds, what claims hand out (fetched + out never above the limit), how a held
 * host sits in the due index, a lapsed lease taking its old place, and the limit read back
 * by a new frontier (a restart) and kept per crawl.
 */
import { describe, expect, it } from 'vitest';
import { frontierFixture } from './frontier-fixture.js';

describe('crawl limit per host', () => {
  const { connect, make } = frontierFixture('lim');
  const urls = (host: string, n: number) =>
    Array.from({ length: n }, (_, i) => `https://${host}/${i}`);

  it('hands out no more URLs of the host than the limit, counting fetched and out', async () => {
    const redis = connect();
    const { frontier, keys, prefix } = make({ defaultConcurrency: 10 });
    await frontier.enqueue([...urls('a.lim-test.com', 5), ...urls('b.lim-test.com', 2)]);
    await frontier.setHostPolicy('a.lim-test.com', { crawlLimit: 2 });
    const skey = keys.hostState('lim-test.com', 'a.lim-test.com');
    expect(await redis.hget(skey, 'lim')).toBe('2');

    const first = (await frontier.claim({ pod: 'pod-a', max: 10 })).leases;
    expect(first.filter((l) => l.host === 'a.lim-test.com')).toHaveLength(2);
    expect(first.filter((l) => l.host === 'b.lim-test.com')).toHaveLength(2);
    for (const l of first) await frontier.complete(l);
    expect(await redis.hget(skey, 'dn')).toBe('2');
    // Held by its limit with URLs queued: listed at +inf (never polled, not stranded).
    expect(await redis.zscore(keys.due('pod-a'), 'lim-test.com/a.lim-test.com')).toBe('inf');
    expect((await frontier.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);

    // A restart (a new frontier on a new connection) reads the same limit and count.
    const again = make({ defaultConcurrency: 10 }, prefix).frontier;
    expect((await again.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);
    expect(await again.inspector.hostState('lim-test.com', 'a.lim-test.com')).toMatchObject({
      crawlLimit: 2,
      fetched: 2,
      queued: 3,
    });

    // Raising the limit re-scores the host: exactly one more URL.
    await again.setHostPolicy('a.lim-test.com', { crawlLimit: 3 });
    const one = (await again.claim({ pod: 'pod-a', max: 10 })).leases;
    expect(one.map((l) => l.url)).toEqual(['https://a.lim-test.com/2']);
    expect((await again.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);

    // Lifting it hands out the rest.
    await again.setHostPolicy('a.lim-test.com', { crawlLimit: null });
    expect(await redis.hexists(skey, 'lim')).toBe(0);
    const rest = (await again.claim({ pod: 'pod-a', max: 10 })).leases;
    expect(rest.map((l) => l.url).sort()).toEqual([
      'https://a.lim-test.com/3',
      'https://a.lim-test.com/4',
    ]);
  });

  it('a lapsed lease takes back its place: the same URL again, no other', async () => {
    const { frontier } = make({ defaultConcurrency: 10 });
    await frontier.enqueue(urls('lapse.lim-test.com', 3));
    await frontier.setHostPolicy('lapse.lim-test.com', { crawlLimit: 1 });
    const [lease] = (await frontier.claim({ pod: 'pod-a', max: 10, leaseTimeoutMs: 100 })).leases;
    expect(lease?.url).toBe('https://lapse.lim-test.com/0');
    expect((await frontier.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);
    await new Promise((r) => setTimeout(r, 150));
    const again = (await frontier.claim({ pod: 'pod-a', max: 10 })).leases;
    expect(again.map((l) => l.url)).toEqual(['https://lapse.lim-test.com/0']);
  });

  it('is the crawl’s own: another crawl of the same host is not limited', async () => {
    const redis = connect();
    const { frontier, prefix } = make();
    const other = make({ crawlId: 'other' }, prefix);
    await frontier.enqueue(urls('own.lim-test.com', 3));
    await other.frontier.enqueue(urls('own.lim-test.com', 3));
    await other.frontier.setHostPolicy('own.lim-test.com', { crawlLimit: 1 });
    expect(await redis.hget(other.keys.hostState('lim-test.com', 'own.lim-test.com'), 'lim')).toBe(
      '1',
    );
    const [theirs, ...more] = (await other.frontier.claim({ pod: 'pod-a', max: 10 })).leases;
    expect(more).toEqual([]);
    // Concurrency is the host's across crawls: settle the other crawl's lease first.
    await other.frontier.complete(theirs!);
    const ours = await frontier.claim({ pod: 'pod-a', max: 10, maxPerHost: 10 });
    expect(ours.leases).toHaveLength(1);
    await frontier.setHostPolicy('own.lim-test.com', { concurrency: 10 });
    expect((await frontier.claim({ pod: 'pod-a', max: 10 })).leases).toHaveLength(2);
  });

  it('refuses a limit below 1 (null lifts it)', async () => {
    const { frontier } = make();
    await expect(frontier.setHostPolicy('x.lim-test.com', { crawlLimit: 0 })).rejects.toMatchObject(
      {
        code: 'SHARDLINE_ERR_FRONTIER_ARGUMENT',
      },
    );
  });
});
