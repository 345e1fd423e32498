/**
 * Departed pods after a scale-down (5 → 2): nothing stays listed under them as due (stale
 * parked copies are removed, real work enqueued there by a stale ring is moved to its owner
 * and fetched), and they are forgotten after the retention period.
 */
import { RedisFrontier } from '@shardline/frontier';
import { syntheticDomains } from '@shardline/ring';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import type { DepartedReport } from '../src/index.js';
import { Fleet, placedExactly, SETTLE } from './harness.js';

let server: RedisServer;
let fleet: Fleet;

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await fleet?.close();
  await server?.stop();
});

const ALL = ['pod-1', 'pod-2', 'pod-3', 'pod-4', 'pod-5'];
const GONE = ['pod-3', 'pod-4', 'pod-5'];

describe('departed pods', () => {
  it('scale 5 → 2: no due hosts stay under the pods that left, new work sent there is fetched, and they are forgotten', async () => {
    // Pins as in production: each complete pins its host for 30 s, which is what used to
    // keep parked copies in a leaver's index after its handoff and the survivor's reclaim.
    fleet = new Fleet(
      () => new Redis(server.port, server.host, { maxRetriesPerRequest: 3 }),
      { departedRetentionMs: 2000 },
      { pinMs: 30_000 },
    );
    const pods = await fleet.start(...ALL);
    const reports: DepartedReport[] = [];
    for (const p of pods) p.membership.on('departed', (r) => reports.push(r));
    const domains = syntheticDomains(300, 5);
    await pods[0]!.frontier.enqueue(domains.flatMap((d) => [`https://${d}/a`, `https://${d}/b`]));
    // Every pod fetches some of its hosts: their entries are pinned in its index.
    for (const p of pods) {
      const { leases } = await p.frontier.claim({ pod: p.id, max: 40 });
      expect(leases.length).toBeGreaterThan(0);
      for (const lease of leases) {
        await p.frontier.complete(lease, { status: 200, bytes: 10, durationMs: 1, links: 0 });
      }
    }

    const leaving = pods.filter((p) => GONE.includes(p.id));
    await Promise.all(leaving.map((p) => p.membership.stop({ graceful: true })));
    const [a, b] = pods;
    await vi.waitFor(async () => expect(a!.membership.ring!.size).toBe(2), SETTLE);
    const inspector = a!.frontier.inspector;
    const ring = a!.membership.ring!;
    const live: string[] = [];
    for (const d of domains) if ((await inspector.domainStats(d)).queued > 0) live.push(d);
    expect(live.length).toBeGreaterThan(0);
    await vi.waitFor(async () => {
      for (const pod of GONE) expect([pod, await inspector.dueHostCount(pod)]).toEqual([pod, 0]);
      expect(await placedExactly(inspector, ALL, live, (d) => ring.owner(d))).toBe(true);
    }, SETTLE);

    // A pod with a stale ring sends new work to a departed pod's index: it is moved to the
    // owner on a heartbeat (no sweep runs here) and the owner fetches it.
    const stale = new RedisFrontier({
      redis: fleet.connect(),
      prefix: fleet.prefix,
      ownerOf: () => 'pod-4',
      defaultDelayMs: 0,
    });
    const late = 'late-work.test';
    await stale.enqueue([`https://${late}/x`]);
    await vi.waitFor(async () => expect(await inspector.dueHostCount('pod-4')).toBe(0), SETTLE);
    const owner = fleet.pods.find((p) => p.id === ring.owner(late))!;
    expect([a, b]).toContain(owner);
    const { leases } = await owner.frontier.claim({ pod: owner.id, max: 1000 });
    expect(leases.map((l) => l.url)).toContain(`https://${late}/x`);
    // The tidy that moved it reports once its whole pass (every departed pod) is over.
    await vi.waitFor(
      () => expect(reports.some((r) => r.moved.some((m) => m.pod === 'pod-4'))).toBe(true),
      SETTLE,
    );

    // After the retention period with nothing indexed, the departed pods are forgotten.
    await vi.waitFor(async () => {
      expect(await inspector.pods()).toEqual(['pod-1', 'pod-2']);
      // The report is emitted once the tidy pass is over. A pod forgotten before the stale
      // enqueue above (retention 2 s, a slow machine) was registered again by it and is
      // forgotten twice: each departed pod at least once, no other.
      expect([...new Set(reports.flatMap((r) => r.forgotten))].sort()).toEqual(GONE);
    }, SETTLE);
    for (const pod of GONE) expect(await inspector.podStats(pod)).toEqual({});
    expect(await a!.frontier.inspector.podStats('pod-1')).not.toEqual({});
  });
});
