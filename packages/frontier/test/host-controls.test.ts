/**
 * Operator and adaptive host controls kept in the domain's Redis state: blocks until a
 * time (host or domain), the run-time delay, and the adaptive delay. Each is checked in
 * what Redis holds, in what a claim hands out, and after a "restart" (a new frontier on a
 * new connection) and a handoff (the owner changes and the domain is reindexed).
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { frontierFixture, LIVE_LAYOUT } from './frontier-fixture.js';

describe('host controls in Redis', () => {
  const { connect, make } = frontierFixture('t', [], LIVE_LAYOUT);
  const redisNow = async (redis: Redis) => {
    const [sec, usec] = await redis.time();
    return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
  };

  /** Sleeps until Redis time is past `ms`. */
  const sleepUntil = async (redis: Redis, ms: number) => {
    const wait = ms - (await redisNow(redis)) + 20;
    await new Promise((r) => setTimeout(r, Math.max(0, wait)));
  };

  it('blocks one host until a time: nothing claimed before, its due score is the block end', async () => {
    const redis = connect();
    const { frontier, keys, prefix } = make();
    await frontier.enqueue(['https://a.bk-test.com/1', 'https://b.bk-test.com/1']);
    const until = (await redisNow(redis)) + 60_000;
    await frontier.blockUntil({ host: 'a.bk-test.com' }, until);

    expect(await redis.hget(keys.hostState('bk-test.com', 'a.bk-test.com'), 'bu')).toBe(
      String(until),
    );
    expect(Number(await redis.zscore(keys.due('pod-a'), 'bk-test.com/a.bk-test.com'))).toBe(until);
    const { leases } = await frontier.claim({ pod: 'pod-a', max: 10 });
    expect(leases.map((l) => l.host)).toEqual(['b.bk-test.com']);

    // A restart: a new frontier on a new connection reads the same block.
    const again = make({}, prefix).frontier;
    expect((await again.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);
    expect(await again.inspector.hostState('bk-test.com', 'a.bk-test.com')).toMatchObject({
      blockedUntilMs: until,
      queued: 1,
    });

    // Lifting the block makes the host due at once.
    await again.blockUntil({ host: 'a.bk-test.com' }, 0);
    expect(await redis.hexists(keys.hostState('bk-test.com', 'a.bk-test.com'), 'bu')).toBe(0);
    const after = await again.claim({ pod: 'pod-a', max: 10 });
    expect(after.leases.map((l) => l.url)).toEqual(['https://a.bk-test.com/1']);
  });

  it('blocks a whole domain, hosts that appear later included, until the time passes', async () => {
    const redis = connect();
    const { frontier, keys } = make();
    await frontier.enqueue(['https://dom-test.com/1']);
    const until = (await redisNow(redis)) + 400;
    await frontier.blockUntil({ domain: 'dom-test.com' }, until);
    await frontier.enqueue(['https://new.dom-test.com/1']);

    expect(await redis.hget(keys.domain('dom-test.com'), 'bu')).toBe(String(until));
    expect((await frontier.inspector.domainStats('dom-test.com')).blockedUntilMs).toBe(until);
    // The new host is visited once (an enqueue lists a new host as due now), claims
    // nothing, and is re-scored to the block's end.
    expect((await frontier.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);
    expect(Number(await redis.zscore(keys.due('pod-a'), 'dom-test.com/new.dom-test.com'))).toBe(
      until,
    );

    await sleepUntil(redis, until);
    const { leases } = await frontier.claim({ pod: 'pod-a', max: 10 });
    expect(leases.map((l) => l.host).sort()).toEqual(['dom-test.com', 'new.dom-test.com']);
    for (const l of leases) expect(l.claimedAtMs).toBeGreaterThanOrEqual(until);
  });

  it('a block and a run-time delay move with the domain to its new owner', async () => {
    const redis = connect();
    let owner = 'pod-a';
    const { frontier, keys } = make({ ownerOf: () => owner, pinMs: 50 });
    await frontier.enqueue(['https://mv.example/1', 'https://mv.example/2']);
    await frontier.setHostPolicy('mv.example', { delayMs: 5000 });
    const until = (await redisNow(redis)) + 300;
    await frontier.blockUntil({ domain: 'mv.example' }, until);
    owner = 'pod-b';
    await new Promise((r) => setTimeout(r, 80));
    await frontier.reindex('mv.example');

    expect(await redis.zscore(keys.due('pod-a'), 'mv.example/mv.example')).toBeNull();
    expect(Number(await redis.zscore(keys.due('pod-b'), 'mv.example/mv.example'))).toBe(until);
    expect((await frontier.claim({ pod: 'pod-b' })).leases).toEqual([]);
    await sleepUntil(redis, until);
    const [first] = (await frontier.claim({ pod: 'pod-b', max: 2 })).leases;
    expect(first?.claimedAtMs).toBeGreaterThanOrEqual(until);
    // The run-time delay holds on the new owner: the second URL waits 5 s after the first.
    await frontier.complete(first!);
    const skey = keys.hostState('mv.example', 'mv.example');
    expect(await redis.hget(skey, 'dl')).toBe('5000');
    const nextAt = Number(await redis.hget(skey, 'n'));
    expect(nextAt).toBeGreaterThanOrEqual(first!.claimedAtMs + 5000);
    expect(Number(await redis.zscore(keys.due('pod-b'), 'mv.example/mv.example'))).toBe(nextAt);
  });

  it('adaptive delay grows with slow responses and server errors, decays when fast', async () => {
    const redis = connect();
    const { frontier, keys } = make({ adaptiveDelay: true, defaultDelayMs: 100 });
    const skey = keys.hostState('ad.example', 'ad.example');
    const urls = Array.from({ length: 8 }, (_, i) => `https://ad.example/${i}`);
    await frontier.enqueue(urls);
    const next = async () => {
      // Lift the gate so the test does not wait out the delays it is measuring.
      await redis.hset(skey, 'n', '0');
      await redis.zadd(keys.due('pod-a'), 0, 'ad.example/ad.example');
      const [lease] = (await frontier.claim({ pod: 'pod-a' })).leases;
      expect(lease).toBeDefined();
      return lease!;
    };

    await frontier.complete(await next(), { durationMs: 200 });
    // Factor 5 (Heritrix's default) × 200 ms.
    expect(await redis.hmget(skey, 'ad', 'ar')).toEqual(['1000', 's']);
    const lease = await next();
    const t = await redisNow(redis);
    await frontier.fail(lease, {
      retryable: true,
      reason: 'http-503',
      status: 503,
      durationMs: 10,
    });
    expect(await redis.hmget(skey, 'ad', 'ar')).toEqual(['2000', 'e']);
    // The gate honours it: next allowed at least 2 s after the failure.
    expect(Number(await redis.hget(skey, 'n'))).toBeGreaterThanOrEqual(t + 2000);
    expect((await frontier.inspector.hostState('ad.example', 'ad.example')).adaptiveReason).toBe(
      'errors',
    );

    // Fast responses halve it, then drop it at the floor (the default delay, 100 ms).
    const seen: (string | null)[] = [];
    for (let i = 0; i < 5; i++) {
      await frontier.complete(await next(), { durationMs: 1 });
      seen.push(await redis.hget(skey, 'ad'));
    }
    expect(seen).toEqual(['1000', '500', '250', '125', null]);
    expect(await redis.hexists(skey, 'ar')).toBe(0);
  });

  it('without adaptiveDelay a server error leaves no adaptive state', async () => {
    const redis = connect();
    const { frontier, keys } = make();
    await frontier.enqueue(['https://off.example/1']);
    const [lease] = (await frontier.claim({ pod: 'pod-a' })).leases;
    await frontier.fail(lease!, { retryable: true, reason: 'http-503', durationMs: 900 });
    expect(await redis.hexists(keys.hostState('off.example', 'off.example'), 'ad')).toBe(0);
  });

  it('rejects a bad block target or time', async () => {
    const { frontier } = make();
    await expect(frontier.blockUntil({ domain: 'x.example' }, -1)).rejects.toThrow(/untilMs/);
    await expect(frontier.blockUntil({ domain: 'x.example' }, 1.5)).rejects.toThrow(/untilMs/);
    await expect(frontier.blockUntil({} as never, 1)).rejects.toThrow(/target/);
    await expect(
      frontier.fail(
        { id: 'x.example/x.example/1', pod: 'pod-a' },
        {
          retryable: true,
          reason: 'x',
          durationMs: -3,
        },
      ),
    ).rejects.toThrow(/durationMs/);
  });
});
