/**
 * Claim ahead (`ClaimRequest.leadMs`): a host due within the lead is claimed now, its lease
 * starts at the host's next-allowed time (`notBeforeMs`, and `notBeforePerfMs` on this
 * process's monotonic clock, never early), counts as in flight from the claim, and the host's
 * next slot is reserved from that start. Checked against the host state Redis holds and Redis
 * `TIME`.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisFrontier } from '../src/index.js';
import { frontierFixture } from './frontier-fixture.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const HOST = 'www.ca-test.com';
const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://${HOST}/${i}`);

describe('claim ahead', () => {
  const { connect, make } = frontierFixture('ca');
  const redisNow = async (redis: Redis) => {
    const [sec, usec] = await redis.time();
    return Number(sec) * 1000 + Number(usec) / 1000;
  };
  const hostField = async (redis: Redis, f: ReturnType<typeof make>, field: string) =>
    Number(await redis.hget(f.keys.hostState('ca-test.com', HOST), field));

  it('claims a host due within leadMs now; its lease starts at the next-allowed time', async () => {
    const redis = connect();
    const made = make({ defaultDelayMs: 400 });
    const { frontier } = made;
    await frontier.enqueue(urls(3));
    const [first] = (await frontier.claim({ pod: 'pod-a' })).leases;
    expect(first?.notBeforeMs).toBeUndefined();
    // The send 5.2504 ms ago: the next slot carries its µs (start-to-start.test.ts).
    await frontier.complete(first!, { sinceSentMs: 5.2504 });
    const n = await hostField(redis, made, 'n');
    // Not yet within the lead: nothing.
    expect((await frontier.claim({ pod: 'pod-a', leadMs: 150 })).leases).toEqual([]);

    await sleep(n - 130 - (await redisNow(redis)));
    const [early] = (await frontier.claim({ pod: 'pod-a', leadMs: 150 })).leases;
    const claimedAt = performance.now();
    expect(early).toBeDefined();
    expect(early!.notBeforeMs).toBe(n);
    expect(early!.claimedAtMs).toBeLessThan(n);
    expect(early!.notBeforePerfMs).toBeGreaterThan(claimedAt);
    // Counted in flight at once; the host's next slot counts from the lease's start.
    expect(await hostField(redis, made, 'f')).toBe(1);
    expect(await hostField(redis, made, 'n')).toBeCloseTo(n + 400, 3);
    // The local time is never early: once it has come, Redis time is past the start.
    await sleep(early!.notBeforePerfMs! - performance.now());
    while (performance.now() < early!.notBeforePerfMs!) await sleep(1);
    expect(await redisNow(redis)).toBeGreaterThanOrEqual(n);
  });

  it('several leases of one host in one visit each start one delay after the other', async () => {
    const { frontier } = make({ defaultDelayMs: 50, defaultConcurrency: 4 });
    await frontier.enqueue(urls(4));
    const { leases } = await frontier.claim({ pod: 'pod-a', max: 4, leadMs: 200 });
    expect(leases).toHaveLength(4);
    const at = leases[0]!.claimedAtMs;
    expect(leases[0]!.notBeforeMs).toBeUndefined();
    expect(leases.slice(1).map((l) => l.notBeforeMs)).toEqual([at + 50, at + 100, at + 150]);
  });

  it('a pod that dies holding a lease claimed ahead: its successor starts one delay after that lease', async () => {
    const { frontier, prefix } = make({ defaultDelayMs: 300 });
    await frontier.enqueue(urls(3));
    const [first] = (await frontier.claim({ pod: 'pod-a' })).leases;
    await frontier.complete(first!);
    const [held] = (await frontier.claim({ pod: 'pod-a', leadMs: 1000 })).leases;
    expect(held!.notBeforeMs).toBeGreaterThan(held!.claimedAtMs);
    // While the lease is out, the host is not handed out again, ahead or not.
    expect((await frontier.claim({ pod: 'pod-a', leadMs: 1000 })).leases).toEqual([]);
    // pod-a is killed before sending (it may as well have sent at notBeforeMs); pod-b takes over.
    const survivor = new RedisFrontier({
      redis: connect(),
      prefix,
      ownerOf: () => 'pod-b',
      defaultDelayMs: 300,
    });
    await survivor.reclaimPod('pod-a');
    const [next] = (await survivor.claim({ pod: 'pod-b', leadMs: 1000 })).leases;
    expect(next?.url).toBe(held!.url);
    expect(next!.notBeforeMs).toBe(held!.notBeforeMs! + 300);
  });

  it('an operator block opens at its own time, not ahead', async () => {
    const redis = connect();
    const { frontier } = make({ defaultDelayMs: 0 });
    const until = Math.ceil(await redisNow(redis)) + 300;
    await frontier.blockUntil({ host: HOST }, until);
    await frontier.enqueue(urls(1));
    expect((await frontier.claim({ pod: 'pod-a', leadMs: 1000 })).leases).toEqual([]);
    await sleep(until - (await redisNow(redis)) + 5);
    const [lease] = (await frontier.claim({ pod: 'pod-a', leadMs: 1000 })).leases;
    expect(lease).toBeDefined();
    expect(lease!.notBeforeMs).toBeUndefined();
  });

  it('rejects a lead that is negative, fractional or above 1000 ms, naming it', async () => {
    const { frontier } = make();
    for (const leadMs of [-1, 1.5, 1001]) {
      await expect(frontier.claim({ pod: 'pod-a', leadMs })).rejects.toThrow(/leadMs/);
    }
  });
});
