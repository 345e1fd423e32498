import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Batcher } from '../src/batcher.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Batcher', () => {
  it('sends items added within the delay in one call and gives each caller its results', async () => {
    const calls: number[][] = [];
    const batcher = new Batcher<number, number>(
      async (items) => {
        calls.push(items);
        return items.map((n) => n * 10);
      },
      5,
      100,
    );
    const a = batcher.add([1, 2]);
    const b = batcher.add([3]);
    expect(batcher.pending).toBe(3);
    await vi.advanceTimersByTimeAsync(5);
    expect(await a).toEqual([10, 20]);
    expect(await b).toEqual([30]);
    expect(calls).toEqual([[1, 2, 3]]);
  });

  it('flushes at once when maxItems is reached', async () => {
    const calls: number[][] = [];
    const batcher = new Batcher<number, number>(
      async (items) => {
        calls.push(items);
        return items;
      },
      1000,
      3,
    );
    const done = batcher.add([1, 2, 3]);
    expect(await done).toEqual([1, 2, 3]);
    expect(calls.length).toBe(1);
  });

  it('rejects every caller of a failed batch, and drain waits for running batches', async () => {
    const batcher = new Batcher<number, number>(
      async () => {
        throw new Error('redis down');
      },
      5,
      100,
    );
    const a = batcher.add([1]).catch((e: Error) => e.message);
    const b = batcher.add([2]).catch((e: Error) => e.message);
    await batcher.drain();
    expect(await a).toBe('redis down');
    expect(await b).toBe('redis down');
    expect(batcher.pending).toBe(0);
  });
});
