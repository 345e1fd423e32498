/**
 * Archived domains (lua/includes/archive.lua, `archiveIdleDomains`), run on a single
 * redis-server and on a three-master Redis Cluster (archive*.test.ts): the archive hash
 * shares the domain's slot through a tag picked for that slot, so a fold or unfold is one
 * script on one node.
 */

import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CrawlRegistry,
  FrontierInspector,
  type FrontierOptions,
  RedisFrontier,
} from '../src/index.js';
import { FrontierKeys } from '../src/keys.js';
import { LIVE_LAYOUT } from './frontier-fixture.js';
import { type Client, type SuiteBackend, suiteConnections } from './frontier-suite.js';

const PIN_MS = 60;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function describeArchive(name: string, start: () => Promise<SuiteBackend>): void {
  describe(`archived domains on ${name}`, () => {
    const connect = suiteConnections(start);
    const setup = (options: Partial<FrontierOptions> = {}) => {
      const prefix = `a${randomUUID().slice(0, 8)}`;
      const redis = connect();
      const frontier = new RedisFrontier({
        redis,
        prefix,
        ownerOf: () => 'pod-a',
        defaultDelayMs: 0,
        pinMs: PIN_MS,
        ...LIVE_LAYOUT,
        ...options,
      });
      const keys = new FrontierKeys(prefix, options.crawlId);
      const inspector = new FrontierInspector({
        redis: connect(),
        prefix,
        ...(options.crawlId ? { crawlId: options.crawlId } : {}),
      });
      return { redis, frontier, keys, inspector, prefix };
    };
    /** Claims and completes everything, then lets the pins lapse and claims once more (the parking visit). */
    const finish = async (frontier: RedisFrontier) => {
      for (;;) {
        const { leases } = await frontier.claim({ pod: 'pod-a', max: 100 });
        if (leases.length === 0) break;
        await frontier.completeMany(
          leases.map((lease) => ({ lease, result: { bytes: 1000, durationMs: 5 } })),
        );
      }
      await sleep(PIN_MS + 40);
      expect((await frontier.claim({ pod: 'pod-a', max: 100 })).leases).toEqual([]);
    };
    /** How many of the domain's own keys exist (counter hash, hosts, first seen bucket, host hashes). */
    const liveKeys = async (redis: Client, keys: FrontierKeys, domain: string, hosts: string[]) => {
      const names = [
        keys.domain(domain),
        keys.hosts(domain),
        keys.seenBucket(domain, 0),
        ...hosts.map((h) => keys.hostState(domain, h)),
      ];
      let n = 0;
      for (const k of names) n += await redis.exists(k);
      return n;
    };

    it('folds a finished small domain into one archive field and takes it off the indexes', async () => {
      const { redis, frontier, keys, inspector } = setup();
      const hosts = ['foldtest.com', 'www.foldtest.com'];
      await frontier.enqueue([
        'https://foldtest.com/1',
        'https://foldtest.com/2',
        'https://www.foldtest.com/1',
      ]);
      // Counter hash, the second host's set entry, two host hashes (3 URLs seen: inline, no bucket).
      expect(await liveKeys(redis, keys, 'foldtest.com', hosts)).toBe(4);
      await finish(frontier);

      expect(await liveKeys(redis, keys, 'foldtest.com', hosts)).toBe(0);
      expect(await redis.hexists(keys.archive('foldtest.com'), 'foldtest.com')).toBe(1);
      // A ring change's reindex has nothing to place and leaves no key behind.
      await frontier.reindex('foldtest.com');
      expect(await liveKeys(redis, keys, 'foldtest.com', hosts)).toBe(0);
      expect(await redis.zcard(keys.due('pod-a'))).toBe(0);
      expect(await redis.zscore(keys.domains(), 'foldtest.com')).toBeNull();
      expect(await redis.zscore(keys.domainsByFetched(), 'foldtest.com')).toBeNull();
      expect(await redis.hget(keys.stats(), 'archivedDomains')).toBe('1');
      // Read as before, from the archive.
      expect(await inspector.hasDomain('foldtest.com')).toBe(true);
      expect(await inspector.domainCount()).toBe(1);
      expect(await inspector.domainHosts('foldtest.com')).toEqual(hosts);
      expect(await inspector.domainStats('foldtest.com')).toMatchObject({
        archived: true,
        queued: 0,
        inFlight: 0,
        fetched: 3,
        seen: 3,
        enqueued: 3,
        claimed: 3,
        bytes: 3000,
        hosts,
      });
      expect(await inspector.hostState('foldtest.com', 'foldtest.com')).toMatchObject({
        queued: 0,
        fetched: 2,
      });
      const at = (url: string) => ({ url, host: 'foldtest.com', domain: 'foldtest.com' });
      expect((await inspector.urlStatus(at('https://foldtest.com/2'))).state).toBe('done');
      expect((await inspector.urlStatus(at('https://foldtest.com/9'))).state).toBe('unseen');
    });

    it('unfolds on the next enqueue: seen URLs stay duplicates, counts and lease ids go on', async () => {
      const { redis, frontier, keys, inspector } = setup();
      const urls = Array.from({ length: 20 }, (_, i) => `https://unfoldtest.com/${i}`);
      await frontier.enqueue(urls);
      await finish(frontier);
      expect(await redis.hexists(keys.archive('unfoldtest.com'), 'unfoldtest.com')).toBe(1);

      const again = await frontier.enqueue([...urls, 'https://unfoldtest.com/new']);
      expect(again.duplicates).toBe(20);
      expect(again.queued).toBe(1);
      expect(await redis.hexists(keys.archive('unfoldtest.com'), 'unfoldtest.com')).toBe(0);
      expect(await redis.zscore(keys.domainsByFetched(), 'unfoldtest.com')).toBe('20');
      expect(await redis.hget(keys.stats(), 'archivedDomains')).toBe('0');
      expect(await inspector.domainStats('unfoldtest.com')).toMatchObject({
        archived: false,
        queued: 1,
        fetched: 20,
        seen: 21,
        enqueued: 21,
      });
      const { leases } = await frontier.claim({ pod: 'pod-a', max: 10 });
      expect(leases.map((l) => l.url)).toEqual(['https://unfoldtest.com/new']);
      // Lease ids continue from the archived counter: an old id never names a new lease.
      expect(leases[0]!.id.endsWith('/21')).toBe(true);
      await frontier.completeMany(leases.map((lease) => ({ lease })));
      await sleep(PIN_MS + 40);
      await frontier.claim({ pod: 'pod-a', max: 10 });
      expect(await inspector.domainStats('unfoldtest.com')).toMatchObject({
        archived: true,
        fetched: 21,
        seen: 21,
      });
    });

    it('answers links it saw from the archive, and folds again after URLs it refused', async () => {
      const { redis, frontier, keys, inspector } = setup({ maxAcceptedPerDomain: 3 });
      const d = 'seen-again.com';
      const urls = [1, 2, 3].map((i) => `https://${d}/${i}`);
      await frontier.enqueue(urls);
      await finish(frontier);
      expect(await redis.hexists(keys.archive(d), d)).toBe(1);
      // Links the domain saw: duplicates, and the domain stays folded (no key of its own).
      const again = await frontier.enqueue([urls[2]!, urls[0]!]);
      expect(again.duplicates).toBe(2);
      expect(await redis.exists(keys.domain(d))).toBe(0);
      expect(await redis.hexists(keys.archive(d), d)).toBe(1);
      // A new link over the domain's accept cap: unfolded to judge it, refused, folded again.
      const over = await frontier.enqueue([`https://${d}/4`, urls[1]!]);
      expect(over.overCap).toBe(1);
      expect(over.duplicates).toBe(1);
      expect(await redis.exists(keys.domain(d))).toBe(0);
      expect(await redis.hexists(keys.archive(d), d)).toBe(1);
      expect(await redis.hget(keys.stats(), 'archivedDomains')).toBe('1');
      expect(await redis.zscore(keys.domainsByFetched(), d)).toBeNull();
      expect(await inspector.domainStats(d)).toMatchObject({
        archived: true,
        fetched: 3,
        seen: 3,
        overCap: 1,
      });
    });

    it('keeps a domain live while anything is left: dead letters, a refetch, leases out', async () => {
      const { redis, frontier, keys } = setup({ maxRetries: 0, leaseTimeoutMs: 0 });
      await frontier.enqueue([
        'https://dead.example/1',
        { url: 'https://later.example/1', refetchAfterMs: 3_600_000 },
        'https://out.example/1',
        'https://out.example/2',
      ]);
      const { leases } = await frontier.claim({ pod: 'pod-a', max: 10, maxPerHost: 1 });
      for (const lease of leases) {
        if (lease.domain === 'dead.example')
          await frontier.fail(lease, { reason: 'gone', retryable: false });
        else if (lease.domain === 'later.example') await frontier.complete(lease);
      }
      await sleep(PIN_MS + 40);
      await frontier.claim({ pod: 'pod-a', max: 10, maxPerHost: 1 });
      for (const d of ['dead.example', 'later.example', 'out.example']) {
        expect(await redis.exists(keys.domain(d))).toBe(1);
        expect(await redis.hexists(keys.archive(d), d)).toBe(0);
      }
    });

    it('a host policy stays live (every crawl reads it); the rest folds and comes back', async () => {
      const { redis, frontier, keys, inspector } = setup();
      await frontier.enqueue(['https://polite.example/1']);
      await frontier.setHostPolicy('polite.example', { delayMs: 40 });
      await finish(frontier);
      const skey = keys.hostState('polite.example', 'polite.example');
      expect(await redis.hgetall(skey)).toEqual({ dl: '40' });
      expect(await redis.hexists(keys.archive('polite.example'), 'polite.example')).toBe(1);
      expect(await inspector.hostState('polite.example', 'polite.example')).toMatchObject({
        delayMs: 40,
        fetched: 1,
      });
      await frontier.enqueue(['https://polite.example/2', 'https://polite.example/3']);
      const first = (await frontier.claim({ pod: 'pod-a', max: 10 })).leases;
      expect(first).toHaveLength(1);
      expect((await frontier.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);
      expect(await redis.hget(skey, 'dl')).toBe('40');
    });

    it('a late completion after the fold adds to the archived counts', async () => {
      const { redis, frontier, keys, inspector } = setup({ leaseTimeoutMs: 0 });
      await frontier.enqueue(['https://late.example/1']);
      const [lease] = (await frontier.claim({ pod: 'pod-a' })).leases;
      await frontier.complete(lease!);
      await sleep(PIN_MS + 40);
      await frontier.claim({ pod: 'pod-a' });
      expect(await redis.hexists(keys.archive('late.example'), 'late.example')).toBe(1);
      // Again: the lease is gone; refused, and counted late in the domain.
      await expect(frontier.complete(lease!)).rejects.toThrow(/no longer held/);
      expect(await inspector.domainStats('late.example')).toMatchObject({
        archived: true,
        fetched: 1,
        late: 1,
      });
      await frontier.enqueue(['https://late.example/2']);
      expect(await inspector.domainStats('late.example')).toMatchObject({
        archived: false,
        fetched: 1,
        late: 1,
        queued: 1,
      });
    });

    it('a crawl archives its own domains; deleting the crawl removes its fields', async () => {
      const { redis, frontier, keys, prefix } = setup({ crawlId: 'wide' });
      await frontier.enqueue(['https://crawl.example/1']);
      await finish(frontier);
      const field = keys.archiveField('crawl.example');
      expect(field).toBe('c:wide:crawl.example');
      expect(await redis.hexists(keys.archive('crawl.example'), field)).toBe(1);
      expect(await redis.exists(keys.domain('crawl.example'))).toBe(0);
      await new CrawlRegistry({ redis, prefix }).delete('wide');
      expect(await redis.hexists(keys.archive('crawl.example'), field)).toBe(0);
    });

    /** Claims (visiting whatever comes due) until pod-a's due index is empty. */
    const untilUnlisted = async (frontier: RedisFrontier, redis: Client, keys: FrontierKeys) => {
      for (let round = 0; round < 100; round++) {
        expect((await frontier.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);
        if ((await redis.zcard(keys.due('pod-a'))) === 0) return;
        await sleep(50);
      }
      throw new Error("pod-a's due index never emptied");
    };

    /** Claims the domain's one URL, completes it, lets pod-a visit what comes due: folded? */
    const foldsAfterOneFetch = async (options: Partial<FrontierOptions>, domain: string) => {
      const { redis, frontier, keys } = setup(options);
      await frontier.enqueue([`https://${domain}/1`]);
      const [lease] = (await frontier.claim({ pod: 'pod-a' })).leases;
      await frontier.complete(lease!);
      await untilUnlisted(frontier, redis, keys);
      expect(await redis.exists(keys.domain(domain))).toBe(0);
      expect(await redis.hexists(keys.archive(domain), domain)).toBe(1);
    };

    it('folds a domain whose completion parks it after the pin lapsed', async () => {
      // pinMs 0: every completion's park lands past its pin, as a stalled caller's does.
      await foldsAfterOneFetch({ pinMs: 0 }, 'stalled.example');
    });

    it('folds a domain whose parking visit came before its politeness gap ended', async () => {
      // The visit at the pin's end (60 ms) finds the next request allowed only at 400 ms.
      await foldsAfterOneFetch({ defaultDelayMs: 400 }, 'slow.example');
    });

    it('folds a domain that went idle just before a ring change moved it', async () => {
      const at = { owner: 'pod-a' };
      const { redis, frontier, keys } = setup({ ownerOf: () => at.owner });
      await frontier.enqueue(['https://moved.example/1']);
      const [lease] = (await frontier.claim({ pod: 'pod-a' })).leases;
      await frontier.complete(lease!);
      // Inside the pin: pod-a would have folded it at the pin's end; the handoff evicts it there.
      at.owner = 'pod-b';
      await frontier.reindex('moved.example', { evictFrom: 'pod-a' });
      expect(await redis.zcard(keys.due('pod-a'))).toBe(0);
      for (let round = 0; round < 100 && (await redis.zcard(keys.due('pod-b'))) > 0; round++) {
        expect((await frontier.claim({ pod: 'pod-b', max: 10 })).leases).toEqual([]);
        await sleep(20);
      }
      expect(await redis.exists(keys.domain('moved.example'))).toBe(0);
      expect(await redis.hexists(keys.archive('moved.example'), 'moved.example')).toBe(1);
    });

    it('archiveIdleDomains: false keeps every key', async () => {
      const { redis, frontier, keys } = setup({ archiveIdleDomains: false });
      await frontier.enqueue(['https://keep.example/1']);
      await finish(frontier);
      expect(await redis.exists(keys.domain('keep.example'))).toBe(1);
      expect(await redis.hexists(keys.archive('keep.example'), 'keep.example')).toBe(0);
    });
  });
}
