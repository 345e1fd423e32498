/** The send-gate stage with a real SendGate: it takes the host's pass, and a stop releases. */
import { describe, expect, it } from 'vitest';
import { SendGateStage } from '../../src/pipeline/send-gate-stage.js';
import { SendGate } from '../../src/send-gate.js';
import { contextOf } from './lease-fixture.js';

describe('SendGateStage', () => {
  it("takes the host's pass and passes the lease on", async () => {
    const gate = new SendGate({ minDelayMs: 0 });
    const ctx = contextOf('http://site.test/');
    expect(await new SendGateStage(gate).run(ctx)).toBeUndefined();
    expect(ctx.pass).toBeDefined();
    ctx.pass!.done();
  });

  it('waits out the host delay after the last send', async () => {
    const gate = new SendGate({ minDelayMs: 300 });
    const first = await gate.acquire('site.test');
    first.sent(Date.now());
    first.done();
    const started = Date.now();
    const ctx = contextOf('http://site.test/');
    await new SendGateStage(gate).run(ctx);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    ctx.pass!.done();
  });

  it('releases the lease when the pod stops while it waits', async () => {
    const gate = new SendGate({ minDelayMs: 60_000 });
    (await gate.acquire('site.test')).done();
    const stop = new AbortController();
    const ctx = contextOf('http://site.test/', {}, stop.signal);
    const run = new SendGateStage(gate).run(ctx);
    setTimeout(() => stop.abort(), 20);
    expect(await run).toEqual({ kind: 'release' });
    expect(ctx.pass).toBeUndefined();
  });
});
