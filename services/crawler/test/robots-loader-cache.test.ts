/**
 * RobotsLoader caching: the in-process cache and the cache shared between pods, TTLs from
 * Cache-Control, coalesced loads, and what an abort or a failing store leaves behind.
 * Fetching is in robots-loader-fetch.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { CrawlerErrorCode } from '../src/errors.js';
import type { RobotsCacheRecord, RobotsSharedCache } from '../src/robots-cache-record.js';
import { RobotsLoader } from '../src/robots-loader.js';
import type { RobotsLoaderOptions } from '../src/robots-loader-options.js';
import { HOUR, robotsHosts, UA } from './robots-loader-fixture.js';

/** The interface as the pod will use it, over a Map instead of Redis. */
class MemorySharedCache implements RobotsSharedCache {
  readonly records = new Map<string, { record: RobotsCacheRecord; ttlMs: number }>();
  async get(origin: string): Promise<RobotsCacheRecord | undefined> {
    // Round-trip through JSON as a real store would.
    const hit = this.records.get(origin);
    return hit ? (JSON.parse(JSON.stringify(hit.record)) as RobotsCacheRecord) : undefined;
  }
  async set(origin: string, record: RobotsCacheRecord, ttlMs: number): Promise<void> {
    this.records.set(origin, { record, ttlMs });
  }
}

describe('RobotsLoader', () => {
  const hosts = robotsHosts();
  const { behaviours, count, origin } = hosts;
  let clock = Date.now();
  const loader = (extra: Partial<RobotsLoaderOptions> = {}) =>
    new RobotsLoader({ fetcher: hosts.fetcher, now: () => clock, ...extra });

  it('keeps the unreachable count in the shared record, so another loader continues it', async () => {
    let status = 503;
    behaviours.set('shared-down.test', (res) => {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status === 200 ? 'User-agent: *\nDisallow: /x\n' : 'down');
    });
    const shared = new MemorySharedCache();
    const a = loader({ unreachableRetryMs: 60_000, sharedCache: shared });
    expect((await a.load(origin('shared-down.test'))).unreachable).toBe(1);
    const stored = shared.records.get(origin('shared-down.test'));
    expect(stored?.record).toMatchObject({ unreachable: 1, expiresAtMs: clock + 60_000 });
    // Kept past its expiry (not used then) so the next fetch can read the count.
    expect(stored!.ttlMs).toBeGreaterThan(60_000);

    // Another pod's loader, after the retry time: it fetches and counts on from the record.
    clock += 61_000;
    const b = loader({ unreachableRetryMs: 60_000, sharedCache: shared });
    expect(await b.load(origin('shared-down.test'))).toMatchObject({
      from: 'fetch',
      unreachable: 2,
    });
    expect(shared.records.get(origin('shared-down.test'))?.record.unreachable).toBe(2);
    // Within the retry time a third loader takes the answer, count included, from the record.
    const c = loader({ unreachableRetryMs: 60_000, sharedCache: shared });
    expect(await c.load(origin('shared-down.test'))).toMatchObject({
      from: 'shared-cache',
      unreachable: 2,
    });

    status = 200;
    clock += 61_000;
    const up = await a.load(origin('shared-down.test'));
    expect(up).toMatchObject({ from: 'fetch', unreachable: 0 });
    expect(shared.records.get(origin('shared-down.test'))?.record.unreachable).toBeUndefined();
    expect(count('shared-down.test')).toBe(3);
  });

  it("a caller's signal ends only its wait; the loader's signal abandons the request, caching nothing", async () => {
    behaviours.set('hang.test', (res) => {
      setTimeout(() => {
        if (!res.destroyed) {
          res.writeHead(500);
          res.end();
        }
      }, 1500);
    });
    const shared = new MemorySharedCache();
    const closing = new AbortController();
    const robots = loader({ sharedCache: shared, signal: closing.signal });
    const caller = new AbortController();
    const other = robots.load(origin('hang.test'));
    const mine = robots.load(origin('hang.test'), { signal: caller.signal });
    caller.abort();
    await expect(mine).rejects.toMatchObject({ code: CrawlerErrorCode.ABORTED });
    // The shared load goes on for the other caller until the loader itself is aborted.
    await new Promise((r) => setTimeout(r, 100));
    closing.abort();
    await expect(other).rejects.toMatchObject({ code: CrawlerErrorCode.ABORTED });
    expect(shared.records.has(origin('hang.test'))).toBe(false);
    expect(robots.stats().size).toBe(0);
    await expect(robots.load(origin('hang.test'), { signal: caller.signal })).rejects.toMatchObject(
      { code: CrawlerErrorCode.ABORTED },
    );
  });

  it('coalesces 20 concurrent loads of one origin into one request', async () => {
    const robots = loader();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => robots.load(origin('slow.test'))),
    );
    expect(count('slow.test')).toBe(1);
    expect(new Set(results.map((r) => r.robots)).size).toBe(1);
    expect(robots.stats().coalesced).toBe(19);
    expect(results[0]?.robots.isAllowed(`${origin('slow.test')}/slow`, UA)).toBe(false);
  });

  it('answers from the shared cache without fetching, and refetches an expired record', async () => {
    const shared = new MemorySharedCache();
    const podA = loader({ sharedCache: shared });
    const fetched = await podA.load(origin('shared.test'));
    expect(fetched.from).toBe('fetch');
    const stored = shared.records.get(origin('shared.test'));
    expect(stored?.ttlMs).toBe(24 * HOUR);
    expect(count('shared.test')).toBe(1);

    const podB = loader({ sharedCache: shared });
    const fromShared = await podB.load(origin('shared.test'));
    expect(fromShared.from).toBe('shared-cache');
    expect(fromShared.expiresAtMs).toBe(fetched.expiresAtMs);
    expect(fromShared.robots.isAllowed(`${origin('shared.test')}/shared`, UA)).toBe(false);
    expect(count('shared.test')).toBe(1);

    // A record whose expiry passed (the store kept it too long) is not used.
    clock += 25 * HOUR;
    const podC = loader({ sharedCache: shared });
    expect((await podC.load(origin('shared.test'))).from).toBe('fetch');
    expect(count('shared.test')).toBe(2);
  });

  it('falls back to fetching when the shared cache fails', async () => {
    const broken: RobotsSharedCache = {
      get: async () => {
        throw new Error('redis down');
      },
      set: async () => {
        throw new Error('redis down');
      },
    };
    const robots = loader({ sharedCache: broken });
    const result = await robots.load(origin('rules.test'));
    expect(result.from).toBe('fetch');
    expect(result.robots.source).toBe('parsed');
    // Neither failure is thrown, and neither goes unseen: the read and the write are counted.
    expect(robots.stats().sharedCacheErrors).toBe(2);
  });

  it('honours a shorter Cache-Control max-age (floored by minTtlMs) and caps a longer one at 24 h', async () => {
    const short = await loader({ minTtlMs: 0 }).load(origin('maxage.test'));
    expect(short.expiresAtMs).toBe(clock + 60_000);
    const floored = await loader({ minTtlMs: 120_000 }).load(origin('maxage.test'));
    expect(floored.expiresAtMs).toBe(clock + 120_000);
    const long = await loader().load(origin('longage.test'));
    expect(long.expiresAtMs).toBe(clock + 24 * HOUR);
  });

  it('a no-store robots.txt with minTtlMs 0 is not kept: the next load fetches again', async () => {
    const robots = loader({ minTtlMs: 0 });
    const first = await robots.load(origin('nostore.test'));
    expect(first.expiresAtMs).toBe(clock);
    expect((await robots.load(origin('nostore.test'))).from).toBe('fetch');
    expect(count('nostore.test')).toBe(2);
    expect(robots.stats().size).toBe(0);
  });

  it('bounds the in-process cache', async () => {
    const robots = loader({ maxEntries: 2 });
    await robots.load(origin('rules.test'));
    await robots.load(origin('missing.test'));
    await robots.load(origin('forbidden.test'));
    expect(robots.stats().size).toBe(2);
    const before = count('rules.test');
    expect((await robots.load(origin('rules.test'))).from).toBe('fetch');
    expect(count('rules.test')).toBe(before + 1);
  });
});
