/**
 * `claim({ hosts })`: a claim that visits named hosts instead of the pod's due index
 * (URLFrontier's GetURLs with a key): only those hosts, only where the pod owns the domain,
 * the politeness gate still holding, and the due index re-scored as after any claim.
 */
import { describe, expect, it } from 'vitest';
import { frontierFixture, LIVE_LAYOUT } from './frontier-fixture.js';

describe('claim from named hosts', () => {
  const { connect, make } = frontierFixture('nc', [], LIVE_LAYOUT);

  it('claims from the named hosts the pod owns, gate and due index as usual', async () => {
    const redis = connect();
    const { frontier, keys } = make({
      defaultConcurrency: 10,
      ownerOf: (domain) => (domain === 'theirs-test.com' ? 'pod-b' : 'pod-a'),
    });
    await frontier.enqueue([
      'https://a.nc-test.com/1',
      'https://a.nc-test.com/2',
      'https://b.nc-test.com/1',
      'https://x.theirs-test.com/1',
    ]);
    const named = await frontier.claim({ pod: 'pod-a', max: 10, hosts: ['a.nc-test.com'] });
    expect(named.leases.map((l) => l.url).sort()).toEqual([
      'https://a.nc-test.com/1',
      'https://a.nc-test.com/2',
    ]);
    // Another pod's domain: nothing, and its URL stays queued.
    const foreign = await frontier.claim({ pod: 'pod-a', hosts: ['x.theirs-test.com'] });
    expect(foreign.leases).toEqual([]);
    expect(
      (await frontier.inspector.hostState('theirs-test.com', 'x.theirs-test.com')).queued,
    ).toBe(1);
    // The claimed host is re-scored (only leases out: their deadline); b is still due.
    const leaseScore = Number(await redis.zscore(keys.due('pod-a'), 'nc-test.com/a.nc-test.com'));
    expect(leaseScore).toBe(named.leases[0]!.deadlineMs);
    expect(await redis.zscore(keys.due('pod-a'), 'nc-test.com/b.nc-test.com')).not.toBeNull();

    // The gate still decides: with a 60 s delay, one URL, then none.
    await frontier.enqueue(['https://b.nc-test.com/2']);
    await frontier.setHostPolicy('b.nc-test.com', { delayMs: 60_000 });
    const gated = await frontier.claim({ pod: 'pod-a', max: 10, hosts: ['b.nc-test.com'] });
    expect(gated.leases).toHaveLength(1);
    expect(
      (await frontier.claim({ pod: 'pod-a', max: 10, hosts: ['b.nc-test.com'] })).leases,
    ).toEqual([]);
    await expect(
      frontier.claim({ pod: 'pod-a', hosts: Array.from({ length: 101 }, (_, i) => `h${i}.com`) }),
    ).rejects.toMatchObject({ code: 'SHARDLINE_ERR_FRONTIER_ARGUMENT' });
  });
});
