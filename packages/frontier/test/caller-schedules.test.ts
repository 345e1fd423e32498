/**
 * What a caller other than the crawler pod (the URLFrontier service) sets per call: a claim's
 * own lease timeout and per-host cap, a completion's own refetch schedule (beating the URL's
 * interval), and the reader that finds the leases out on a host. Checked in what Redis holds
 * and in what later claims hand out.
 */
import { describe, expect, it } from 'vitest';
import { frontierFixture } from './frontier-fixture.js';

describe('caller schedules', () => {
  const { connect, make } = frontierFixture('cs');

  it('gives a claim its own lease timeout; the lease is taken back after it', async () => {
    const redis = connect();
    const { frontier, keys } = make({ leaseTimeoutMs: 60_000 });
    await frontier.enqueue(['https://lt.example/a']);
    const { leases } = await frontier.claim({ pod: 'pod-a', leaseTimeoutMs: 300 });
    expect(leases).toHaveLength(1);
    const lease = leases[0]!;
    expect(lease.deadlineMs - lease.claimedAtMs).toBe(300);
    const stored = await redis.zscore(
      keys.hostLeaseDeadlines('lt.example', 'lt.example'),
      lease.id.split('/').slice(1).join('/'),
    );
    expect(Number(stored)).toBe(lease.deadlineMs);
    // Not handed out again while leased, handed out again once the 300 ms lapsed.
    expect((await frontier.claim({ pod: 'pod-a' })).leases).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 350));
    const again = await frontier.claim({ pod: 'pod-a' });
    expect(again.leases.map((l) => [l.url, l.attempt])).toEqual([['https://lt.example/a', 2]]);
    await expect(frontier.claim({ pod: 'pod-a', leaseTimeoutMs: -1 })).rejects.toThrow(
      /leaseTimeoutMs/,
    );
  });

  it('caps the URLs one claim takes from a host', async () => {
    const { frontier } = make({ defaultConcurrency: 10 });
    await frontier.enqueue(['a', 'b', 'c', 'd'].map((p) => `https://cap.example/${p}`));
    const first = await frontier.claim({ pod: 'pod-a', max: 10, maxPerHost: 2 });
    expect(first.leases.map((l) => l.url)).toEqual([
      'https://cap.example/a',
      'https://cap.example/b',
    ]);
    const second = await frontier.claim({ pod: 'pod-a', max: 10 });
    expect(second.leases).toHaveLength(2);
    await expect(frontier.claim({ pod: 'pod-a', maxPerHost: 0 })).rejects.toThrow(/maxPerHost/);
  });

  it("a completion's own schedule beats the URL's interval: 0 is done, n refetches in n ms", async () => {
    const { frontier } = make();
    await frontier.enqueue([{ url: 'https://own.example/a', refetchAfterMs: 100 }]);
    const [first] = (await frontier.claim({ pod: 'pod-a' })).leases;
    await frontier.complete(first!, { refetchAfterMs: 250 });
    expect(await frontier.inspector.domainStats('own.example')).toMatchObject({
      queued: 1,
      scheduled: 1,
    });
    await new Promise((r) => setTimeout(r, 120));
    // The URL's own 100 ms interval would have brought it back by now; the caller's 250 did not.
    expect((await frontier.claim({ pod: 'pod-a' })).leases).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 200));
    const [second] = (await frontier.claim({ pod: 'pod-a' })).leases;
    expect(second?.url).toBe('https://own.example/a');
    await frontier.complete(second!, { refetchAfterMs: 0 });
    expect(await frontier.inspector.domainStats('own.example')).toMatchObject({
      queued: 0,
      scheduled: 0,
      fetched: 2,
    });
    await expect(frontier.complete(second!, { refetchAfterMs: -5 })).rejects.toThrow(
      /refetchAfterMs/,
    );
  });

  it('lists the leases out on a host with their holder, URL and deadline', async () => {
    const { frontier } = make({ defaultConcurrency: 5 });
    await frontier.enqueue(['https://held.example/a', 'https://held.example/b']);
    const { leases } = await frontier.claim({ pod: 'pod-a', max: 2, leaseTimeoutMs: 5000 });
    expect(leases).toHaveLength(2);
    const held = await frontier.inspector.hostLeases('held.example', 'held.example');
    expect(
      held
        .map(({ id, pod, url, deadlineMs }) => ({ id, pod, url, deadlineMs }))
        .sort((a, b) => a.url.localeCompare(b.url)),
    ).toEqual(
      leases
        .map(({ id, pod, url, deadlineMs }) => ({ id, pod, url, deadlineMs }))
        .sort((a, b) => a.url.localeCompare(b.url)),
    );
    await frontier.complete(leases[0]!);
    expect(await frontier.inspector.hostLeases('held.example', 'held.example')).toHaveLength(1);
  });

  it('drops a host queue and its refetch schedule; leases out finish; the URLs stay seen', async () => {
    const redis = connect();
    const { frontier, keys } = make({ defaultConcurrency: 5 });
    await frontier.enqueue([
      { url: 'https://drop.example/r', refetchAfterMs: 60_000 },
      'https://drop.example/a',
      'https://drop.example/b',
      'https://drop.example/c',
    ]);
    const { leases } = await frontier.claim({ pod: 'pod-a', max: 2 });
    await frontier.enqueue(['https://keep.example/a']);
    const r = leases.find((l) => l.url === 'https://drop.example/r')!;
    const a = leases.find((l) => l.url === 'https://drop.example/a')!;
    await frontier.complete(r); // scheduled for a refetch in a minute
    expect(await frontier.inspector.domainStats('drop.example')).toMatchObject({
      queued: 3,
      scheduled: 1,
      inFlight: 1,
    });
    expect(await frontier.dropHost('drop.example')).toBe(3);
    expect(await frontier.inspector.domainStats('drop.example')).toMatchObject({
      queued: 0,
      scheduled: 0,
      inFlight: 1,
    });
    expect(await redis.exists(keys.hostLevels('drop.example', 'drop.example'))).toBe(0);
    expect((await frontier.inspector.stats()).queued).toBe(1);
    expect((await frontier.inspector.stats()).dropped).toBe(3);
    // Seen: discovering them again queues nothing.
    const again = await frontier.enqueue(['https://drop.example/b', 'https://drop.example/c']);
    expect(again.duplicates).toBe(2);
    await frontier.complete(a);
    const rest = await frontier.claim({ pod: 'pod-a', max: 10 });
    expect(rest.leases.map((l) => l.url)).toEqual(['https://keep.example/a']);
    expect(await frontier.dropHost('drop.example')).toBe(0);
  });

  it('pages through a host queue in hand-out order', async () => {
    const { frontier } = make();
    await frontier.enqueue([
      { url: 'https://page.example/low1', priority: 0 },
      { url: 'https://page.example/high', priority: 5 },
      { url: 'https://page.example/low2', priority: 0 },
    ]);
    const all = await frontier.inspector.hostQueue('page.example', 'page.example');
    expect(all.map((u) => [u.url, u.priority])).toEqual([
      ['https://page.example/high', 5],
      ['https://page.example/low1', 0],
      ['https://page.example/low2', 0],
    ]);
    const second = await frontier.inspector.hostQueue('page.example', 'page.example', {
      offset: 1,
      limit: 1,
    });
    expect(second.map((u) => u.url)).toEqual(['https://page.example/low1']);
    expect(await frontier.inspector.hostQueue('none.example', 'none.example')).toEqual([]);
  });
});
