/**
 * Claims of packed domains (due-take-3.lua's backlog drain, claim-2.lua's unfolding,
 * index-update-3.lua's 'packed', spill-3.lua), on a single redis-server and a three-master
 * Redis Cluster (packed-domains*.test.ts): every URL leased once through concurrent
 * claimers, a dead claimer or enqueuer, stale updates, ring changes and a dead pod.
 */
import { describe, expect, it } from 'vitest';
import { readArchived } from '../src/domain-reads.js';
import { fingerprint } from '../src/fingerprint.js';
import type { EnqueueItem } from '../src/index.js';
import { type SuiteBackend, suiteConnections } from './frontier-suite.js';
import { member, PIN_MS, packedFixture, sleep } from './packed-fixture.js';

export function describePackedClaims(name: string, start: () => Promise<SuiteBackend>): void {
  describe(`claims of packed domains on ${name}`, () => {
    const connect = suiteConnections(start);
    const { setup, isPacked, claimAll, settleIdle } = packedFixture(connect);

    it('a claim unpacks the domain it reaches: a live domain again, its lease as queued', async () => {
      const { redis, frontier, keys, inspector } = setup();
      const d = 'unpack.example';
      await frontier.enqueue([{ url: `https://${d}/1`, priority: 7, depth: 1, meta: 'x' }]);
      const { leases } = await frontier.claim({ pod: 'pod-a', max: 10 });
      expect(leases).toHaveLength(1);
      expect(leases[0]).toMatchObject({
        url: `https://${d}/1`,
        host: d,
        domain: d,
        priority: 7,
        depth: 1,
        attempt: 1,
        meta: 'x',
        pod: 'pod-a',
      });
      expect(leases[0]!.id.endsWith('/1')).toBe(true);
      // Live now: its keys, its due entry (lease out), back in the domain indexes.
      expect(await redis.exists(keys.domain(d))).toBe(1);
      expect(await redis.hexists(keys.archive(d), d)).toBe(0);
      expect(await redis.llen(keys.backlog('pod-a'))).toBe(0);
      expect(await redis.zscore(keys.due('pod-a'), member(d))).not.toBeNull();
      expect(await redis.zscore(keys.domains(), d)).toBe('0');
      expect(await frontier.stats()).toMatchObject({
        queued: 0,
        inFlight: 1,
        claimed: 1,
        archivedDomains: 0,
      });
      expect(await inspector.domainStats(d)).toMatchObject({
        archived: false,
        queued: 0,
        inFlight: 1,
        claimed: 1,
      });
      expect((await inspector.urlStatus({ url: `https://${d}/1`, host: d, domain: d })).state).toBe(
        'leased',
      );
      await frontier.complete(leases[0]!, { bytes: 10, durationMs: 1 });
      await settleIdle(frontier, redis, keys);
      // Finished: archived again (idle, no queue), out of the indexes.
      expect(await redis.exists(keys.domain(d))).toBe(0);
      expect(await isPacked(redis, keys, d)).toBe(false);
      expect(await inspector.domainStats(d)).toMatchObject({
        archived: true,
        queued: 0,
        fetched: 1,
        bytes: 10,
      });
      expect(await frontier.stats()).toMatchObject({ queued: 0, inFlight: 0, archivedDomains: 1 });
      expect(await inspector.settled()).toBe(true);
    });

    it('concurrent claimers drain a backlog of 300 packed domains, each URL leased once', async () => {
      const { redis, frontier, keys, inspector, prefix } = setup();
      const items: EnqueueItem[] = [];
      const domains: string[] = [];
      for (let i = 0; i < 298; i++) {
        domains.push(`s${i}.example`);
        items.push(`https://s${i}.example/`);
      }
      domains.push('pair.example', 'hosts2.com');
      items.push('https://pair.example/1', 'https://pair.example/2', 'https://pair.example/3');
      items.push(
        'https://hosts2.com/1',
        'https://hosts2.com/2',
        'https://www.hosts2.com/1',
        'https://www.hosts2.com/2',
      );
      const urls = items.map((i) => (typeof i === 'string' ? i : i.url));
      expect((await frontier.enqueue(items)).queued).toBe(305);
      // 301 hosts named in the backlog; nothing in the due index; every domain packed.
      expect(await redis.zcard(keys.due('pod-a'))).toBe(0);
      const names = await redis.lrange(keys.backlog('pod-a'), 0, -1);
      expect(names).toHaveLength(301);
      expect(new Set(names).size).toBe(301);
      expect(names).toContain(member('hosts2.com', 'www.hosts2.com'));
      expect(await inspector.queuedDomainsOf('pod-a')).toEqual([...domains].sort());
      expect(await redis.zcard(keys.domains())).toBe(0);
      expect(await frontier.stats()).toMatchObject({ queued: 305, archivedDomains: 300 });
      expect(await inspector.settled()).toBe(false);

      // Four pods' worth of claimers on the same pod's index, as replicas of one pod.
      const claimers = [frontier, ...[1, 2, 3].map(() => setup({}, prefix).frontier)];
      const counts = new Map<string, number>();
      let total = 0;
      const deadline = Date.now() + 60_000;
      await Promise.all(
        claimers.map(async (f) => {
          while (total < urls.length) {
            if (Date.now() > deadline) throw new Error(`claimed ${total} of ${urls.length}`);
            const { leases } = await f.claim({ pod: 'pod-a', max: 7 });
            if (leases.length === 0) {
              await sleep(5);
              continue;
            }
            for (const l of leases) counts.set(l.url, (counts.get(l.url) ?? 0) + 1);
            total += leases.length;
            const done = await f.completeMany(leases.map((lease) => ({ lease })));
            expect(done.every((e) => e === null)).toBe(true);
          }
        }),
      );
      expect(total).toBe(urls.length);
      expect([...counts.keys()].sort()).toEqual([...urls].sort());
      expect([...counts.values()].every((n) => n === 1)).toBe(true);

      await settleIdle(frontier, redis, keys);
      expect(await redis.llen(keys.backlog('pod-a'))).toBe(0);
      expect(await redis.zcard(keys.due('pod-a'))).toBe(0);
      // Every domain folded again, idle: no live key, no queue in its field.
      for (const d of domains) {
        expect(await redis.exists(keys.domain(d))).toBe(0);
        const archived = await readArchived(redis, keys, d);
        expect(archived).not.toBeNull();
        expect(archived!.queues.size).toBe(0);
        expect(archived!.domain.q).toBe('0');
      }
      expect(await inspector.domainStats('hosts2.com')).toMatchObject({
        archived: true,
        queued: 0,
        fetched: 4,
        hosts: ['hosts2.com', 'www.hosts2.com'],
      });
      expect(await inspector.settled()).toBe(true);
      expect(await redis.zcard(keys.domains())).toBe(0);
      expect(await frontier.stats()).toMatchObject({
        queued: 0,
        inFlight: 0,
        claimed: 305,
        archivedDomains: 300,
      });
    });

    it('a claimer that dies after draining backlog names loses nothing: they are due after the hold', async () => {
      const { redis, frontier, keys } = setup({ claimHoldMs: 200 });
      const due = keys.due('pod-a');
      const backlog = keys.backlog('pod-a');
      await frontier.enqueue([
        { url: 'https://held.example/1', meta: 'm1' },
        'https://held2.example/1',
      ]);
      const names = [member('held.example'), member('held2.example')];
      expect(await redis.lrange(backlog, 0, -1)).toEqual(names);
      // A claimer's due-take (backlog drain on) takes both names, then the claimer dies.
      const take = (await redis.slv3DueTake(
        due,
        keys.dueMeta('pod-a'),
        backlog,
        10,
        200,
        0,
        '1',
      )) as [string, string, ...string[]];
      expect(take.slice(2)).toEqual(names);
      expect(await redis.llen(backlog)).toBe(0);
      const held = Number(take[0]) + 200;
      for (const m of names) expect(Number(await redis.zscore(due, m))).toBe(held);
      // Both domains still packed: the dead claimer never visited them.
      expect(await isPacked(redis, keys, 'held.example')).toBe(true);
      expect(await isPacked(redis, keys, 'held2.example')).toBe(true);
      // The hold keeps the pod's other claimers off them until it ends...
      const early = await frontier.claim({ pod: 'pod-a', max: 10 });
      if (early.leases.length === 0) {
        expect(early.nowMs).toBeLessThan(held);
        expect(early.nextDueAtMs).toBe(held);
      }
      // ...then a claim gets both URLs, once each.
      const leases = [...early.leases];
      if (early.leases.length > 0)
        await frontier.completeMany(early.leases.map((lease) => ({ lease })));
      leases.push(...(await claimAll(frontier, 'pod-a', 2 - leases.length)));
      expect(leases.map((l) => l.url).sort()).toEqual([
        'https://held.example/1',
        'https://held2.example/1',
      ]);
      expect(leases.find((l) => l.domain === 'held.example')!.meta).toBe('m1');
      await settleIdle(frontier, redis, keys);
      expect(await frontier.stats()).toMatchObject({ queued: 0, inFlight: 0 });
    });

    it('an enqueuer that dies between its packing script and its index update loses nothing', async () => {
      const { redis, frontier, keys } = setup();
      const d = 'crashpack.example';
      const m = member(d);
      const due = keys.due('pod-a');
      const meta = keys.dueMeta('pod-a');
      const backlog = keys.backlog('pod-a');
      const url = `https://${d}/lost`;
      // The enqueuer pins the host (seq -1), runs its domain script with packing on...
      await redis.slv3IndexUpdate(due, meta, backlog, '', PIN_MS, m, -1, '');
      const reply = (await redis.slv3Enqueue(
        keys.domain(d),
        keys.hosts(d),
        keys.root(d),
        0,
        1,
        0,
        0,
        keys.archive(d),
        200,
        63,
        '1',
        d,
        fingerprint(url),
        4,
        `3,0,4,meta${url}`,
      )) as unknown[];
      expect(reply[0]).toBe('q');
      expect(reply[2]).toBe('packed');
      expect(reply[3]).toBe(d);
      expect(reply[5]).toBe('packed');
      // ...and dies before its 'packed' update: the domain is packed, the backlog empty, and
      // the pinned entry is all that leads to it.
      expect(await isPacked(redis, keys, d)).toBe(true);
      expect(await redis.llen(backlog)).toBe(0);
      expect(await redis.zscore(due, m)).not.toBeNull();
      // The pinned entry's claim unpacks the domain and leases the URL.
      const [lease, ...rest] = await claimAll(frontier, 'pod-a', 1);
      expect(rest).toEqual([]);
      expect(lease).toMatchObject({ url, domain: d, host: d, priority: 4, depth: 3, meta: 'meta' });
      expect(await redis.hexists(keys.archive(d), d)).toBe(0);
      await settleIdle(frontier, redis, keys);
      // It was seen: the same URL again is a duplicate.
      expect((await frontier.enqueue([url])).duplicates).toBe(1);
    });

    it("a stale 'packed' update does not drop the entry of a later script that made the host live", async () => {
      const { redis, frontier, keys } = setup();
      const d = 'stale.example';
      const m = member(d);
      const due = keys.due('pod-a');
      const meta = keys.dueMeta('pod-a');
      const backlog = keys.backlog('pod-a');
      const url = (i: number) => `https://${d}/${i}`;
      await frontier.enqueue([url(0)]);
      // The seq the packing enqueue sent with its 'packed' update.
      const packedSeq = (await readArchived(redis, keys, d))!.hosts.get(d)!.seq!;
      expect(Number(packedSeq)).toBeGreaterThan(0);
      // A later enqueue unpacks it for good (9 URLs on the host): a newer seq is applied.
      await frontier.enqueue([1, 2, 3, 4, 5, 6, 7, 8].map(url));
      expect(await redis.exists(keys.domain(d))).toBe(1);
      const liveMeta = (await redis.hget(meta, m))!;
      expect(Number(liveMeta.split(':')[0])).toBeGreaterThan(Number(packedSeq));
      const score = await redis.zscore(due, m);
      expect(score).not.toBeNull();
      const names = await redis.lrange(backlog, 0, -1);
      // The first enqueue's 'packed' update arrives late (older seq): nothing moves.
      await redis.slv3IndexUpdate(due, meta, backlog, '', PIN_MS, m, packedSeq, 'packed');
      expect(await redis.zscore(due, m)).toBe(score);
      expect(await redis.hget(meta, m)).toBe(liveMeta);
      expect(await redis.lrange(backlog, 0, -1)).toEqual(names);
      const leases = await claimAll(frontier, 'pod-a', 9);
      expect(leases.map((l) => l.url)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8].map(url));
      await settleIdle(frontier, redis, keys);
    });

    it("ring change: reindex names a packed domain in the new owner's backlog; the old pod forwards its stale name", async () => {
      const { redis, frontier, keys, at } = setup();
      const d = 'moved.example';
      const m = member(d);
      await frontier.enqueue([`https://${d}/1`]);
      expect(await redis.lrange(keys.backlog('pod-a'), 0, -1)).toEqual([m]);
      at.owner = 'pod-b';
      await frontier.reindex(d);
      expect(await redis.lrange(keys.backlog('pod-b'), 0, -1)).toEqual([m]);
      expect(await redis.zscore(keys.due('pod-a'), m)).toBeNull();
      expect(await redis.zscore(keys.due('pod-b'), m)).toBeNull();
      expect(await isPacked(redis, keys, d)).toBe(true);
      // The new owner's claim unpacks and leases it.
      const leases = await claimAll(frontier, 'pod-b', 1);
      expect(leases.map((l) => l.url)).toEqual([`https://${d}/1`]);
      expect(leases[0]!.pod).toBe('pod-b');
      // The old owner still names it: its claim forwards the name and leases nothing.
      expect(await redis.lrange(keys.backlog('pod-a'), 0, -1)).toEqual([m]);
      expect((await frontier.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);
      await frontier.forwarded();
      expect(frontier.backgroundErrors).toMatchObject({ forward: 0 });
      expect(await redis.llen(keys.backlog('pod-a'))).toBe(0);
      expect(await redis.zscore(keys.due('pod-a'), m)).toBeNull();
      await settleIdle(frontier, redis, keys, 'pod-b');
      await settleIdle(frontier, redis, keys, 'pod-a');
      expect(await frontier.stats()).toMatchObject({ queued: 0, inFlight: 0, claimed: 1 });
    });

    it('ring change: the old pod drains its stale name while the domain is still packed; leased once', async () => {
      const { redis, frontier, keys, at } = setup();
      const d = 'moved2.example';
      const m = member(d);
      await frontier.enqueue([`https://${d}/1`]);
      at.owner = 'pod-b';
      await frontier.reindex(d);
      // The old owner drains first: nothing leased, forwarded to pod-b (announced again).
      expect((await frontier.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);
      await frontier.forwarded();
      expect(await isPacked(redis, keys, d)).toBe(true);
      expect(await redis.llen(keys.backlog('pod-a'))).toBe(0);
      expect(await redis.zcard(keys.due('pod-a'))).toBe(0);
      const names = await redis.lrange(keys.backlog('pod-b'), 0, -1);
      expect(names.length).toBeGreaterThanOrEqual(1);
      expect(new Set(names)).toEqual(new Set([m]));
      const leases = await claimAll(frontier, 'pod-b', 1);
      expect(leases.map((l) => l.url)).toEqual([`https://${d}/1`]);
      await settleIdle(frontier, redis, keys, 'pod-b');
      await settleIdle(frontier, redis, keys, 'pod-a');
      expect(await frontier.stats()).toMatchObject({ queued: 0, inFlight: 0, claimed: 1 });
    });

    it("a dead pod's backlog is spilled into its index, reindexed to the new owner, and the pod forgotten", async () => {
      const { redis, frontier, keys, inspector, at } = setup();
      const domains = ['dead1.example', 'dead2.example', 'dead3.example', 'dead4.com'];
      await frontier.enqueue([...domains.map((d) => `https://${d}/1`), 'https://www.dead4.com/1']);
      const names = [...domains.map((d) => member(d)), member('dead4.com', 'www.dead4.com')];
      expect(await redis.lrange(keys.backlog('pod-a'), 0, -1)).toEqual(names);
      expect(await redis.zcard(keys.due('pod-a'))).toBe(0);
      // An index with a backlog is not forgotten.
      expect(await frontier.forgetPod('pod-a')).toBe(false);
      expect(await inspector.pods()).toContain('pod-a');

      expect(await frontier.spillBacklog('pod-a')).toBe(5);
      expect(await redis.llen(keys.backlog('pod-a'))).toBe(0);
      expect((await redis.zrange(keys.due('pod-a'), 0, -1)).sort()).toEqual([...names].sort());
      for (const d of domains) expect(await isPacked(redis, keys, d)).toBe(true);
      expect(await frontier.forgetPod('pod-a')).toBe(false);

      at.owner = 'pod-b';
      const queued = await inspector.queuedDomainsOf('pod-a');
      expect(queued).toEqual(domains);
      for (const d of queued) await frontier.reindex(d, { evictFrom: 'pod-a' });
      expect(await redis.zcard(keys.due('pod-a'))).toBe(0);
      expect(await redis.llen(keys.backlog('pod-a'))).toBe(0);
      expect((await redis.lrange(keys.backlog('pod-b'), 0, -1)).sort()).toEqual([...names].sort());
      expect(await frontier.forgetPod('pod-a')).toBe(true);
      expect(await inspector.pods()).not.toContain('pod-a');

      const leases = await claimAll(frontier, 'pod-b', 5);
      expect(leases.map((l) => l.url).sort()).toEqual(
        [...domains.map((d) => `https://${d}/1`), 'https://www.dead4.com/1'].sort(),
      );
      await settleIdle(frontier, redis, keys, 'pod-b');
      expect(await frontier.stats()).toMatchObject({ queued: 0, inFlight: 0, claimed: 5 });
      expect(await inspector.settled()).toBe(true);
    });
  });
}
