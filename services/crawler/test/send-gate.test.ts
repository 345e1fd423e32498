import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SendGate } from '../src/send-gate.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Resolves to the fake time at which `promise` settled, or 'pending'. */
async function settledAt(promise: Promise<unknown>, maxMs: number): Promise<number | 'pending'> {
  let at: number | undefined;
  void promise.then(
    () => {
      at = Date.now();
    },
    () => {
      at = Date.now();
    },
  );
  for (let t = 0; t <= maxMs && at === undefined; t += 10) await vi.advanceTimersByTimeAsync(10);
  return at ?? 'pending';
}

describe('SendGate', () => {
  it('keeps the gap from the reported send time, not from the acquire (a stall is no burst)', async () => {
    const gate = new SendGate({ minDelayMs: 1000 });
    const t0 = Date.now();
    const first = await gate.acquire('a.test');
    // The request really went out 300 ms later (event-loop stall between acquire and send).
    first.sent(t0 + 300);
    first.done(5);
    const at = await settledAt(gate.acquire('a.test'), 3000);
    expect(at).not.toBe('pending');
    expect((at as number) - (t0 + 300)).toBeGreaterThanOrEqual(1000);
    expect((at as number) - (t0 + 300)).toBeLessThan(1100);
  });

  it('holds a second request while the first is open at concurrency 1', async () => {
    const gate = new SendGate({ minDelayMs: 0 });
    const first = await gate.acquire('a.test');
    first.sent(Date.now());
    const second = gate.acquire('a.test');
    expect(await settledAt(second, 500)).toBe('pending');
    first.done();
    expect(await settledAt(second, 50)).not.toBe('pending');
  });

  it('lets other hosts through at once', async () => {
    const gate = new SendGate({ minDelayMs: 1000 });
    (await gate.acquire('a.test')).sent(Date.now());
    const t0 = Date.now();
    await gate.acquire('b.test');
    expect(Date.now()).toBe(t0);
  });

  it('applies a host delay (robots crawl-delay) above the minimum, capped by maxDelayMs', async () => {
    const gate = new SendGate({ minDelayMs: 100, maxDelayMs: 1500 });
    gate.setHostDelay('slow.test', 2000);
    expect(gate.delayOf('slow.test')).toBe(1500);
    expect(gate.delayOf('other.test')).toBe(100);
    const t0 = Date.now();
    const p = await gate.acquire('slow.test');
    p.sent(t0);
    p.done();
    const at = await settledAt(gate.acquire('slow.test'), 3000);
    expect((at as number) - t0).toBeGreaterThanOrEqual(1500);
  });

  it('adds factor × response time when adaptive', async () => {
    const gate = new SendGate({ minDelayMs: 100, adaptiveDelayFactor: 2 });
    const p = await gate.acquire('a.test');
    p.sent(Date.now());
    p.done(400);
    expect(gate.delayOf('a.test')).toBe(800);
  });

  it('rejects a waiting acquire when its signal aborts', async () => {
    const gate = new SendGate({ minDelayMs: 10_000 });
    (await gate.acquire('a.test')).sent(Date.now());
    const controller = new AbortController();
    const waiting = gate.acquire('a.test', controller.signal);
    const outcome = waiting.then(
      () => 'passed',
      () => 'aborted',
    );
    controller.abort();
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toBe('aborted');
  });

  it('forgets hosts once their delay has passed (bounded memory)', async () => {
    const gate = new SendGate({ minDelayMs: 1000 });
    for (let i = 0; i < 50; i++) {
      const p = await gate.acquire(`h${i}.test`);
      p.sent(Date.now());
      p.done();
    }
    expect(gate.stats().hosts).toBe(50);
    gate.sweep();
    expect(gate.stats().hosts).toBe(50);
    await vi.advanceTimersByTimeAsync(1001);
    gate.sweep();
    expect(gate.stats().hosts).toBe(0);
  });

  it('validates its options', () => {
    expect(() => new SendGate({ minDelayMs: -1 })).toThrow(/minDelayMs/);
    expect(() => new SendGate({ concurrency: 0 })).toThrow(/concurrency/);
    expect(() => new SendGate({ adaptiveDelayFactor: Number.NaN })).toThrow(/adaptiveDelayFactor/);
  });
});
