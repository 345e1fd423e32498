/** The pipeline runner: stage order, the first settlement wins, a failure counted as unsettled. */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { LeaseContext } from '../../src/pipeline/lease-context.js';
import { LeasePipeline } from '../../src/pipeline/lease-pipeline.js';
import type { LeaseStage, Settlement } from '../../src/pipeline/stage.js';
import { SendGate } from '../../src/send-gate.js';
import { leaseOf } from './lease-fixture.js';

function recorder() {
  const ran: string[] = [];
  const settled: { url: string; settlement: Settlement }[] = [];
  const stage = (name: string, end?: Settlement | Error): LeaseStage => ({
    name,
    run: async () => {
      ran.push(name);
      if (end instanceof Error) throw end;
      return end;
    },
  });
  const settler = {
    settle: async (ctx: LeaseContext, settlement: Settlement) => {
      settled.push({ url: ctx.lease.url, settlement });
    },
  };
  return { ran, settled, stage, settler };
}

const logger = pino({ level: 'silent' });

describe('LeasePipeline', () => {
  it('runs the stages in order and completes a lease every stage passed on', async () => {
    const r = recorder();
    const pipeline = new LeasePipeline({
      pod: 'p',
      stages: [r.stage('a'), r.stage('b'), r.stage('c')],
      settler: r.settler,
      logger,
    });
    expect(pipeline.stageNames).toEqual(['a', 'b', 'c']);
    await pipeline.handle(leaseOf('http://site.test/'), new AbortController().signal);
    expect(r.ran).toEqual(['a', 'b', 'c']);
    expect(r.settled).toEqual([{ url: 'http://site.test/', settlement: { kind: 'complete' } }]);
  });

  it('ends the lease at the first stage that settles it', async () => {
    const r = recorder();
    const pipeline = new LeasePipeline({
      pod: 'p',
      stages: [r.stage('a'), r.stage('b', { kind: 'release' }), r.stage('c')],
      settler: r.settler,
      logger,
    });
    await pipeline.handle(leaseOf('http://site.test/'), new AbortController().signal);
    expect(r.ran).toEqual(['a', 'b']);
    expect(r.settled.map((s) => s.settlement)).toEqual([{ kind: 'release' }]);
  });

  it('counts a lease whose handling threw as unsettled, and frees its gate pass', async () => {
    const r = recorder();
    const gate = new SendGate({ minDelayMs: 0 });
    const takePass: LeaseStage = {
      name: 'gate',
      run: async (ctx) => {
        ctx.pass = await gate.acquire(ctx.lease.host);
        return undefined;
      },
    };
    const pipeline = new LeasePipeline({
      pod: 'p',
      stages: [takePass, r.stage('boom', new Error('redis down'))],
      settler: r.settler,
      logger,
    });
    await pipeline.handle(leaseOf('http://site.test/'), new AbortController().signal);
    expect(pipeline.unsettled).toBe(1);
    expect(r.settled).toEqual([]);
    // The host's one slot is free again.
    (await gate.acquire('site.test', AbortSignal.timeout(1000))).done();
  });

  it('refuses two stages of one name', () => {
    const r = recorder();
    expect(
      () =>
        new LeasePipeline({
          pod: 'p',
          stages: [r.stage('a'), r.stage('a')],
          settler: r.settler,
          logger,
        }),
    ).toThrow(/stages must be uniquely named/);
  });
});
