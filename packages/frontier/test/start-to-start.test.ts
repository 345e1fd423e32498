/**
 * complete's `sinceSentMs`: the host's next_allowed_at counts the delay from the request's
 * send (completion time minus the duration), never from before the claim, whatever duration
 * a caller passes. Checked in the host state Redis holds. And claim's `onLeases`: the leases
 * before the claim resolves (a fetch need not wait for the due index's re-score).
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { frontierFixture } from './frontier-fixture.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('complete sinceSentMs', () => {
  const { connect, make } = frontierFixture('ss');
  const redisNowUs = async (redis: Redis) => {
    const [sec, usec] = await redis.time();
    return Number(sec) * 1_000_000 + Number(usec);
  };
  const nextAllowed = async (redis: Redis, keys: ReturnType<typeof make>['keys']) =>
    Number(await redis.hget(keys.hostState('ss-test.com', 'www.ss-test.com'), 'n'));

  it('moves next_allowed_at to send + delay, not completion + delay', async () => {
    const redis = connect();
    const { frontier, keys } = make({ defaultDelayMs: 400 });
    await frontier.enqueue(['https://www.ss-test.com/1', 'https://www.ss-test.com/2']);
    const [lease] = (await frontier.claim({ pod: 'pod-a' })).leases;
    await sleep(300);
    const before = await redisNowUs(redis);
    await frontier.complete(lease!, { sinceSentMs: 250.7504 });
    const after = await redisNowUs(redis);
    const n = await nextAllowed(redis, keys);
    // The claim reserved claimedAt + 400; the send 250.750 ms (µs kept, finer dropped)
    // before the completion is later: Redis µs time minus that, rounded up to the ms.
    const sentAt = (nowUs: number) => Math.ceil((nowUs - 250_750) / 1000);
    expect(n).toBeGreaterThanOrEqual(sentAt(before) + 400);
    expect(n).toBeLessThanOrEqual(sentAt(after) + 400);
    expect(n).toBeLessThan(Math.floor(before / 1000) + 400);
  });

  it('freeSlot counts the gap from the send in µs too', async () => {
    const redis = connect();
    const { frontier, keys } = make({ defaultDelayMs: 400 });
    await frontier.enqueue(['https://www.ss-test.com/1', 'https://www.ss-test.com/2']);
    const [lease] = (await frontier.claim({ pod: 'pod-a' })).leases;
    await sleep(300);
    const before = await redisNowUs(redis);
    await frontier.freeSlot(lease!, { durationMs: 5, sinceSentMs: 120.25 });
    const after = await redisNowUs(redis);
    const n = await nextAllowed(redis, keys);
    expect(n).toBeGreaterThanOrEqual(Math.ceil((before - 120_250) / 1000) + 400);
    expect(n).toBeLessThanOrEqual(Math.ceil((after - 120_250) / 1000) + 400);
  });

  it('a duration reaching before the claim leaves the claim reservation', async () => {
    const redis = connect();
    const { frontier, keys } = make({ defaultDelayMs: 400 });
    await frontier.enqueue(['https://www.ss-test.com/1', 'https://www.ss-test.com/2']);
    const [lease] = (await frontier.claim({ pod: 'pod-a' })).leases;
    const reserved = await nextAllowed(redis, keys);
    expect(reserved).toBe(lease!.claimedAtMs + 400);
    await sleep(50);
    await frontier.complete(lease!, { sinceSentMs: 10_000_000 });
    expect(await nextAllowed(redis, keys)).toBe(reserved);
    // Nothing is claimable before the reservation.
    expect((await frontier.claim({ pod: 'pod-a' })).leases).toEqual([]);
  });

  it('claim hands its leases to onLeases before it resolves', async () => {
    const { frontier } = make();
    await frontier.enqueue(['https://a.ss-test.com/1', 'https://b.ss-test.com/1']);
    let resolved = false;
    const early: string[][] = [];
    const claim = frontier.claim({
      pod: 'pod-a',
      max: 2,
      onLeases: (leases) => early.push(leases.map((l) => l.id).concat(resolved ? ['late'] : [])),
    });
    const result = await claim.then((r) => {
      resolved = true;
      return r;
    });
    expect(early).toEqual([result.leases.map((l) => l.id)]);
    expect(result.leases).toHaveLength(2);
    // An empty claim calls nothing.
    const none: unknown[] = [];
    await frontier.claim({ pod: 'pod-a', onLeases: (l) => none.push(l) });
    expect(none).toEqual([]);
  });

  it('rejects a negative or non-finite duration, naming it', async () => {
    const { frontier } = make();
    await frontier.enqueue(['https://www.ss-test.com/1']);
    const [lease] = (await frontier.claim({ pod: 'pod-a' })).leases;
    await expect(frontier.complete(lease!, { sinceSentMs: -1 })).rejects.toThrow(/sinceSentMs/);
    await expect(
      frontier.complete(lease!, { sinceSentMs: Number.POSITIVE_INFINITY }),
    ).rejects.toThrow(/sinceSentMs/);
    await expect(frontier.complete(lease!, { sinceSentMs: Number.NaN })).rejects.toThrow(
      /sinceSentMs/,
    );
  });
});
