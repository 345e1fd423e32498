/**
 * Membership changes with packed domains (frontier `packAfterDomains: 0`: every new
 * one-URL domain is folded into its archive field and named in its owner's backlog, not in
 * its due index): a crashed pod's backlog is spilled and moved by the survivor that
 * reclaims it, a leaver's backlog reaches the survivors, and a join's old owners forward
 * the names that moved instead of leasing them. Every URL is leased exactly once. One
 * real redis-server; assertions read what Redis and the frontier hold.
 */
import type { FrontierOptions, Lease } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { Fleet, type Pod, SETTLE, sleep } from './harness.js';

const DOMAINS = 300;
const domains = Array.from({ length: DOMAINS }, (_, i) => `d${i}.example`);
const urls = domains.map((d) => `https://${d}/p`);

/** Sum of the pods' backlog lengths, and every pod's due index size. */
async function layout(pod: Pod, ids: string[]) {
  const inspector = pod.frontier.inspector;
  const backlog: Record<string, number> = {};
  const due: Record<string, number> = {};
  for (const id of ids) {
    backlog[id] = await inspector.backlogLength(id);
    due[id] = await inspector.dueHostCount(id);
  }
  const total = Object.values(backlog).reduce((a, b) => a + b, 0);
  return { backlog, due, total };
}

/** The domains named in a pod's backlog (a name may repeat). */
async function backlogDomains(pod: Pod, id: string): Promise<string[]> {
  const hosts = await pod.frontier.inspector.backlogHosts(id, { limit: 1_000_000 });
  return hosts.map((h) => h.domain);
}

/**
 * Claim+complete rounds on `pods` (each claims from its own index and backlog) until three
 * rounds in a row lease nothing while the frontier is settled. `check` sees each lease with
 * the pod that claimed it, at once.
 */
async function drain(
  pods: Pod[],
  taken: Lease[],
  check: (pod: Pod, lease: Lease) => void = () => {},
): Promise<void> {
  const inspector = pods[0]!.frontier.inspector;
  let quiet = 0;
  for (let round = 0; quiet < 3; round++) {
    if (round > 3000) throw new Error(`not drained after ${round} rounds: ${taken.length} leased`);
    let got = 0;
    for (const pod of pods) {
      const { leases } = await pod.frontier.claim({ pod: pod.id, max: 25 });
      if (leases.length === 0) continue;
      got += leases.length;
      for (const lease of leases) {
        check(pod, lease);
        taken.push(lease);
      }
      const outcomes = await pod.frontier.completeMany(leases.map((lease) => ({ lease })));
      expect(outcomes.filter((o) => o !== null)).toEqual([]);
    }
    await Promise.all(pods.map((p) => p.frontier.forwarded()));
    if (got === 0 && (await inspector.settled())) quiet++;
    else quiet = 0;
    if (got === 0) await sleep(20);
  }
}

/** Every URL leased exactly once. */
function expectEachOnce(taken: Lease[]): void {
  const seen = new Map<string, number>();
  for (const l of taken) seen.set(l.url, (seen.get(l.url) ?? 0) + 1);
  const twice = [...seen].filter(([, n]) => n > 1).map(([url]) => url);
  expect(twice, 'URLs leased more than once').toEqual([]);
  const missing = urls.filter((u) => !seen.has(u));
  expect(missing, 'URLs never leased').toEqual([]);
  expect(taken).toHaveLength(DOMAINS);
}

describe('Membership changes with packed domains (a single redis-server)', () => {
  let server: RedisServer;
  const fleets: Fleet[] = [];
  const fleet = (frontier: Partial<FrontierOptions> = {}) => {
    const f = new Fleet(
      () => new Redis(server.port, server.host, { maxRetriesPerRequest: 3 }),
      {},
      { packAfterDomains: 0, leaseTimeoutMs: 0, pinMs: 0, ...frontier },
    );
    fleets.push(f);
    return f;
  };

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    for (const f of fleets) await f.close();
    await server?.stop();
  });

  /** Starts `ids`, enqueues the domains through the first and checks they are all packed. */
  async function packedFleet(ids: string[], frontier: Partial<FrontierOptions> = {}) {
    const fl = fleet(frontier);
    const pods = await fl.start(...ids);
    const a = pods[0]!;
    const report = await a.frontier.enqueue(urls);
    expect(report.queued).toBe(DOMAINS);
    const l = await layout(a, ids);
    expect(l.total, 'every domain named in a backlog').toBe(DOMAINS);
    expect(Object.values(l.due), 'no due index lists anything').toEqual(ids.map(() => 0));
    // Each in its owner's backlog, once.
    for (const id of ids) {
      const named = await backlogDomains(a, id);
      expect(named.sort()).toEqual(domains.filter((d) => a.membership.ownerOf(d) === id).sort());
    }
    return { fl, pods };
  }

  it('a crashed pod: its packed domains are spilled by the reclaim and leased exactly once', async () => {
    const ids = ['pod-a', 'pod-b', 'pod-c'];
    const { fl, pods } = await packedFleet(ids);
    const [a, b, c] = pods as [Pod, Pod, Pod];
    const ofB = await backlogDomains(a, 'pod-b');
    expect(ofB.length).toBeGreaterThan(0);

    await b.membership.stop({ graceful: false }); // heartbeats stop; no leave
    await vi.waitFor(
      () =>
        expect(
          fl.pods.some((p) => p.reclaims.length > 0),
          'reclaim of pod-b',
        ).toBe(true),
      { ...SETTLE, timeout: 20_000 },
    );
    const reclaims = fl.pods.flatMap((p) => p.reclaims);
    expect(reclaims).toHaveLength(1);
    expect(reclaims[0]).toMatchObject({ pod: 'pod-b', kind: 'crash', requeued: 0 });
    expect(reclaims[0]!.domains).toBe(new Set(ofB).size);
    // The reclaim spilled pod-b's backlog and moved every name to its new owner's backlog.
    expect(await a.frontier.inspector.backlogLength('pod-b')).toBe(0);
    expect(await a.frontier.inspector.dueHostCount('pod-b')).toBe(0);
    const ring = a.membership.ring!;
    expect(ring.ids()).toEqual(['pod-a', 'pod-c']);
    const named = [...(await backlogDomains(a, 'pod-a')), ...(await backlogDomains(a, 'pod-c'))];
    expect(new Set(named).size, 'every domain still named by a survivor').toBe(DOMAINS);

    const taken: Lease[] = [];
    await drain([a, c], taken, (pod, lease) =>
      expect(pod.membership.ownerOf(lease.domain), lease.url).toBe(lease.pod),
    );
    expectEachOnce(taken);
    expect(taken.filter((l) => ofB.includes(l.domain)).length).toBe(ofB.length);
    for (const id of ids) {
      expect(await a.frontier.inspector.backlogLength(id), `${id} backlog`).toBe(0);
    }
    expect(await a.frontier.inspector.dueHostCount('pod-b')).toBe(0);
    expect(await a.frontier.inspector.settled()).toBe(true);
    expect(await a.frontier.inspector.stats()).toMatchObject({ queued: 0, inFlight: 0 });
  });

  it('a graceful stop: the leaver backlog reaches the survivors, each URL leased once', async () => {
    const ids = ['pod-a', 'pod-b', 'pod-c'];
    const { fl, pods } = await packedFleet(ids);
    const [a, b, c] = pods as [Pod, Pod, Pod];
    const ofC = await backlogDomains(a, 'pod-c');
    expect(ofC.length).toBeGreaterThan(0);

    await c.membership.stop({ graceful: true, releaseLeases: async () => {} });
    await vi.waitFor(
      async () => expect(await fl.converged(), 'survivors on the new epoch').toBe(true),
      SETTLE,
    );
    expect(a.membership.ring!.ids()).toEqual(['pod-a', 'pod-b']);
    // The leaver's handoff named every one of its domains in its new owner's backlog.
    const survivors = [
      ...(await backlogDomains(a, 'pod-a')),
      ...(await backlogDomains(a, 'pod-b')),
    ];
    expect(
      ofC.filter((d) => !survivors.includes(d)),
      "pod-c's domains not in a survivor's backlog",
    ).toEqual([]);

    // Claims start at once, while a survivor's reclaim (or departed tidy) of pod-c may run.
    const taken: Lease[] = [];
    await drain([a, b], taken, (pod, lease) =>
      expect(pod.membership.ownerOf(lease.domain), lease.url).toBe(lease.pod),
    );
    await vi.waitFor(
      () =>
        expect(
          fl.pods.some((p) => p.reclaims.length > 0),
          'leaver reclaimed',
        ).toBe(true),
      SETTLE,
    );
    expect(fl.pods.flatMap((p) => p.reclaims)).toMatchObject([
      { pod: 'pod-c', kind: 'left-released', requeued: 0 },
    ]);
    await vi.waitFor(
      async () =>
        expect(await a.frontier.inspector.backlogLength('pod-c'), 'pod-c backlog').toBe(0),
      SETTLE,
    );
    // Whatever the reclaim moved after the first drain (names already leased) is drained too.
    await drain([a, b], taken, (pod, lease) =>
      expect(pod.membership.ownerOf(lease.domain), lease.url).toBe(lease.pod),
    );
    expectEachOnce(taken);
    for (const id of ids) {
      expect(await a.frontier.inspector.backlogLength(id), `${id} backlog`).toBe(0);
    }
    expect(await a.frontier.inspector.dueHostCount('pod-c')).toBe(0);
    expect(await a.frontier.inspector.settled()).toBe(true);
    expect(await a.frontier.inspector.stats()).toMatchObject({ queued: 0, inFlight: 0 });
  });

  it('a join: the old owners forward the packed names that moved and lease only their own', async () => {
    const { fl, pods } = await packedFleet(['pod-a', 'pod-b']);
    const [a, b] = pods as [Pod, Pod];
    const before = a.membership.ring!;
    const [c] = (await fl.start('pod-c')) as [Pod];
    await vi.waitFor(
      async () => expect(await fl.converged(), 'every pod on the new epoch').toBe(true),
      SETTLE,
    );
    const after = a.membership.ring!;
    expect(after.ids()).toEqual(['pod-a', 'pod-b', 'pod-c']);
    const moved = domains.filter((d) => before.owner(d) !== after.owner(d));
    expect(moved.length).toBeGreaterThan(0);
    expect(moved.every((d) => after.owner(d) === 'pod-c')).toBe(true);

    // Claims start at once, while the old owners' handoffs may still run.
    const taken: Lease[] = [];
    await drain([a, b, c], taken, (pod, lease) =>
      expect(pod.membership.ownerOf(lease.domain), lease.url).toBe(lease.pod),
    );
    expectEachOnce(taken);
    expect(taken.filter((l) => moved.includes(l.domain)).every((l) => l.pod === 'pod-c')).toBe(
      true,
    );
    const ids = ['pod-a', 'pod-b', 'pod-c'];
    for (const id of ids) {
      expect(await a.frontier.inspector.backlogLength(id), `${id} backlog`).toBe(0);
    }
    expect(await a.frontier.inspector.settled()).toBe(true);
    expect(await a.frontier.inspector.stats()).toMatchObject({ queued: 0, inFlight: 0 });
    // Nothing is left listed anywhere (pinMs 0: a finished host leaves its index at once).
    await vi.waitFor(async () => {
      await drain([a, b, c], taken);
      expect((await layout(a, ids)).due, 'due index sizes').toEqual({
        'pod-a': 0,
        'pod-b': 0,
        'pod-c': 0,
      });
    }, SETTLE);
    expectEachOnce(taken);
  });

  it('a join with pins: once the new owner finished a moved domain, the old owners keep no entry of it', async () => {
    // Pins as in production (shorter): a host's entry outlives its last complete, so the
    // new owner's next claim visit finds the domain idle and archives it.
    const { fl, pods } = await packedFleet(['pod-a', 'pod-b'], { pinMs: 200, claimHoldMs: 500 });
    const [a, b] = pods as [Pod, Pod];
    const before = a.membership.ring!;
    const [c] = (await fl.start('pod-c')) as [Pod];
    await vi.waitFor(
      async () => expect(await fl.converged(), 'every pod on the new epoch').toBe(true),
      SETTLE,
    );
    const after = a.membership.ring!;
    const moved = domains.filter((d) => before.owner(d) !== after.owner(d));
    expect(moved.length).toBeGreaterThan(0);

    // pod-c leases and completes every domain that moved to it (its backlog names them once
    // the old owners handed off), then its claims archive them after their pins.
    const taken: Lease[] = [];
    await vi.waitFor(async () => {
      const { leases } = await c.frontier.claim({ pod: 'pod-c', max: 50 });
      taken.push(...leases);
      if (leases.length > 0) await c.frontier.completeMany(leases.map((lease) => ({ lease })));
      expect(taken.map((l) => l.domain).sort(), 'pod-c leased the moved domains').toEqual(
        [...moved].sort(),
      );
      expect(await c.frontier.inspector.dueHostCount('pod-c'), 'pod-c index').toBe(0);
      expect(await c.frontier.inspector.backlogLength('pod-c'), 'pod-c backlog').toBe(0);
    }, SETTLE);
    for (const d of moved) {
      expect(await a.frontier.inspector.domainStats(d), d).toMatchObject({
        queued: 0,
        inFlight: 0,
        archived: true,
      });
    }

    // The old owners lease what they kept; the names of moved domains their backlogs still
    // hold are forwarded, never leased.
    await drain([a, b, c], taken, (pod, lease) =>
      expect(pod.membership.ownerOf(lease.domain), lease.url).toBe(lease.pod),
    );
    expectEachOnce(taken);
    expect(a.frontier.backgroundErrors.forward + b.frontier.backgroundErrors.forward).toBe(0);

    // Every domain is finished: no pod keeps an entry (re-held every claimHoldMs and forwarded
    // again by each of its claims) of a domain it no longer owns.
    const ids = ['pod-a', 'pod-b', 'pod-c'];
    await vi.waitFor(async () => {
      await drain([a, b, c], taken);
      const left: string[] = [];
      for (const id of ids) {
        for (const h of await a.frontier.inspector.dueHosts(id, { limit: 1_000_000 })) {
          left.push(`${id}: ${h.domain} (owner ${after.owner(h.domain)})`);
        }
      }
      expect(left.slice(0, 10), `${left.length} due entries left`).toEqual([]);
    }, SETTLE);
    for (const id of ids) {
      expect(await a.frontier.inspector.backlogLength(id), `${id} backlog`).toBe(0);
    }
    expectEachOnce(taken);
  });
});
