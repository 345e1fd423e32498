/**
 * Recrawl: a URL with a refetch interval is rescheduled after its fetch (not forgotten),
 * keeps its validators, adapts its interval, and its schedule survives a restart and moves
 * with its domain. Checked in what Redis holds and in what claims hand out.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import { FrontierRejectCode, type RedisFrontier } from '../src/index.js';
import type { FrontierKeys } from '../src/keys.js';
import { frontierFixture } from './frontier-fixture.js';

describe('recrawl schedules', () => {
  const { connect, make } = frontierFixture('r');
  /** The host's scheduled refetches as `[member, bucket due ms, …]`, read from Redis. */
  const schedule = async (redis: Redis, keys: FrontierKeys, domain: string, host = domain) => {
    const out: string[] = [];
    for (const bucket of await redis.zrange(keys.hostRefetchBuckets(domain, host), 0, -1)) {
      for (const member of await redis.lrange(
        keys.hostRefetchBucket(domain, host, bucket),
        0,
        -1,
      )) {
        out.push(member, bucket);
      }
    }
    return out;
  };
  const claimOne = (frontier: RedisFrontier, pod = 'pod-a') =>
    vi.waitFor(
      async () => {
        const [lease] = (await frontier.claim({ pod })).leases;
        expect(lease).toBeDefined();
        return lease!;
      },
      { timeout: 5000, interval: 20 },
    );

  it('reschedules a fetched URL with its validators; the refetch carries them', async () => {
    const redis = connect();
    const { frontier, keys } = make();
    await frontier.enqueue([{ url: 'https://re.example/a', refetchAfterMs: 400, meta: 'm' }]);
    const first = await claimOne(frontier);
    expect(first).toMatchObject({ refetchAfterMs: 400, attempt: 1 });
    expect(first.validators).toBeUndefined();
    const lastModified = 'Wed, 21 Oct 2015 07:28:00 GMT';
    await frontier.complete(first, {
      validators: { etag: 'W/"v1"', lastModified, contentHash: 'abc123' },
    });

    const [member, score] = await schedule(redis, keys, 're.example');
    expect(member).toBe('0,0,0,1/400/24,W/"v1"\x1f1445412480\x1fabc123mhttps://re.example/a');
    expect(Number(score)).toBeGreaterThanOrEqual(first.claimedAtMs + 400);
    expect(await frontier.inspector.domainStats('re.example')).toMatchObject({
      queued: 1,
      scheduled: 1,
      fetched: 1,
      inFlight: 0,
    });
    // Waiting in the due index at the refetch time, not parked and not polled before.
    expect(Number(await redis.zscore(keys.due('pod-a'), 're.example/re.example'))).toBe(
      Number(score),
    );
    expect((await frontier.claim({ pod: 'pod-a' })).leases).toEqual([]);

    const again = await claimOne(frontier);
    expect(again.claimedAtMs).toBeGreaterThanOrEqual(Number(score));
    expect(again).toMatchObject({
      url: 'https://re.example/a',
      meta: 'm',
      attempt: 1,
      refetchAfterMs: 400,
      validators: { etag: 'W/"v1"', lastModified, contentHash: 'abc123' },
    });
    expect(await frontier.inspector.domainStats('re.example')).toMatchObject({
      queued: 0,
      scheduled: 0,
      inFlight: 1,
    });
    // A 304: no new validators, the stored ones stay.
    await frontier.complete(again, { changed: false });
    const [kept] = await schedule(redis, keys, 're.example');
    expect(kept).toContain('W/"v1"\x1f1445412480\x1fabc123');
    expect(Number((await frontier.stats()).queued)).toBe(1);
  });

  it('the crawl default applies to URLs without their own; without either a URL is forgotten', async () => {
    const redis = connect();
    const off = make();
    await off.frontier.enqueue(['https://once.example/a']);
    await off.frontier.complete(await claimOne(off.frontier));
    expect(await schedule(redis, off.keys, 'once.example')).toEqual([]);
    expect((await off.frontier.inspector.domainStats('once.example')).queued).toBe(0);
    expect(await off.frontier.settled()).toBe(true);

    const on = make({ refetchAfterMs: 60_000 });
    await on.frontier.enqueue(['https://daily.example/a']);
    const lease = await claimOne(on.frontier);
    expect(lease.refetchAfterMs).toBeUndefined();
    await on.frontier.complete(lease);
    const [member, score] = await schedule(redis, on.keys, 'daily.example');
    expect(member).toBe('0,0,0,0/60000,https://daily.example/a');
    expect(Number(score)).toBeGreaterThanOrEqual(lease.claimedAtMs + 60_000);
    expect(await on.frontier.settled()).toBe(false);
  });

  it('adaptive: the interval halves when content changed and grows when not, within bounds', async () => {
    const redis = connect();
    const { frontier, keys } = make({
      refetchAdaptive: true,
      refetchMinMs: 100,
      refetchMaxMs: 500,
    });
    await frontier.enqueue([{ url: 'https://ad.example/a', refetchAfterMs: 300 }]);
    const intervals: number[] = [];
    for (const changed of [false, false, true, true, true]) {
      const lease = await claimOne(frontier);
      await frontier.complete(lease, { changed });
      const [member] = await schedule(redis, keys, 'ad.example');
      intervals.push(Number(/^0,0,0,0\/(\d+),/.exec(member!)![1]));
      // Make the refetch due at once: the test measures intervals, not waits.
      const [bucket] = await redis.zrange(
        keys.hostRefetchBuckets('ad.example', 'ad.example'),
        0,
        0,
      );
      await redis.zadd(keys.hostRefetchBuckets('ad.example', 'ad.example'), 0, bucket!);
      await redis.zadd(keys.due('pod-a'), 0, 'ad.example/ad.example');
    }
    expect(intervals).toEqual([450, 500, 250, 125, 100]);
  });

  it('a schedule survives a restart and moves with its domain to the new owner', async () => {
    const redis = connect();
    let owner = 'pod-a';
    const { frontier, keys, prefix } = make({ ownerOf: () => owner, pinMs: 50 });
    await frontier.enqueue([{ url: 'https://mv.example/a', refetchAfterMs: 300 }]);
    await frontier.complete(await claimOne(frontier));
    const [, score] = await schedule(redis, keys, 'mv.example');

    owner = 'pod-b';
    await new Promise((r) => setTimeout(r, 80));
    const restarted = make({ ownerOf: () => owner }, prefix).frontier;
    await restarted.reindex('mv.example');
    expect(await redis.zscore(keys.due('pod-a'), 'mv.example/mv.example')).toBeNull();
    expect(await redis.zscore(keys.due('pod-b'), 'mv.example/mv.example')).toBe(score);
    const lease = await claimOne(restarted, 'pod-b');
    expect(lease).toMatchObject({ url: 'https://mv.example/a', pod: 'pod-b' });
    expect(lease.claimedAtMs).toBeGreaterThanOrEqual(Number(score));
  });

  it('rejects a bad refetch interval per item, naming it', async () => {
    const { frontier } = make();
    const report = await frontier.enqueue([
      { url: 'https://bad.example/0', refetchAfterMs: 0 },
      { url: 'https://bad.example/1', refetchAfterMs: 1.5 },
      { url: 'https://bad.example/2', refetchAfterMs: 100 },
    ]);
    expect(report.results.map((r) => [r.status, r.code])).toEqual([
      ['rejected', FrontierRejectCode.REFETCH],
      ['rejected', FrontierRejectCode.REFETCH],
      ['queued', undefined],
    ]);
    expect(() => make({ refetchMinMs: 10, refetchMaxMs: 5 })).toThrow(/refetchMinMs/);
  });
});
