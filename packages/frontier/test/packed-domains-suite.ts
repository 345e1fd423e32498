/**
 * Packed new domains (`packNewDomains`, lua/includes/archive.lua), run on a single
 * redis-server and on a three-master Redis Cluster (packed-domains*.test.ts): a new small
 * domain is folded with its queue into its archive field and named in its owner's backlog
 * instead of its due index. This suite: the layout, what readers see, the limits, options,
 * crawls and bytes; packed-claims-suite.ts: claims, crashes, ring changes and dead pods.
 */
import { describe, expect, it } from 'vitest';
import { type SuiteBackend, suiteConnections } from './frontier-suite.js';
import { member, packedFixture } from './packed-fixture.js';

export function describePackedDomains(name: string, start: () => Promise<SuiteBackend>): void {
  describe(`packed new domains on ${name}`, () => {
    const connect = suiteConnections(start);
    const { setup, isPacked, claimAll, settleIdle } = packedFixture(connect);

    it('packs a new 1-URL domain into its archive field and names its host in the backlog', async () => {
      const { redis, frontier, keys, inspector } = setup();
      const report = await frontier.enqueue([
        { url: 'https://one.example/a', priority: 3, depth: 2, meta: 'ref' },
        'https://two.example/b',
      ]);
      expect(report.queued).toBe(2);
      for (const d of ['one.example', 'two.example']) {
        // No live key of its own: no counter hash, hosts set, seen bucket or host hash.
        expect(await redis.exists(keys.domain(d))).toBe(0);
        expect(await redis.exists(keys.hosts(d))).toBe(0);
        expect(await redis.exists(keys.seenBucket(d, 0))).toBe(0);
        expect(await redis.exists(keys.hostState(d, d))).toBe(0);
        expect(await redis.hexists(keys.archive(d), keys.archiveField(d))).toBe(1);
        expect(await isPacked(redis, keys, d)).toBe(true);
        // Not in the due index (the enqueue's pin was dropped for the backlog name), nor
        // in the domain indexes.
        expect(await redis.zscore(keys.due('pod-a'), member(d))).toBeNull();
        expect(await redis.hexists(keys.dueMeta('pod-a'), member(d))).toBe(0);
        expect(await redis.zscore(keys.domains(), d)).toBeNull();
        expect(await redis.zscore(keys.domainsByFetched(), d)).toBeNull();
      }
      expect(await redis.zcard(keys.due('pod-a'))).toBe(0);
      expect(await redis.lrange(keys.backlog('pod-a'), 0, -1)).toEqual([
        member('one.example'),
        member('two.example'),
      ]);
      expect(await inspector.backlogLength('pod-a')).toBe(2);
      expect(await inspector.backlogHosts('pod-a')).toEqual([
        { domain: 'one.example', host: 'one.example' },
        { domain: 'two.example', host: 'two.example' },
      ]);
      expect(await frontier.stats()).toMatchObject({ queued: 2, enqueued: 2, archivedDomains: 2 });
      expect(await inspector.domainCount()).toBe(2);
      expect(await inspector.listedDomainCount()).toBe(0);
      expect(await inspector.hasDomain('one.example')).toBe(true);
      expect(await inspector.domainHosts('one.example')).toEqual(['one.example']);
      expect(await inspector.queuedDomainsOf('pod-a')).toEqual(['one.example', 'two.example']);
      expect(await inspector.settled()).toBe(false);

      expect(await inspector.domainStats('one.example')).toMatchObject({
        archived: true,
        queued: 1,
        inFlight: 0,
        enqueued: 1,
        seen: 1,
        fetched: 0,
        hosts: ['one.example'],
      });
      const queued = {
        url: 'https://one.example/a',
        host: 'one.example',
        domain: 'one.example',
        priority: 3,
        depth: 2,
        attempt: 0,
        meta: 'ref',
      };
      expect(await inspector.hostQueue('one.example', 'one.example')).toEqual([queued]);
      expect(await inspector.queueHead('one.example', 'one.example')).toEqual(queued);
      expect(await inspector.queueHead('one.example', 'www.one.example')).toBeNull();
      const at = (url: string) => ({ url, host: 'one.example', domain: 'one.example' });
      expect(await inspector.urlStatus(at('https://one.example/a'))).toEqual({
        ...at('https://one.example/a'),
        state: 'queued',
        priority: 3,
        meta: 'ref',
      });
      expect((await inspector.urlStatus(at('https://one.example/zzz'))).state).toBe('unseen');

      // A duplicate is answered from the packed field: nothing queued, the field unchanged.
      const field = await redis.hgetBuffer(keys.archive('one.example'), 'one.example');
      const again = await frontier.enqueue(['https://one.example/a']);
      expect(again).toMatchObject({ queued: 0, duplicates: 1 });
      expect(again.results[0]!.status).toBe('duplicate');
      expect(await redis.hgetBuffer(keys.archive('one.example'), 'one.example')).toEqual(field);
      expect(await redis.exists(keys.domain('one.example'))).toBe(0);
      expect(await redis.llen(keys.backlog('pod-a'))).toBe(2);
      expect(await frontier.stats()).toMatchObject({
        queued: 2,
        duplicates: 1,
        archivedDomains: 2,
      });
      expect((await inspector.domainStats('one.example')).queued).toBe(1);
    });

    it('a packed domain that gets more URLs stays packed while small, goes live once it outgrows the fold', async () => {
      const { redis, frontier, keys, inspector } = setup();
      const d = 'grow.example';
      const url = (i: number) => `https://${d}/${i}`;
      await frontier.enqueue([url(0)]);
      expect(await isPacked(redis, keys, d)).toBe(true);
      // More URLs while packed: unfolded, pushed and packed again in the same script.
      const more = await frontier.enqueue([
        { url: url(1), priority: 5 },
        { url: url(2), priority: -1 },
      ]);
      expect(more.queued).toBe(3 - 1);
      expect(await isPacked(redis, keys, d)).toBe(true);
      expect(await redis.zscore(keys.due('pod-a'), member(d))).toBeNull();
      const names = await redis.lrange(keys.backlog('pod-a'), 0, -1);
      expect(names.length).toBeGreaterThanOrEqual(1);
      expect(new Set(names)).toEqual(new Set([member(d)]));
      expect((await inspector.hostQueue(d, d)).map((u) => [u.url, u.priority])).toEqual([
        [url(1), 5],
        [url(0), 0],
        [url(2), -1],
      ]);
      expect(await inspector.domainStats(d)).toMatchObject({ archived: true, queued: 3 });
      expect(await frontier.stats()).toMatchObject({ queued: 3, archivedDomains: 1 });

      // 10 URLs on one host: more than a folded queue holds (8), so the domain goes live.
      await frontier.enqueue([3, 4, 5, 6, 7, 8, 9].map(url));
      expect(await redis.exists(keys.domain(d))).toBe(1);
      expect(await redis.hexists(keys.archive(d), d)).toBe(0);
      expect(await redis.zscore(keys.due('pod-a'), member(d))).not.toBeNull();
      expect(await redis.zscore(keys.domains(), d)).toBe('10');
      expect(await frontier.stats()).toMatchObject({ queued: 10, archivedDomains: 0 });
      expect(await inspector.domainStats(d)).toMatchObject({
        archived: false,
        queued: 10,
        enqueued: 10,
      });

      // Every URL once, in priority order (FIFO within a level).
      const leases = await claimAll(frontier, 'pod-a', 10);
      expect(leases.map((l) => l.url)).toEqual([1, 0, 3, 4, 5, 6, 7, 8, 9, 2].map(url));
      await settleIdle(frontier, redis, keys);
      expect(await frontier.stats()).toMatchObject({ queued: 0, inFlight: 0 });
    });

    it('dropHost on a packed domain deletes its queued URLs, which stay seen', async () => {
      const { redis, frontier, keys, inspector } = setup();
      const d = 'drop.example';
      const urls = [1, 2, 3].map((i) => `https://${d}/${i}`);
      await frontier.enqueue([...urls, 'https://keep.com/1', 'https://www.keep.com/1']);
      expect(await isPacked(redis, keys, d)).toBe(true);
      expect(await isPacked(redis, keys, 'keep.com')).toBe(true);

      expect(await frontier.dropHost(d)).toBe(3);
      expect(await inspector.domainStats(d)).toMatchObject({ queued: 0, enqueued: 3, seen: 3 });
      expect(await inspector.hostQueue(d, d)).toEqual([]);
      expect((await inspector.urlStatus({ url: urls[0]!, host: d, domain: d })).state).toBe('done');
      // One host of a two-host packed domain: the other keeps its URL.
      expect(await frontier.dropHost('www.keep.com')).toBe(1);
      expect(await inspector.domainStats('keep.com')).toMatchObject({ queued: 1 });
      expect(await frontier.stats()).toMatchObject({ queued: 1, dropped: 4 });

      // The claim of the backlog gets only keep.com's URL.
      const leases = await claimAll(frontier, 'pod-a', 1);
      expect(leases.map((l) => l.url)).toEqual(['https://keep.com/1']);
      await settleIdle(frontier, redis, keys);
      expect(await inspector.domainStats(d)).toMatchObject({
        archived: true,
        queued: 0,
        fetched: 0,
      });
      expect(await frontier.stats()).toMatchObject({ queued: 0, inFlight: 0, claimed: 1 });
      // Still seen: enqueued again, they are duplicates.
      const again = await frontier.enqueue([...urls, 'https://www.keep.com/1']);
      expect(again).toMatchObject({ queued: 0, duplicates: 4 });
      expect(await frontier.stats()).toMatchObject({ queued: 0 });
    });

    it('an archived domain that gets a new small batch is packed again', async () => {
      const { redis, frontier, keys, inspector } = setup();
      const d = 'again.example';
      await frontier.enqueue([`https://${d}/1`]);
      await claimAll(frontier, 'pod-a', 1);
      await settleIdle(frontier, redis, keys);
      expect(await redis.hexists(keys.archive(d), d)).toBe(1);
      expect(await isPacked(redis, keys, d)).toBe(false);
      expect(await frontier.stats()).toMatchObject({ archivedDomains: 1 });

      const report = await frontier.enqueue([`https://${d}/1`, `https://${d}/2`]);
      expect(report).toMatchObject({ queued: 1, duplicates: 1 });
      expect(await isPacked(redis, keys, d)).toBe(true);
      expect(await redis.lrange(keys.backlog('pod-a'), 0, -1)).toEqual([member(d)]);
      expect(await redis.zscore(keys.domains(), d)).toBeNull();
      expect(await frontier.stats()).toMatchObject({ queued: 1, archivedDomains: 1 });
      expect(await inspector.domainStats(d)).toMatchObject({
        archived: true,
        queued: 1,
        fetched: 1,
        enqueued: 2,
      });
      const [lease] = await claimAll(frontier, 'pod-a', 1);
      expect(lease!.url).toBe(`https://${d}/2`);
      // Lease ids go on from the archived counter.
      expect(lease!.id.endsWith('/2')).toBe(true);
      await settleIdle(frontier, redis, keys);
      expect(await inspector.domainStats(d)).toMatchObject({ archived: true, fetched: 2 });
    });

    it('packs only within the limits: 8 hosts, 8 URLs per host, 1024 B in all', async () => {
      const { redis, frontier, keys } = setup();
      const hosts = (d: string, n: number) =>
        Array.from({ length: n }, (_, i) => (i === 0 ? `https://${d}/` : `https://h${i}.${d}/`));
      await frontier.enqueue([
        ...hosts('eight.com', 8),
        ...hosts('nine.com', 9),
        ...Array.from({ length: 8 }, (_, i) => `https://full.example/${i}`),
        // One host's queue of 450 B of meta folds and packs...
        { url: 'https://onebig.example/1', meta: 'z'.repeat(450) },
        // ...but two such hosts together pass 1024 B.
        { url: 'https://big.com/1', meta: 'x'.repeat(450) },
        { url: 'https://www.big.com/1', meta: 'y'.repeat(450) },
      ]);
      expect(await isPacked(redis, keys, 'eight.com')).toBe(true);
      expect(await isPacked(redis, keys, 'full.example')).toBe(true);
      expect(await isPacked(redis, keys, 'onebig.example')).toBe(true);
      expect(await isPacked(redis, keys, 'nine.com')).toBe(false);
      expect(await isPacked(redis, keys, 'big.com')).toBe(false);
      expect(await redis.exists(keys.domain('nine.com'))).toBe(1);
      expect(await redis.exists(keys.domain('big.com'))).toBe(1);
      expect(await redis.zscore(keys.due('pod-a'), member('nine.com'))).not.toBeNull();
      expect(
        await redis.zscore(keys.due('pod-a'), member('big.com', 'www.big.com')),
      ).not.toBeNull();
      const backlog = await redis.lrange(keys.backlog('pod-a'), 0, -1);
      expect(backlog).toHaveLength(8 + 1 + 1);
      expect(backlog.filter((m) => m.startsWith('eight.com/'))).toHaveLength(8);
      expect(backlog).toContain(member('full.example'));
      const leases = await claimAll(frontier, 'pod-a', 8 + 9 + 8 + 1 + 2);
      expect(new Set(leases.map((l) => l.url)).size).toBe(28);
      await settleIdle(frontier, redis, keys);
    });

    it('packNewDomains: false and archiveIdleDomains: false keep new domains live', async () => {
      for (const options of [{ packNewDomains: false }, { archiveIdleDomains: false }]) {
        const { redis, frontier, keys, inspector } = setup(options);
        const d = 'live.example';
        await frontier.enqueue([`https://${d}/1`]);
        expect(await redis.exists(keys.domain(d))).toBe(1);
        expect(await redis.exists(keys.hostState(d, d))).toBe(1);
        expect(await redis.hexists(keys.archive(d), d)).toBe(0);
        expect(await redis.zscore(keys.due('pod-a'), member(d))).not.toBeNull();
        expect(await redis.llen(keys.backlog('pod-a'))).toBe(0);
        expect(await redis.zscore(keys.domains(), d)).toBe('1');
        expect(await inspector.domainStats(d)).toMatchObject({ archived: false, queued: 1 });
        expect(await frontier.stats()).toMatchObject({ queued: 1 });
        expect((await frontier.stats()).archivedDomains ?? 0).toBe(0);
      }
    });

    it('packAfterDomains: new domains stay live until the depth index lists that many', async () => {
      const { redis, frontier, keys } = setup({ packAfterDomains: 2 });
      await frontier.enqueue(['https://first.example/1', 'https://second.example/1']);
      for (const d of ['first.example', 'second.example']) {
        expect(await redis.exists(keys.domain(d))).toBe(1);
      }
      expect(await redis.zcard(keys.domains())).toBe(2);
      await frontier.enqueue(['https://third.example/1']);
      expect(await isPacked(redis, keys, 'third.example')).toBe(true);
      expect(await redis.lrange(keys.backlog('pod-a'), 0, -1)).toEqual([member('third.example')]);
    });

    it("a crawl packs under its own field; the default crawl's same domain is independent", async () => {
      const wide = setup({ crawlId: 'wide' });
      const base = setup({}, wide.prefix);
      const d = 'crawl.example';
      const url = `https://${d}/1`;
      const redis = wide.redis;
      expect(wide.keys.archiveField(d)).toBe(`c:wide:${d}`);
      expect(wide.keys.archive(d)).toBe(base.keys.archive(d));

      expect((await wide.frontier.enqueue([{ url, meta: 'w' }])).queued).toBe(1);
      expect(await isPacked(redis, wide.keys, d)).toBe(true);
      expect(await redis.hexists(base.keys.archive(d), d)).toBe(0);
      expect(await redis.lrange(wide.keys.backlog('pod-a'), 0, -1)).toEqual([member(d)]);
      expect(await redis.llen(base.keys.backlog('pod-a'))).toBe(0);
      expect(wide.keys.backlog('pod-a')).not.toBe(base.keys.backlog('pod-a'));

      // The same URL in the default crawl: not a duplicate there, packed under the plain field.
      expect((await base.frontier.enqueue([{ url, meta: 'b' }])).queued).toBe(1);
      expect(await isPacked(redis, base.keys, d)).toBe(true);
      expect(await redis.hexists(base.keys.archive(d), `c:wide:${d}`)).toBe(1);
      expect(await wide.inspector.domainStats(d)).toMatchObject({ archived: true, queued: 1 });
      expect(await base.inspector.domainStats(d)).toMatchObject({ archived: true, queued: 1 });
      expect((await wide.inspector.queueHead(d, d))!.meta).toBe('w');
      expect((await base.inspector.queueHead(d, d))!.meta).toBe('b');

      // The default crawl's claim unpacks only its own domain.
      const [b] = await claimAll(base.frontier, 'pod-a', 1);
      expect(b).toMatchObject({ url, meta: 'b' });
      expect(await isPacked(redis, wide.keys, d)).toBe(true);
      expect(await redis.exists(base.keys.domain(d))).toBe(1);
      expect(await redis.exists(wide.keys.domain(d))).toBe(0);
      const [w] = await claimAll(wide.frontier, 'pod-a', 1);
      expect(w).toMatchObject({ url, meta: 'w' });
      await settleIdle(base.frontier, redis, base.keys);
      await settleIdle(wide.frontier, redis, wide.keys);
      expect(await wide.frontier.stats()).toMatchObject({ queued: 0, claimed: 1 });
      expect(await base.frontier.stats()).toMatchObject({ queued: 0, claimed: 1 });
    });

    it('meta of any bytes, priority and depth survive pack, unpack and lease', async () => {
      const { redis, frontier, keys, inspector } = setup();
      const d = 'meta.example';
      const items = [
        { url: `https://${d}/a`, priority: 42, depth: 5, meta: 'a,b;c=d\n\ne=f;;,\n=' },
        { url: `https://${d}/b`, priority: -7, depth: 0, meta: '\n\n' },
        { url: `https://${d}/c`, priority: 0, depth: 9, meta: '=;,\n\n\n 12,34,é中🙂' },
        { url: `https://${d}/d`, priority: 0, depth: 1 },
      ];
      expect((await frontier.enqueue(items)).queued).toBe(4);
      expect(await isPacked(redis, keys, d)).toBe(true);
      const order = [items[0]!, items[2]!, items[3]!, items[1]!];
      const expected = order.map((i) => ({
        url: i.url,
        host: d,
        domain: d,
        priority: i.priority,
        depth: i.depth,
        meta: i.meta ?? '',
      }));
      expect(await inspector.hostQueue(d, d)).toEqual(expected.map((e) => ({ ...e, attempt: 0 })));
      for (const e of expected) {
        expect(await inspector.urlStatus({ url: e.url, host: d, domain: d })).toMatchObject({
          state: 'queued',
          priority: e.priority,
          meta: e.meta,
        });
      }
      const leases = await claimAll(frontier, 'pod-a', 4);
      expect(
        leases.map(({ url, host, domain, priority, depth, meta }) => ({
          url,
          host,
          domain,
          priority,
          depth,
          meta,
        })),
      ).toEqual(expected);
      expect(leases.every((l) => l.attempt === 1)).toBe(true);
      await settleIdle(frontier, redis, keys);
    });
  });
}
