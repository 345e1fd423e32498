/**
 * The WorkLoop contract, part one: when and how much the loop claims, and how it sleeps
 * between claims (due times, wake messages, poke). Real timers throughout: the loop's sleeps
 * are what is under test, so claims are counted over windows and timing bounds stay generous;
 * a lower bound ("not before the due time") is asserted only where sleeping less would be the
 * bug. The rig is in work-loop-fixture.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { lease, publisher, rig, sleep, useWakeRedis } from './work-loop-fixture.js';

useWakeRedis();

describe('WorkLoop claims', () => {
  it('claims only for free slots, and claims again when a slot frees, not before', async () => {
    const { loop, frontier, handler } = await rig({ concurrency: 3 }, {}, (f) => {
      for (let i = 0; i < 10; i++) f.queue.push(lease());
    });
    await vi.waitFor(() => expect(loop.inFlight).toBe(3));
    expect(frontier.claims[0]?.max).toBe(3);
    // Full: the loop waits for a slot, it does not claim.
    const full = Date.now();
    await sleep(300);
    expect(frontier.claimsSince(full)).toBe(0);

    handler.finishOne();
    await vi.waitFor(() => expect(handler.started).toHaveLength(4));
    expect(frontier.claims.at(-1)?.max).toBe(1);
    expect(loop.inFlight).toBe(3);
    expect(handler.maxConcurrent).toBe(3);
    expect(loop.stats()).toMatchObject({ claimed: 4, inFlight: 3 });
  });

  it('claims nothing while canClaim() is false, and starts once it turns true', async () => {
    let ready = false;
    const { frontier, handler } = await rig(
      { canClaim: () => ready, notReadyPollMs: 20 },
      {},
      (f) => f.queue.push(lease()),
    );
    await sleep(300);
    expect(frontier.claims).toHaveLength(0);
    ready = true;
    await vi.waitFor(() => expect(handler.started).toHaveLength(1), { timeout: 2_000 });
  });

  it('does not claim when canClaim() turns false during the pause between claims', async () => {
    let ready = true;
    // Due again at once, but the next claim must wait out minClaimIntervalMs.
    const { frontier } = await rig({ canClaim: () => ready, minClaimIntervalMs: 400 }, {}, (f) => {
      f.dueInMs = 0;
    });
    await vi.waitFor(() => expect(frontier.claims).toHaveLength(1));
    ready = false;
    await sleep(800);
    expect(frontier.claims).toHaveLength(1);
  });

  it('batches: claims that leave slots free are at least minClaimIntervalMs apart', async () => {
    // Work is always due, but each claim hands out one lease of the four slots asked for.
    const { frontier, handler } = await rig({ minClaimIntervalMs: 100 }, { perClaim: 1 }, (f) => {
      for (let i = 0; i < 100; i++) f.queue.push(lease());
    });
    handler.hold = false;
    await sleep(1_000);
    const claims = frontier.claims.length;
    expect(claims).toBeGreaterThanOrEqual(3);
    expect(claims).toBeLessThanOrEqual(12);
    const gaps = frontier.claims.slice(1).map((c, i) => c.atMs - frontier.claims[i]!.atMs);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(95);
  });

  it('reports a failed claim to onError and keeps going', async () => {
    const { handler, errors } = await rig({ maxIdleSleepMs: 100 }, {}, (f) => {
      f.failNextClaims = 1;
      f.queue.push(lease());
    });
    await vi.waitFor(() => expect(handler.started).toHaveLength(1), { timeout: 3_000 });
    expect(errors).toEqual([{ error: new Error('claim failed'), where: 'claim' }]);
  });
});

describe('WorkLoop sleeps', () => {
  it('when idle, claims about once per maxIdleSleepMs: no poll loop', async () => {
    const { frontier } = await rig({ maxIdleSleepMs: 200 });
    await sleep(1_000);
    // ~6 claims in 1 s (one at start, then one per 200 ms); a poll loop would make hundreds.
    expect(frontier.claims.length).toBeGreaterThanOrEqual(3);
    expect(frontier.claims.length).toBeLessThanOrEqual(8);
    expect(frontier.claims.every((c) => c.got === 0)).toBe(true);
  });

  it('sleeps until the next due time, read on the frontier clock', async () => {
    // The frontier's clock runs an hour ahead: the due time must be converted, not compared.
    const { frontier } = await rig({}, { offsetMs: 3_600_000 }, (f) => {
      f.dueInMs = 400;
    });
    await vi.waitFor(() => expect(frontier.claims).toHaveLength(2), { timeout: 5_000 });
    const [first, second] = frontier.claims;
    expect(second!.atMs - first!.atMs).toBeGreaterThanOrEqual(380);
  });

  it('with claimLeadMs, claims that long before the next due time (and wake message), asking for the lead', async () => {
    const { frontier, wake } = await rig({ claimLeadMs: 300 }, { offsetMs: 3_600_000 }, (f) => {
      f.dueInMs = 700;
    });
    await vi.waitFor(() => expect(frontier.claims).toHaveLength(2), { timeout: 5_000 });
    const [first, second] = frontier.claims;
    expect(second!.atMs - first!.atMs).toBeGreaterThanOrEqual(380);
    // Without the lead it would sleep the whole 700 ms.
    expect(second!.atMs - first!.atMs).toBeLessThan(680);
    expect(frontier.claims.map((c) => c.leadMs)).toEqual([300, 300]);
    // A wake message is taken the lead early too.
    frontier.dueInMs = 60_000;
    await vi.waitFor(() => expect(frontier.claims).toHaveLength(3), { timeout: 5_000 });
    const sentAt = Date.now();
    await wake(500);
    await vi.waitFor(() => expect(frontier.claims).toHaveLength(4), { timeout: 5_000 });
    expect(frontier.claims[3]!.atMs - sentAt).toBeLessThan(480);
  });

  it('a wake message for an earlier due time ends the sleep; a later one does not', async () => {
    const { frontier, wake, loop } = await rig({}, {}, (f) => {
      f.dueInMs = 60_000;
    });
    await vi.waitFor(() => expect(frontier.claims).toHaveLength(1));
    await wake(120_000); // later than the sleep's end: ignored
    await publisher.publish('unrelated', '0');
    await sleep(300);
    expect(frontier.claims).toHaveLength(1);
    expect(loop.stats().wakes).toBe(1);

    frontier.queue.push(lease());
    await wake(0);
    await vi.waitFor(() => expect(frontier.claims).toHaveLength(2), { timeout: 2_000 });
    expect(frontier.claims[1]?.got).toBe(1);
  });

  it('a wake message that arrives while a claim is running is not lost', async () => {
    // Each claim takes 200 ms, and what is enqueued meanwhile is not in its answer.
    const { frontier, wake } = await rig({}, { claimMs: 200 });
    // start() has sent the first claim; work arrives, and its wake message, while it runs.
    await sleep(50);
    frontier.queue.push(lease());
    await wake(0);
    await vi.waitFor(() => expect(frontier.claims.map((c) => c.got)).toEqual([0, 1]), {
      timeout: 3_000,
    });
  });

  it('poke() ends the sleep at once', async () => {
    const { frontier, loop } = await rig();
    await vi.waitFor(() => expect(frontier.claims).toHaveLength(1));
    frontier.queue.push(lease());
    loop.poke();
    await vi.waitFor(() => expect(frontier.claims).toHaveLength(2), { timeout: 2_000 });
  });
});
