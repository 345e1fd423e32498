/** robots.txt requests through a real SendGate: a pass per request, closed with its real times. */
import { describe, expect, it } from 'vitest';
import { RobotsGate } from '../src/robots-gate.js';
import { SendGate } from '../src/send-gate.js';

describe('RobotsGate', () => {
  it('takes the host pass before the request and counts the response head as its send', async () => {
    let now = 1_000_000;
    const gate = new SendGate({ minDelayMs: 1000, now: () => now });
    const robots = new RobotsGate(gate, new AbortController().signal);
    await robots.beforeFetch('http://site.test:8080');
    robots.onFetch({
      origin: 'http://site.test:8080',
      timings: { startedAtMs: now, sentAtMs: now + 10, headersAtMs: now + 400, endAtMs: now + 450 },
    });
    now += 450;
    // The gap runs from the response head (now - 50), not from the reservation.
    expect(gate.waitMs('site.test')).toBe(950);
  });

  it('closes the passes of one host in request order, a request never sent included', async () => {
    const gate = new SendGate({ minDelayMs: 0, concurrency: 2 });
    const robots = new RobotsGate(gate, new AbortController().signal);
    await robots.beforeFetch('http://site.test');
    await robots.beforeFetch('http://site.test');
    robots.onFetch({ origin: 'http://site.test', timings: { startedAtMs: 0, endAtMs: 1 } });
    robots.onFetch({ origin: 'http://site.test', timings: { startedAtMs: 0, endAtMs: 1 } });
    // Both slots are free again.
    const signal = AbortSignal.timeout(1000);
    const passes = [
      await gate.acquire('site.test', signal),
      await gate.acquire('site.test', signal),
    ];
    for (const pass of passes) pass.done();
  });

  it('gives up waiting at the gate when the pod stops', async () => {
    const gate = new SendGate({ minDelayMs: 60_000 });
    (await gate.acquire('site.test')).done();
    const closing = new AbortController();
    const robots = new RobotsGate(gate, closing.signal);
    const wait = robots.beforeFetch('http://site.test');
    closing.abort();
    await expect(wait).rejects.toThrow();
  });
});
