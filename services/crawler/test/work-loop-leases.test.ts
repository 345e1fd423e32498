/**
 * The WorkLoop contract, part two: heartbeats for the leases the loop holds, and how it stops
 * and exits. Real timers throughout, so timing bounds stay generous. The rig is in
 * work-loop-fixture.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { lease, rig, sleep, subscribers, useWakeRedis } from './work-loop-fixture.js';

useWakeRedis();

describe('WorkLoop heartbeats', () => {
  it('extends leases older than the interval, all of a sweep in one heartbeatMany call', async () => {
    const { frontier, loop } = await rig({ heartbeatIntervalMs: 100 }, {}, (f) => {
      f.queue.push(lease({ deadlineMs: 1 }), lease({ deadlineMs: 1 }), lease({ deadlineMs: 0 }));
    });
    await vi.waitFor(() => expect(loop.inFlight).toBe(3));
    await vi.waitFor(() => expect(frontier.beats.length).toBeGreaterThanOrEqual(3), {
      timeout: 3_000,
    });
    const [a, b, never] = frontier.handedOut;
    const claimedAt = frontier.claims[0]!.atMs;
    for (const beat of frontier.beats) {
      // Only leases with a deadline; b may be claimed a turn after a, too young for a sweep.
      expect([a!.id, b!.id]).toEqual(expect.arrayContaining(beat.ids));
      // Not beaten before it is a whole interval old.
      expect(beat.atMs - claimedAt).toBeGreaterThanOrEqual(95);
    }
    // Once both are old enough, one sweep beats them in one call.
    expect(frontier.beats.some((beat) => beat.ids.length === 2)).toBe(true);
    // The new deadlines are kept on the leases; a lease without a deadline is never beaten.
    expect(a!.deadlineMs).toBeGreaterThan(Date.now());
    expect(b!.deadlineMs).toBeGreaterThan(Date.now());
    expect(never!.deadlineMs).toBe(0);
  });

  it('reports lost leases to onLeaseLost and other failures to onError, and goes on', async () => {
    const { frontier, loop, lost, errors } = await rig({ heartbeatIntervalMs: 50 }, {}, (f) => {
      f.queue.push(lease(), lease());
    });
    await vi.waitFor(() => expect(loop.inFlight).toBe(2));
    const [gone, kept] = frontier.handedOut.map((l) => l.id);
    frontier.lost.add(gone!);
    await vi.waitFor(() => expect(lost).toEqual([gone]));
    frontier.failNextSweep = new Error('redis down');
    await vi.waitFor(() =>
      expect(errors).toContainEqual({ error: new Error('redis down'), where: 'heartbeat' }),
    );
    // Sweeps go on for the lease still held; the lost one is reported once, not every sweep.
    const after = frontier.beats.length;
    await vi.waitFor(() => expect(frontier.beats.length).toBeGreaterThan(after + 2));
    expect(frontier.beats.at(-1)?.ids).toEqual([kept]);
    expect(lost).toEqual([gone]);
  });

  it('beats lease by lease when the frontier has no heartbeatMany', async () => {
    const { frontier, loop, lost, errors } = await rig(
      { heartbeatIntervalMs: 50 },
      { batched: false },
      (f) => f.queue.push(lease(), lease()),
    );
    expect(frontier.heartbeatMany).toBeUndefined();
    await vi.waitFor(() => expect(loop.inFlight).toBe(2));
    await vi.waitFor(() => expect(frontier.beats.length).toBeGreaterThanOrEqual(4));
    expect(frontier.beats.every((beat) => beat.ids.length === 1)).toBe(true);
    const [gone] = frontier.handedOut.map((l) => l.id);
    frontier.lost.add(gone!);
    await vi.waitFor(() => expect(lost).toEqual([gone]));
    frontier.failNextSweep = new Error('redis down');
    await vi.waitFor(() =>
      expect(errors).toContainEqual({ error: new Error('redis down'), where: 'heartbeat' }),
    );
  });
});

describe('WorkLoop stop and exit', () => {
  it('stop(graceMs) lets leases finish within the grace, then aborts and releases the rest', async () => {
    const { frontier, loop, handler } = await rig({}, {}, (f) => {
      f.queue.push(lease(), lease(), lease());
    });
    await vi.waitFor(() => expect(loop.inFlight).toBe(3));
    const claims = frontier.claims.length;
    const [quick] = handler.started;
    setTimeout(() => handler.finishOne(), 50);
    await loop.stop(400);
    expect(handler.finished).toHaveLength(3);
    expect(handler.aborted).toHaveLength(2);
    expect(handler.aborted).not.toContain(quick);
    expect(frontier.released.sort()).toEqual([...handler.aborted].sort());
    expect(frontier.claims).toHaveLength(claims);
    expect(loop.inFlight).toBe(0);
    await loop.done;
  });

  it('stop() with no lease in flight resolves at once and ends `done`', async () => {
    const { loop } = await rig();
    const started = Date.now();
    await loop.stop(5_000);
    await loop.done;
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('ends when shouldExit() says so, only with nothing in flight; done resolves', async () => {
    const asked: number[] = [];
    let exit = false;
    const { loop, handler } = await rig(
      {
        maxIdleSleepMs: 50,
        shouldExit: async () => {
          asked.push(loop.inFlight);
          return exit;
        },
      },
      {},
      (f) => f.queue.push(lease()),
    );
    await vi.waitFor(() => expect(handler.started).toHaveLength(1));
    await sleep(200);
    expect(asked).toEqual([]); // a lease is held: not idle
    handler.finishAll();
    await vi.waitFor(() => expect(asked.length).toBeGreaterThan(0));
    exit = true;
    await loop.done;
    expect(asked.every((n) => n === 0)).toBe(true);
  });

  it('reports a failed unsubscribe from the wake channel to onError and still ends', async () => {
    const { loop, errors } = await rig();
    subscribers.at(-1)!.disconnect();
    await loop.stop(0);
    expect(errors.map((e) => e.where)).toEqual(['wake']);
  });
});
