/** Batched enqueue of found URLs: chunks of 1000, one result per item, the loop woken. */
import type { EnqueueItem, EnqueueReport } from '@shardline/frontier';
import { describe, expect, it } from 'vitest';
import { LinkEnqueuer } from '../../src/pipeline/link-enqueuer.js';

function frontier(wake: string[]) {
  const calls: number[] = [];
  return {
    calls,
    enqueue: async (items: readonly EnqueueItem[]): Promise<EnqueueReport> => {
      calls.push(items.length);
      return {
        results: items.map(() => ({ status: 'queued' as const })),
        queued: items.length,
        duplicates: 0,
        rejected: 0,
        overCap: 0,
        wokenPods: wake,
      };
    },
  };
}

const urls = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ url: `http://site.test/${from + i}`, depth: 1 }));

describe('LinkEnqueuer', () => {
  it('batches the links of leases that finish together, in chunks of 1000', async () => {
    const f = frontier([]);
    const enqueuer = new LinkEnqueuer({ frontier: f, pod: 'p', onWoken: () => undefined });
    const [a, b] = await Promise.all([enqueuer.add(urls(600)), enqueuer.add(urls(1900, 600))]);
    expect(a).toHaveLength(600);
    expect(b).toHaveLength(1900);
    expect(f.calls.reduce((x, y) => x + y, 0)).toBe(2500);
    expect(Math.max(...f.calls)).toBeLessThanOrEqual(1000);
    expect(enqueuer.pending).toBe(0);
  });

  it('wakes the own loop only when the batch gave this pod due work', async () => {
    let woken = 0;
    const mine = new LinkEnqueuer({ frontier: frontier(['p']), pod: 'p', onWoken: () => woken++ });
    await mine.add(urls(3));
    const other = new LinkEnqueuer({ frontier: frontier(['q']), pod: 'p', onWoken: () => woken++ });
    await other.add(urls(3));
    await other.drain();
    expect(woken).toBe(1);
  });
});
