/** When an idle pod stops by itself: grace after the crawl looks finished; frozen counters. */
import { describe, expect, it } from 'vitest';
import { FROZEN_COUNTERS_MS, IdleExit } from '../src/idle-exit.js';

function setup(graceMs = 1000) {
  const state = {
    now: 1_000_000,
    claimed: 0,
    queued: 0,
    inFlight: 0,
    settled: false,
    pending: false,
  };
  let settledChecks = 0;
  const idle = new IdleExit({
    frontier: {
      stats: async () => ({ queued: state.queued, inFlight: state.inFlight }),
      settled: async () => {
        settledChecks += 1;
        return state.settled;
      },
    },
    graceMs,
    claimed: () => state.claimed,
    pendingWrites: () => state.pending,
    now: () => state.now,
  });
  return { idle, state, settledChecks: () => settledChecks };
}

describe('IdleExit', () => {
  it('stops once nothing was queued, in flight or claimed for the grace period', async () => {
    const { idle, state } = setup(1000);
    expect(await idle.shouldExit()).toBe(false); // first look: starts the clock
    state.now += 999;
    expect(await idle.shouldExit()).toBe(false);
    state.now += 1;
    expect(await idle.shouldExit()).toBe(true);
  });

  it('starts over when the pod claimed something, and waits for its batched writes', async () => {
    const { idle, state } = setup(1000);
    await idle.shouldExit();
    state.now += 900;
    state.claimed = 3;
    expect(await idle.shouldExit()).toBe(false);
    state.now += 900;
    expect(await idle.shouldExit()).toBe(false);
    state.pending = true;
    state.now += 200;
    expect(await idle.shouldExit()).toBe(false);
    state.pending = false;
    expect(await idle.shouldExit()).toBe(true);
  });

  it('never stops while the global counters say busy and keep moving', async () => {
    const { idle, state, settledChecks } = setup(100);
    state.queued = 5;
    for (let i = 0; i < 10; i++) {
      state.queued = 5 + i;
      state.now += FROZEN_COUNTERS_MS;
      expect(await idle.shouldExit()).toBe(false);
    }
    expect(settledChecks()).toBe(0);
  });

  it('checks frozen "busy" counters exactly after max(5 s, grace), and stops once settled', async () => {
    const { idle, state, settledChecks } = setup(100);
    state.inFlight = 1; // as left by a pod killed between a script and its counter update
    await idle.shouldExit(); // notes the claim count
    expect(await idle.shouldExit()).toBe(false); // the counters' clock starts
    state.now += FROZEN_COUNTERS_MS - 1;
    expect(await idle.shouldExit()).toBe(false);
    expect(settledChecks()).toBe(0);
    state.now += 1;
    expect(await idle.shouldExit()).toBe(false); // checked: not settled yet
    expect(settledChecks()).toBe(1);
    state.settled = true;
    state.now += FROZEN_COUNTERS_MS;
    expect(await idle.shouldExit()).toBe(false); // settled now; the grace starts
    expect(settledChecks()).toBe(2);
    state.now += 100;
    expect(await idle.shouldExit()).toBe(true);
  });
});
