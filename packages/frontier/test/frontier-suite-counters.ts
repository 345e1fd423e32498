/**
 * Counters and indexes in the frontier's integration suite (see frontier-suite.ts): settled()
 * when the global counters are off, global and per-pod counters, and the domain indexes by
 * fetched, errors and dead letters against domainStats.
 */

import { expect, it, vi } from 'vitest';
import type { Lease } from '../src/index.js';
import { type FrontierSuite, sleep, twoPods } from './frontier-suite-context.js';
import { skewGlobalCounter } from './layout.js';

export function registerCounterTests({ connect, make, keysOf }: FrontierSuite): void {
  it('settled() answers from the domains themselves when the global counters are off', async () => {
    const f = make();
    const redis = connect();
    expect(await f.settled()).toBe(true);
    await f.enqueue(['https://s1.example/a', 'https://s2.example/b']);
    expect(await f.settled()).toBe(false);
    const leases: Lease[] = [];
    await vi.waitFor(
      async () => {
        leases.push(...(await f.claim({ pod: 'pod-a', max: 10 })).leases);
        expect(leases.length).toBeGreaterThanOrEqual(2);
      },
      { timeout: 5000, interval: 20 },
    );
    await f.complete(leases[0]!);
    // One lease still out: not settled, though nothing is queued.
    expect(await f.settled()).toBe(false);
    await f.complete(leases[1]!);
    // A pod killed between a script and its counter update leaves the sums off for good.
    await skewGlobalCounter(redis, keysOf(f).prefix, 'inFlight', 1);
    expect((await f.stats()).inFlight).toBe(1);
    expect(await f.settled()).toBe(true);
  });

  it('keeps global and per-pod counters without a scan', async () => {
    const f = make({ ownerOf: twoPods });
    await f.enqueue(['https://c1.example/1', 'https://c1.example/1', 'bad']);
    const pod = twoPods('c1.example');
    const [lease] = (await f.claim({ pod })).leases;
    await f.complete(lease!, { bytes: 42 });
    expect(await f.stats()).toMatchObject({
      enqueued: 1,
      duplicates: 1,
      rejected: 1,
      claimed: 1,
      fetched: 1,
      bytes: 42,
      queued: 0,
      inFlight: 0,
    });
    expect(await f.inspector.podStats(pod)).toMatchObject({
      claimed: 1,
      fetched: 1,
      inFlight: 0,
    });
    expect(await f.inspector.domains()).toEqual([{ domain: 'c1.example', count: 0 }]);
  });

  it('domain indexes by fetched, errors and dead letters match domainStats after complete/fail/dead/requeue', async () => {
    const f = make({ maxRetries: 1, backoffBaseMs: 1, backoffMaxMs: 1, leaseTimeoutMs: 300 });
    const redis = connect();
    const names = ['ix-a.example', 'ix-b.example', 'ix-c.example'];
    await f.enqueue([
      ...[1, 2, 3, 4].map((n) => `https://ix-a.example/${n}`),
      ...[1, 2, 3].map((n) => `https://ix-b.example/${n}`),
      ...[1, 2].map((n) => `https://ix-c.example/${n}`),
    ]);
    // What each URL does when claimed: a dead letter by a 404, one by retries running
    // out, a retry that then succeeds, and (ix-c/2) a lease left to expire twice.
    const plan: Record<string, 'ok' | 'gone' | 'flaky' | 'retry-ok' | 'abandon'> = {
      'https://ix-a.example/1': 'ok',
      'https://ix-a.example/2': 'ok',
      'https://ix-a.example/3': 'gone',
      'https://ix-a.example/4': 'flaky',
      'https://ix-b.example/1': 'ok',
      'https://ix-b.example/2': 'gone',
      'https://ix-b.example/3': 'retry-ok',
      'https://ix-c.example/1': 'ok',
      'https://ix-c.example/2': 'abandon',
    };
    const settled = new Set<string>();
    const deadline = Date.now() + 20_000;
    while (settled.size < 8 || (await f.inspector.domainStats('ix-c.example')).dead < 1) {
      if (Date.now() > deadline) throw new Error('mix did not settle');
      const { leases } = await f.claim({ pod: 'pod-a', max: 8 });
      for (const lease of leases) {
        const what = plan[lease.url]!;
        if (what === 'ok' || (what === 'retry-ok' && lease.attempt > 1)) {
          await f.complete(lease);
          settled.add(lease.url);
        } else if (what === 'gone') {
          await f.fail(lease, { retryable: false, reason: 'http-404', status: 404 });
          settled.add(lease.url);
        } else if (what !== 'abandon') {
          const { outcome } = await f.fail(lease, { retryable: true, reason: 'timeout' });
          if (outcome === 'dead') settled.add(lease.url);
        }
      }
      if (leases.length === 0) await sleep(20);
    }
    expect(await f.requeueDeadLetters('ix-b.example')).toBe(1);
    expect(await f.requeueDeadLetters('ix-a.example', 1)).toBe(1);

    const stats = await Promise.all(names.map((d) => f.inspector.domainStats(d)));
    const score = async (key: string, d: string) => Number((await redis.zscore(key, d)) ?? 0);
    for (const s of stats) {
      expect(await score(keysOf(f).domainsByFetched(), s.domain)).toBe(s.fetched);
      expect(await score(keysOf(f).domainsByErrors(), s.domain)).toBe(s.failed + s.dead);
      expect(await score(keysOf(f).domains(), s.domain)).toBe(s.queued);
    }
    // The mix reached every path: fetches, failures, dead letters, one domain emptied.
    expect(stats.map((s) => s.fetched).every((n) => n > 0)).toBe(true);
    expect(stats.find((s) => s.domain === 'ix-b.example')!.dead).toBe(0);
    expect(stats.filter((s) => s.dead > 0).length).toBe(2);

    const byCount = (pick: (s: (typeof stats)[number]) => number) =>
      stats
        .map((s) => ({ domain: s.domain, count: pick(s) }))
        .sort((x, y) => y.count - x.count || (x.domain < y.domain ? 1 : -1));
    expect(await f.inspector.domains({ sort: 'fetched' })).toEqual(byCount((s) => s.fetched));
    expect(await f.inspector.domains({ sort: 'errors' })).toEqual(
      byCount((s) => s.failed + s.dead),
    );
    const held = byCount((s) => s.dead).filter((d) => d.count > 0);
    expect(await f.inspector.deadLetterDomains()).toEqual(held);
    // The domain whose dead letters were all requeued left the index (not kept at 0).
    expect(await redis.zscore(keysOf(f).deadLetterDomains(), 'ix-b.example')).toBeNull();
    expect(await f.inspector.deadLetterDomains({ offset: 1, limit: 1 })).toEqual(held.slice(1, 2));
    for (const d of held) {
      expect(await f.inspector.deadLetters(d.domain)).toHaveLength(d.count);
    }
  });
}
