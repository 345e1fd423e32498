/**
 * `freeSlot` (free-slot-2.lua): a lease whose fetch is done frees its host's politeness slot
 * while it stays out. Checked in what Redis holds and in what claims hand out: the host's
 * next URL is claimable after the delay alone (concurrency 1), the lease's later end —
 * complete, fail, or a reap after its holder died — never frees the slot a second time nor
 * backs the host off, and the host stays in its owner's due index while the lease is out.
 */
import { describe, expect, it } from 'vitest';
import { LeaseLostError } from '../src/index.js';
import { frontierFixture } from './frontier-fixture.js';

const D = 'fs-test.com';
const H = 'fs-test.com';

describe('freeSlot', () => {
  const { connect, make } = frontierFixture('fs');

  async function twoQueued(options = {}) {
    const redis = connect();
    const made = make({ defaultConcurrency: 1, ...options });
    await made.frontier.enqueue([`https://${H}/1`, `https://${H}/2`]);
    const [lease] = (await made.frontier.claim({ pod: 'pod-a', max: 1 })).leases;
    const state = () => redis.hgetall(made.keys.hostState(D, H));
    const freed = () => redis.smembers(made.keys.hostFreedLeases(D, H));
    return { ...made, redis, lease: lease!, state, freed };
  }

  it('frees the host slot at once: the next URL is claimed while the first lease is out', async () => {
    const { frontier, lease, state, freed, redis, keys } = await twoQueued();
    // Concurrency 1 and the lease out: nothing more to claim.
    expect((await frontier.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);
    await frontier.freeSlot(lease, { durationMs: 5 });
    expect((await state()).f).toBe('0');
    expect(await freed()).toEqual([lease.id.slice(D.length + 1)]);
    expect(await redis.hlen(keys.hostLeases(D, H))).toBe(1);
    // Idempotent: a second call frees nothing more.
    await frontier.freeSlot(lease, { durationMs: 5 });
    expect((await state()).f).toBe('0');
    const next = await frontier.claim({ pod: 'pod-a', max: 10 });
    expect(next.leases.map((l) => l.url)).toEqual([`https://${H}/2`]);
    expect((await state()).f).toBe('1');

    // The first lease completes later: the second keeps the slot, nothing goes negative.
    await frontier.complete(lease, { status: 200 });
    expect((await state()).f).toBe('1');
    expect(await freed()).toEqual([]);
    await frontier.complete(next.leases[0]!, { status: 200 });
    expect((await state()).f).toBe('0');
    expect(await frontier.inspector.domainStats(D)).toMatchObject({ inFlight: 0, fetched: 2 });
  });

  it('keeps the host delay: the next claim waits next_allowed_at, set when the slot was freed', async () => {
    const { frontier, lease, state } = await twoQueued({ defaultDelayMs: 600 });
    await frontier.freeSlot(lease, { durationMs: 5 });
    expect((await frontier.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);
    await new Promise((r) => setTimeout(r, 700));
    expect((await frontier.claim({ pod: 'pod-a', max: 10 })).leases).toHaveLength(1);
    const n = (await state()).n;
    // A slow handler's completion, later, does not push the host's next request time.
    await new Promise((r) => setTimeout(r, 100));
    await frontier.complete(lease, { status: 200 });
    expect((await state()).n).toBe(n);
  });

  it('a failure after the slot was freed retries the URL without backing the host off', async () => {
    const { frontier, lease, state, freed } = await twoQueued({ maxRetries: 0 });
    await frontier.freeSlot(lease, { durationMs: 5 });
    const before = await state();
    const out = await frontier.fail(lease, { retryable: true, reason: 'SHARDLINE_ERR_HANDLER' });
    expect(out.outcome).toBe('dead');
    const after = await state();
    expect(after.f).toBe('0');
    expect(after.bo).toBeUndefined();
    expect(after.fc).toBeUndefined();
    expect(after.n).toBe(before.n);
    expect(await freed()).toEqual([]);
    expect(await frontier.inspector.domainStats(D)).toMatchObject({ inFlight: 0, dead: 1 });
  });

  it('a lease whose holder died after freeing is reaped and claimed again; f never below 0', async () => {
    const { frontier, lease, state, freed, redis, keys } = await twoQueued({
      leaseTimeoutMs: 300,
      defaultConcurrency: 2,
    });
    await frontier.freeSlot(lease, { durationMs: 5 });
    // The host stays listed in the due index while the freed lease is out (reaping needs it).
    const second = (await frontier.claim({ pod: 'pod-a', max: 10 })).leases;
    expect(second).toHaveLength(1);
    await frontier.complete(second[0]!, { status: 200 });
    expect(await redis.zscore(keys.due('pod-a'), `${D}/${H}`)).not.toBeNull();
    await new Promise((r) => setTimeout(r, 400));
    const again = await frontier.claim({ pod: 'pod-a', max: 10 });
    expect(again.reaped).toBe(1);
    expect(again.leases.map((l) => l.url)).toEqual([lease.url]);
    expect((await state()).f).toBe('1');
    expect(await freed()).toEqual([]);
    await expect(frontier.complete(lease, { status: 200 })).rejects.toBeInstanceOf(LeaseLostError);
    await expect(frontier.freeSlot(lease, { durationMs: 1 })).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    expect((await state()).f).toBe('1');
  });
});
