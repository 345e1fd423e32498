/**
 * A small seen-set lives in the domain hash (field S, 8 bytes per fingerprint; seen.lua):
 * no bucket key for the few URLs most domains of a wide crawl have. Still exact: duplicates
 * are found inline, across the move to bucket 0 and after it; refused URLs leave no mark.
 */
import { describe, expect, it } from 'vitest';
import { frontierFixture } from './frontier-fixture.js';

describe('inline seen-set', () => {
  const { connect, make } = frontierFixture('si');
  const urls = (d: string, n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => `https://${d}/${from + i}`);

  it('keeps up to 63 fingerprints in the domain hash, then moves them all to bucket 0', async () => {
    const redis = connect();
    const { frontier, keys } = make();
    const d = 'inline-seen.com';
    expect((await frontier.enqueue(urls(d, 63))).queued).toBe(63);
    expect(((await redis.hgetBuffer(keys.domain(d), 'S')) ?? Buffer.alloc(0)).length).toBe(504);
    expect(await redis.exists(keys.seenBucket(d, 0))).toBe(0);
    expect(await redis.call('object', 'encoding', keys.domain(d))).toBe('listpack');
    expect((await frontier.enqueue(urls(d, 63))).duplicates).toBe(63);
    const { inspector } = frontier;
    const at = (url: string) => ({ url, host: d, domain: d });
    expect((await inspector.urlStatus(at(`https://${d}/3`))).state).toBe('queued');
    expect((await inspector.urlStatus(at(`https://${d}/99`))).state).toBe('unseen');

    // The 64th: all 64 to bucket 0, the field gone; still exact.
    const report = await frontier.enqueue([...urls(d, 2, 62)]);
    expect(report.duplicates).toBe(1);
    expect(report.queued).toBe(1);
    expect(await redis.hexists(keys.domain(d), 'S')).toBe(0);
    expect(await redis.scard(keys.seenBucket(d, 0))).toBe(64);
    expect((await frontier.enqueue(urls(d, 65))).duplicates).toBe(64);
    expect(await redis.hget(keys.domain(d), 'seen')).toBe('65');
    expect((await inspector.urlStatus(at(`https://${d}/3`))).state).toBe('queued');
  });

  it('a URL refused by a cap leaves no inline mark', async () => {
    const redis = connect();
    const { frontier, keys } = make({ maxAcceptedPerDomain: 2 });
    const d = 'inline-cap.com';
    const r = await frontier.enqueue(urls(d, 4));
    expect(r.queued).toBe(2);
    expect(r.overCap).toBe(2);
    expect(((await redis.hgetBuffer(keys.domain(d), 'S')) ?? Buffer.alloc(0)).length).toBe(16);
    expect(await redis.hget(keys.domain(d), 'seen')).toBe('2');
  });
});
