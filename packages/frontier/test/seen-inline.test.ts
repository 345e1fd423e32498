/**
 * A small seen-set lives in the domain hash (field S, 8 bytes per fingerprint; seen.lua):
 * no bucket key for the few URLs most domains of a wide crawl have. Still exact: duplicates
 * are found inline, across the move to bucket 0 and after it; refused URLs leave no mark.
 * How many stay inline, and how full a bucket grows before it splits, follow the server's
 * settings, so that the domain hash stays a listpack and every bucket an intset.
 */
import { describe, expect, it } from 'vitest';
import { frontierFixture, LIVE_LAYOUT } from './frontier-fixture.js';

const urls = (d: string, n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `https://${d}/${from + i}`);

describe('inline seen-set', () => {
  const { connect, make } = frontierFixture('si', [], LIVE_LAYOUT);

  it('keeps up to 128 fingerprints in the domain hash (hash-max-listpack-value 1024), then moves them all to bucket 0', async () => {
    const redis = connect();
    const { frontier, keys } = make();
    const d = 'inline-seen.com';
    expect((await frontier.enqueue(urls(d, 128))).queued).toBe(128);
    expect(((await redis.hgetBuffer(keys.domain(d), 'S')) ?? Buffer.alloc(0)).length).toBe(1024);
    expect(await redis.exists(keys.seenBucket(d, 0))).toBe(0);
    expect(await redis.call('object', 'encoding', keys.domain(d))).toBe('listpack');
    expect((await frontier.enqueue(urls(d, 128))).duplicates).toBe(128);
    const { inspector } = frontier;
    const at = (url: string) => ({ url, host: d, domain: d });
    expect((await inspector.urlStatus(at(`https://${d}/3`))).state).toBe('queued');
    expect((await inspector.urlStatus(at(`https://${d}/199`))).state).toBe('unseen');

    // The 129th: all 129 to bucket 0, the field gone; still exact.
    const report = await frontier.enqueue([...urls(d, 2, 127)]);
    expect(report.duplicates).toBe(1);
    expect(report.queued).toBe(1);
    expect(await redis.hexists(keys.domain(d), 'S')).toBe(0);
    expect(await redis.scard(keys.seenBucket(d, 0))).toBe(129);
    expect((await frontier.enqueue(urls(d, 130))).duplicates).toBe(129);
    expect(await redis.hget(keys.domain(d), 'seen')).toBe('130');
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

  it('takes seenInlineMax and seenBucketLoad as given: frontiers with other values share a seen-set exactly', async () => {
    const redis = connect();
    const small = make({ seenInlineMax: 4, seenBucketLoad: 16 });
    const big = make({}, small.prefix);
    const d = 'given-layout.com';
    expect((await small.frontier.enqueue(urls(d, 4))).queued).toBe(4);
    expect(((await redis.hgetBuffer(small.keys.domain(d), 'S')) ?? Buffer.alloc(0)).length).toBe(
      32,
    );
    // The fifth moves them to a bucket; 300 split it into ~300 / 16 buckets.
    expect((await small.frontier.enqueue(urls(d, 300))).queued).toBe(296);
    const [level] = await redis.hmget(small.keys.domain(d), 'sL');
    expect(Number(level)).toBeGreaterThanOrEqual(4);
    // A frontier with the server's layout finds every one of them, and adds new ones.
    const again = await big.frontier.enqueue(urls(d, 310));
    expect(again.duplicates).toBe(300);
    expect(again.queued).toBe(10);
    expect(await redis.hget(small.keys.domain(d), 'seen')).toBe('310');
  });
});

describe("seen-set on a server with Redis' default hash and set settings", () => {
  // Redis' own defaults for the two settings (set-max-intset-entries 512 would be split at
  // 200, as before; 128 shows the load follows the server).
  const { connect, make } = frontierFixture(
    'sd',
    ['--hash-max-listpack-value', '64', '--set-max-intset-entries', '128'],
    LIVE_LAYOUT,
  );

  it('keeps the domain hash a listpack and every bucket an intset', async () => {
    const redis = connect();
    const { frontier, keys } = make();
    const d = 'default-settings.com';
    // 8 fingerprints (64 B) inline, no more: a longer field would make the hash a hashtable.
    expect((await frontier.enqueue(urls(d, 8))).queued).toBe(8);
    expect(((await redis.hgetBuffer(keys.domain(d), 'S')) ?? Buffer.alloc(0)).length).toBe(64);
    expect((await frontier.enqueue(urls(d, 60))).queued).toBe(52);
    expect(await redis.hexists(keys.domain(d), 'S')).toBe(0);
    expect(await redis.call('object', 'encoding', keys.domain(d))).toBe('listpack');
    // 2,000 URLs: buckets of ~50 on average (128 ÷ 2.56), none past 128.
    expect((await frontier.enqueue(urls(d, 2000))).queued).toBe(1940);
    const [level, split] = await redis.hmget(keys.domain(d), 'sL', 'sS');
    const buckets = 2 ** Number(level) + Number(split);
    expect(buckets).toBeGreaterThanOrEqual(32);
    let total = 0;
    for (let b = 0; b < buckets; b++) {
      const key = keys.seenBucket(d, b);
      expect(await redis.call('object', 'encoding', key)).toBe('intset');
      total += await redis.scard(key);
    }
    expect(total).toBe(2000);
    expect((await frontier.enqueue(urls(d, 2000))).duplicates).toBe(2000);
  });
});
