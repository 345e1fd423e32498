/**
 * reclaimPod works from the dead pod's own due index: its cost follows what that pod owned,
 * not the number of hosts in the frontier (counted in Redis' own command statistics), and it
 * still finds a lease whose host a ring change moved to another pod's index while the lease
 * was out.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { frontierFixture, LIVE_LAYOUT } from './frontier-fixture.js';

/** Calls per command so far, from `INFO commandstats` (e.g. `{ evalsha: 12, zscan: 3 }`). */
async function commandCalls(redis: Redis): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const m of (await redis.info('commandstats')).matchAll(/cmdstat_([\w|]+):calls=(\d+)/g)) {
    out[m[1]!] = Number(m[2]);
  }
  return out;
}

/** Script and scan calls between two `commandCalls` readings. */
function scriptAndScanCalls(before: Record<string, number>, after: Record<string, number>) {
  const delta = (name: string) => (after[name] ?? 0) - (before[name] ?? 0);
  return { scripts: delta('evalsha') + delta('eval'), scans: delta('zscan') + delta('scan') };
}

describe('reclaimPod', () => {
  const { connect, make } = frontierFixture('rc', [], LIVE_LAYOUT);

  it("touches only the dead pod's own hosts, however many hosts other pods own", async () => {
    const redis = connect();
    // 2,000 hosts owned by pod-b, 8 by pod-a; pod-b's hosts sit in its due index.
    const owner = (domain: string) => (domain.startsWith('a') ? 'pod-a' : 'pod-b');
    const { frontier, keys } = make({ leaseTimeoutMs: 0, ownerOf: owner });
    const others = Array.from({ length: 2000 }, (_, i) => `https://b${i}-rc.com/`);
    const mine = Array.from({ length: 8 }, (_, i) => `https://a${i}-rc.org/p`);
    await frontier.enqueue([...others, ...mine]);
    expect(await redis.zcard(keys.due('pod-b'))).toBe(2000);
    const { leases } = await frontier.claim({ pod: 'pod-a', max: 8 });
    expect(leases).toHaveLength(8);

    const before = await commandCalls(redis);
    expect(await frontier.reclaimPod('pod-a')).toEqual({ requeued: 8, deadLettered: 0 });
    const calls = scriptAndScanCalls(before, await commandCalls(redis));
    // 8 reclaim scripts, one index update, the counters; one scan page. The old reclaim ran
    // a script on each of the 2,008 hosts of every index and scanned pod-b's 2,000 members.
    expect(calls.scripts).toBeLessThan(30);
    expect(calls.scans).toBeLessThanOrEqual(2);
    // pod-b's hosts were not touched: still queued, still in its index.
    expect(await redis.zcard(keys.due('pod-b'))).toBe(2000);
    const again = await frontier.claim({ pod: 'pod-a', max: 8 });
    expect(again.leases.map((l) => l.url).sort()).toEqual(mine.sort());
  });

  it('finds a lease whose host moved to another pod while it was out (ring change)', async () => {
    const redis = connect();
    let ringOwner = 'pod-a';
    const { frontier, keys } = make({ leaseTimeoutMs: 0, ownerOf: () => ringOwner });
    const url = 'https://www.moved-rc.com/page';
    await frontier.enqueue([url, 'https://www.moved-rc.com/next']);
    const [lease] = (await frontier.claim({ pod: 'pod-a' })).leases;
    expect(lease?.url).toBe(url);

    // The ring moves the domain to pod-b; pod-a hands it off (evicting its own copy) while
    // its lease is still out, then dies.
    ringOwner = 'pod-b';
    await frontier.reindex('moved-rc.com', { evictFrom: 'pod-a' });
    const member = 'moved-rc.com/www.moved-rc.com';
    expect(await redis.zscore(keys.due('pod-b'), member)).not.toBeNull();
    // Listed, never polled, in the holder's own index: where reclaimPod looks.
    expect(await redis.zscore(keys.due('pod-a'), member)).toBe('inf');
    expect((await frontier.claim({ pod: 'pod-a' })).leases).toEqual([]);

    expect(await frontier.reclaimPod('pod-a')).toEqual({ requeued: 1, deadLettered: 0 });
    // The survivors' eviction then leaves the dead pod's index empty.
    await frontier.reindex('moved-rc.com', { evictFrom: 'pod-a' });
    expect(await redis.zcard(keys.due('pod-a'))).toBe(0);
    const got = (await frontier.claim({ pod: 'pod-b', max: 2 })).leases.map((l) => l.url);
    expect(got).toEqual([url]);
  });
});
