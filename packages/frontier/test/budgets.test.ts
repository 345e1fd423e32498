/**
 * Budgets: a hard cap of URLs accepted per host (the rest counted over-cap) and a refilling
 * claim budget per domain (spent: URLs stay queued and resume at refill). Checked in Redis
 * and in what claims hand out.
 */
import { describe, expect, it } from 'vitest';
import { FrontierCapCode, type FrontierOptions } from '../src/index.js';
import { frontierFixture, LIVE_LAYOUT } from './frontier-fixture.js';

describe('budgets', () => {
  const { connect, make: makeFrontier } = frontierFixture('b', [], LIVE_LAYOUT);
  const make = (options: Partial<FrontierOptions> = {}) =>
    makeFrontier({ defaultConcurrency: 10, ...options });

  it('maxAcceptedPerHost caps each host; the rest is over-cap with its code, in the stats', async () => {
    const redis = connect();
    const { frontier, keys } = make({ maxAcceptedPerHost: 2 });
    const report = await frontier.enqueue([
      'https://a.cap-test.com/1',
      'https://a.cap-test.com/2',
      'https://a.cap-test.com/3',
      'https://b.cap-test.com/1',
    ]);
    expect(report.results.map((r) => [r.status, r.code])).toEqual([
      ['queued', undefined],
      ['queued', undefined],
      ['over-cap', FrontierCapCode.HOST_ACCEPT_CAP],
      ['queued', undefined],
    ]);
    // The cap holds across batches and after the host's URLs were claimed.
    const { leases } = await frontier.claim({ pod: 'pod-a', max: 10 });
    for (const lease of leases) await frontier.complete(lease);
    const later = await frontier.enqueue(['https://a.cap-test.com/4', 'https://b.cap-test.com/2']);
    expect(later.results.map((r) => r.status)).toEqual(['over-cap', 'queued']);
    expect(await redis.hget(keys.hostState('cap-test.com', 'a.cap-test.com'), 'ha')).toBe('2');
    expect(await frontier.inspector.domainStats('cap-test.com')).toMatchObject({
      overCap: 2,
      enqueued: 4,
      seen: 4,
    });
    expect((await frontier.stats()).overCap).toBe(2);
  });

  it('a refilling domain budget holds URLs queued until the window ends, then resumes', async () => {
    const redis = connect();
    const periodMs = 600;
    const { frontier, keys } = make({ domainBudget: { pages: 2, periodMs } });
    await frontier.enqueue([
      'https://www.bud-test.com/1',
      'https://www.bud-test.com/2',
      'https://img.bud-test.com/1',
      'https://img.bud-test.com/2',
      'https://img.bud-test.com/3',
    ]);
    const first = (await frontier.claim({ pod: 'pod-a', max: 10 })).leases;
    expect(first).toHaveLength(2);
    for (const lease of first) await frontier.complete(lease);
    const stats = await frontier.inspector.domainStats('bud-test.com');
    expect(stats).toMatchObject({ queued: 3, budgetSpent: 2 });
    const refillAt = stats.budgetRefillAtMs;
    expect(refillAt).toBe(Number(await redis.hget(keys.domain('bud-test.com'), 'bw')) + periodMs);
    // Every host with URLs left waits in the due index until the refill.
    const due = await frontier.inspector.dueHosts('pod-a');
    expect(due.map((d) => d.dueAtMs)).toEqual(due.map(() => refillAt));
    expect((await frontier.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);

    await new Promise((r) => setTimeout(r, periodMs + 50));
    const second = (await frontier.claim({ pod: 'pod-a', max: 10 })).leases;
    expect(second).toHaveLength(2);
    for (const lease of second) expect(lease.claimedAtMs).toBeGreaterThanOrEqual(refillAt);
    expect((await frontier.inspector.domainStats('bud-test.com')).queued).toBe(1);
  });

  it('a URL released unfetched gives its claim back to the budget', async () => {
    const periodMs = 60_000;
    const { frontier } = make({ domainBudget: { pages: 1, periodMs } });
    await frontier.enqueue(['https://www.refund-test.com/1', 'https://www.refund-test.com/2']);
    const [first] = (await frontier.claim({ pod: 'pod-a', max: 10 })).leases;
    expect((await frontier.inspector.domainStats('refund-test.com')).budgetSpent).toBe(1);
    // Given back untouched (as a pod does when the host's robots.txt took its turn first).
    await frontier.release(first!);
    expect(await frontier.inspector.domainStats('refund-test.com')).toMatchObject({
      budgetSpent: 0,
      queued: 2,
    });
    const [again] = (await frontier.claim({ pod: 'pod-a', max: 10 })).leases;
    expect(again?.url).toBe(first!.url);
    await frontier.complete(again!);
    // The fetched one keeps its claim: the budget is spent and the other URL waits.
    expect((await frontier.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);
    expect(await frontier.inspector.domainStats('refund-test.com')).toMatchObject({
      budgetSpent: 1,
      queued: 1,
    });
  });

  it('a release after the window rolled over leaves the new window alone', async () => {
    const redis = connect();
    const periodMs = 400;
    const { frontier, keys } = make({ domainBudget: { pages: 2, periodMs } });
    await frontier.enqueue(['https://a.roll-test.com/1', 'https://b.roll-test.com/1']);
    const [old] = (await frontier.claim({ pod: 'pod-a', max: 1 })).leases;
    await new Promise((r) => setTimeout(r, periodMs + 50));
    // A claim in the new window, then the old lease comes back.
    const [fresh] = (await frontier.claim({ pod: 'pod-a', max: 10 })).leases;
    expect(fresh).toBeDefined();
    expect(await redis.hget(keys.domain('roll-test.com'), 'bn')).toBe('1');
    await frontier.release(old!);
    expect(await redis.hget(keys.domain('roll-test.com'), 'bn')).toBe('1');
  });

  it('rejects a malformed budget, naming the option', () => {
    expect(() => make({ domainBudget: { pages: 0, periodMs: 1000 } })).toThrow(/domainBudget/);
    expect(() => make({ maxAcceptedPerHost: -1 })).toThrow(/maxAcceptedPerHost/);
  });
});
