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
    // The claim reserved claimedAt + 400; the send 250.7504 ms before the completion is
    // later: Redis µs time minus that, rounded up to the µs — not to the ms, which would
    // add ~0.5 ms to every gap.
    const sentAt = (nowUs: number) => Math.ceil(nowUs - 250_750.4) / 1000;
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
    expect(n).toBeGreaterThanOrEqual((before - 120_250) / 1000 + 400);
    expect(n).toBeLessThanOrEqual((after - 120_250) / 1000 + 400);
  });

  it('keeps the µs of the send in next_allowed_at; the inspector shows the whole ms after it', async () => {
    const redis = connect();
    const { frontier, keys } = make({ defaultDelayMs: 400 });
    // Two hosts: a send time lands on a whole ms once in 1,000, both at once never here.
    const hosts = ['a.ss-test.com', 'b.ss-test.com'];
    await frontier.enqueue(hosts.flatMap((h) => [`https://${h}/1`, `https://${h}/2`]));
    const leases = (await frontier.claim({ pod: 'pod-a', max: 2 })).leases;
    expect(leases.map((l) => l.host).sort()).toEqual(hosts);
    await sleep(100);
    const times: number[] = [];
    for (const [i, lease] of leases.entries()) {
      await frontier.complete(lease, { sinceSentMs: 50.2504 + i * 0.5 });
      const raw = await redis.hget(keys.hostState('ss-test.com', lease.host), 'n');
      // Whole ms, or ms with at most three decimals (µs).
      expect(raw).toMatch(/^\d+(\.\d{1,3})?$/);
      times.push(Number(raw));
      const state = await frontier.inspector.hostState('ss-test.com', lease.host);
      expect(state.nextAllowedAtMs).toBe(Math.ceil(Number(raw)));
    }
    expect(times.some((n) => !Number.isInteger(n))).toBe(true);
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
