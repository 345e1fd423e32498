/**
 * The inspector's paged reads are bounded: a limit below 1 or a negative offset would turn
 * the LRANGE/ZRANGE behind them into a read of the whole list or index (`-1` is its end), so
 * they are refused with the argument named, as the other paged reads refuse them.
 */
import { describe, expect, it } from 'vitest';
import { FrontierArgumentError } from '../src/index.js';
import { frontierFixture, LIVE_LAYOUT } from './frontier-fixture.js';

describe('inspector pages', () => {
  const { make } = frontierFixture('ip', [], LIVE_LAYOUT);

  it('refuses a page that would read a whole due index, backlog or dead-letter list', async () => {
    const { frontier } = make();
    await frontier.enqueue(['https://pages.example/1', 'https://pages.example/2']);
    const { leases } = await frontier.claim({ pod: 'pod-a', max: 10 });
    for (const lease of leases)
      await frontier.fail(lease, { reason: 'http-404', retryable: false });
    const inspector = frontier.inspector;
    expect(await inspector.dueHosts('pod-a', { limit: 1 })).toHaveLength(1);
    expect(await inspector.deadLetters('pages.example', { limit: 1 })).toHaveLength(1);

    const reads = [
      (page: { offset?: number; limit?: number }) => inspector.dueHosts('pod-a', page),
      (page: { offset?: number; limit?: number }) => inspector.dueEntries('pod-a', page),
      (page: { offset?: number; limit?: number }) => inspector.backlogHosts('pod-a', page),
      (page: { offset?: number; limit?: number }) => inspector.deadLetters('pages.example', page),
    ];
    for (const read of reads) {
      await expect(read({ limit: -1 })).rejects.toThrow(FrontierArgumentError);
      await expect(read({ limit: 0 })).rejects.toThrow(/limit/);
      await expect(read({ offset: -2 })).rejects.toThrow(/offset/);
      await expect(read({ limit: 1.5 })).rejects.toThrow(/limit/);
    }
  });
});
