/** The not-before stage: a lease claimed ahead goes on at its turn, never before it. */
import { describe, expect, it } from 'vitest';
import { NotBeforeStage, PRECISE_MAX_WAITING } from '../../src/pipeline/not-before.js';
import { contextOf } from './lease-fixture.js';

/** Runs `ctx` through `stage` and resolves with the monotonic time it went on at. */
async function wentOnAt(stage: NotBeforeStage, turnPerfMs: number) {
  const ctx = contextOf('http://site.test/', { notBeforePerfMs: turnPerfMs });
  const settlement = await stage.run(ctx);
  return { settlement, atMs: performance.now() };
}

describe('NotBeforeStage', () => {
  it('passes a lease without a turn at once', async () => {
    expect(await new NotBeforeStage().run(contextOf('http://site.test/'))).toBeUndefined();
  });

  it('never lets a lease go before its turn, waited precisely (few waiting)', async () => {
    const stage = new NotBeforeStage();
    for (let i = 0; i < 20; i++) {
      // Turns with sub-ms fractions, as the frontier maps them.
      const turn = performance.now() + 3 + Math.random() * 5;
      const { settlement, atMs } = await wentOnAt(stage, turn);
      expect(settlement).toBeUndefined();
      expect(atMs).toBeGreaterThanOrEqual(turn);
    }
  });

  it('never lets a lease go before its turn with many waiting (timer only)', async () => {
    const stage = new NotBeforeStage();
    const start = performance.now();
    const turns = Array.from(
      { length: PRECISE_MAX_WAITING * 3 },
      (_, i) => start + 5 + i * 0.7 + Math.random(),
    );
    const runs = await Promise.all(turns.map((turn) => wentOnAt(stage, turn)));
    runs.forEach(({ settlement, atMs }, i) => {
      expect(settlement).toBeUndefined();
      expect(atMs).toBeGreaterThanOrEqual(turns[i]!);
    });
  });

  it('releases the lease when the pod stops while it waits, in its last stretch too', async () => {
    for (const aheadMs of [60_000, 1]) {
      const stop = new AbortController();
      const ctx = contextOf(
        'http://site.test/',
        { notBeforePerfMs: performance.now() + aheadMs },
        stop.signal,
      );
      const run = new NotBeforeStage().run(ctx);
      stop.abort();
      expect(await run).toEqual({ kind: 'release' });
    }
  });
});
