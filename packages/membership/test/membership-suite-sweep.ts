/**
 * The sweep in the membership integration suite (see membership-suite.ts): domains that
 * enqueuers with stale rings placed at departed or wrong pods end up at their owners.
 */
import { syntheticDomains } from '@shardline/ring';
import { expect, it, vi } from 'vitest';
import { placedExactly, SETTLE, waitPlaced } from './harness.js';
import { type MembershipSuite, urls } from './membership-suite-context.js';

export function registerSweepTests({ fleet }: MembershipSuite): void {
  it('the automatic sweep repairs a domain stranded in a departed pod index', async () => {
    const fl = fleet();
    const [a] = await fl.start('pod-a', 'pod-b');
    const swept = fl.pod('pod-s', { sweepIntervalMs: 300, sweepBatch: 50 });
    await swept.membership.start();
    await vi.waitFor(
      async () => expect(await fl.converged(), 'every pod on the new epoch').toBe(true),
      SETTLE,
    );
    const { RedisFrontier } = await import('@shardline/frontier');
    const stale = new RedisFrontier({
      redis: fl.connect(),
      prefix: fl.prefix,
      ownerOf: () => 'pod-gone',
      defaultDelayMs: 0,
      pinMs: 0,
    });
    const domains = syntheticDomains(120, 16);
    await stale.enqueue(urls(domains));
    const ids = ['pod-a', 'pod-b', 'pod-s', 'pod-gone'];
    await waitPlaced(
      a!.frontier.inspector,
      ids,
      domains,
      a!.membership.ownerOf,
      'the sweeps placed every domain',
    );
  });

  it('stale-ring enqueues: a live non-owner forwards, the sweep repairs the rest (one pod per interval)', async () => {
    const fl = fleet();
    const [a, b] = await fl.start('pod-a', 'pod-b');
    const owner = a!.membership.ownerOf;
    const domains = syntheticDomains(60, 15);
    const good = domains.slice(0, 30);
    await a!.frontier.enqueue(urls(good));
    // An enqueuer whose ring still names a pod that has gone.
    const { RedisFrontier } = await import('@shardline/frontier');
    const gone = new RedisFrontier({
      redis: fl.connect(),
      prefix: fl.prefix,
      ownerOf: () => 'pod-gone',
      defaultDelayMs: 0,
      pinMs: 0,
    });
    const strandedDomains = domains.slice(30, 50);
    await gone.enqueue(urls(strandedDomains));
    // An enqueuer that places domains at the wrong live pod.
    const wrong = domains.slice(50).filter((d) => owner(d) === 'pod-a');
    const misplaced = new RedisFrontier({
      redis: fl.connect(),
      prefix: fl.prefix,
      ownerOf: () => 'pod-b',
      defaultDelayMs: 0,
      pinMs: 0,
    });
    await misplaced.enqueue(urls(wrong));
    expect(wrong.length).toBeGreaterThan(0);
    const claimed = await b!.frontier.claim({ pod: 'pod-b', max: 100 });
    expect(claimed.leases.some((l) => wrong.includes(l.domain))).toBe(false);
    await b!.frontier.forwarded();
    expect(await placedExactly(a!.frontier.inspector, ['pod-a', 'pod-b'], wrong, owner)).toBe(true);
    for (const l of claimed.leases) await b!.frontier.complete(l);

    const reports = await Promise.all([a!.membership.sweep(), b!.membership.sweep()]);
    const ran = reports.filter((r) => r !== null);
    expect(ran).toHaveLength(1);
    // The departed-pod tidy on a heartbeat may have moved some of them first, early enough
    // for pod-b's claim above to take (and complete) those it owns: they were placed at
    // their owner, and with pinMs 0 their finished hosts left its index.
    expect(strandedDomains).toEqual(expect.arrayContaining(ran[0]!.stranded));
    const claimedThere = new Set(claimed.leases.map((l) => l.domain));
    for (const d of strandedDomains.filter((x) => claimedThere.has(x))) {
      expect(owner(d)).toBe('pod-b');
    }
    expect(
      await placedExactly(
        a!.frontier.inspector,
        ['pod-a', 'pod-b', 'pod-gone'],
        strandedDomains.filter((d) => !claimedThere.has(d)),
        owner,
      ),
    ).toBe(true);
    expect(await Promise.all([a!.membership.sweep(), b!.membership.sweep()])).toEqual([null, null]);
  });
}
