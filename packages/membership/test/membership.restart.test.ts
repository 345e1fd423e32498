/**
 * Membership across Redis restarts: with AOF the registry survives a kill -9 and pods
 * carry on (epoch monotone, nobody falsely expired); without persistence the registry is
 * lost and pods re-join, the epoch still never going backwards.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { Fleet, SETTLE, sleep } from './harness.js';

describe('Membership across a Redis restart', () => {
  const servers: RedisServer[] = [];
  const fleets: Fleet[] = [];
  afterAll(async () => {
    for (const f of fleets) await f.close();
    for (const s of servers) await s.stop();
  });

  async function setup(appendonly: boolean) {
    const server = await startRedis({ appendonly });
    servers.push(server);
    const fleet = new Fleet(
      () =>
        new Redis(server.port, server.host, { maxRetriesPerRequest: 50, retryStrategy: () => 50 }),
      { sessionTimeoutMs: 3000, heartbeatMs: 300 },
    );
    fleets.push(fleet);
    const pods = await fleet.start('pod-a', 'pod-b', 'pod-c');
    return { server, fleet, pods };
  }

  it('with AOF: the registry survives a kill -9, pods carry on, the epoch is monotone', async () => {
    const { server, fleet, pods } = await setup(true);
    const admin = fleet.connect();
    const epochBefore = Number(await admin.get(pods[0]!.membership.keys.epoch()));
    const seen: number[] = [];
    pods[0]!.membership.on('change', (c) => seen.push(c.epoch));

    await server.restart(); // SIGKILL, then start on the same dir and AOF
    await sleep(1200); // a few heartbeats against the restarted server
    await vi.waitFor(
      () =>
        expect(
          pods.every((p) => p.membership.ready),
          'all pods ready again',
        ).toBe(true),
      { ...SETTLE, timeout: 10_000 },
    );
    expect(Number(await admin.get(pods[0]!.membership.keys.epoch()))).toBe(epochBefore);
    expect((await admin.zrange(pods[0]!.membership.keys.members(), 0, -1)).sort()).toEqual([
      'pod-a',
      'pod-b',
      'pod-c',
    ]);
    expect(await admin.zcard(pods[0]!.membership.keys.reclaim())).toBe(0);

    // Membership still works: a join is seen by everyone at the next epoch.
    await fleet.start('pod-d');
    await vi.waitFor(
      async () => expect(await fleet.converged(), 'every pod on the new epoch').toBe(true),
      SETTLE,
    );
    expect(pods[0]!.membership.epoch).toBe(epochBefore + 1);
    expect(seen.every((e, i) => i === 0 || e > seen[i - 1]!)).toBe(true);
  });

  it('without persistence: pods re-join the wiped registry and the epoch still goes up', async () => {
    const { server, fleet, pods } = await setup(false);
    const admin = fleet.connect();
    await fleet.start('pod-d'); // a few epochs, so a wiped counter would restart lower
    await vi.waitFor(
      async () => expect(await fleet.converged(), 'every pod on the new epoch').toBe(true),
      SETTLE,
    );
    const epochBefore = pods[0]!.membership.epoch;
    expect(epochBefore).toBeGreaterThanOrEqual(4);
    const lost: string[] = [];
    for (const p of fleet.pods) p.membership.on('session-lost', () => lost.push(p.id));

    await server.restart(); // no AOF: every key is gone
    // Reads fail while the server restarts: vi.waitFor retries them like a false check.
    await vi.waitFor(
      async () => {
        const members = await admin.zrange(pods[0]!.membership.keys.members(), 0, -1);
        expect(members, 'all four pods registered again').toHaveLength(4);
      },
      { ...SETTLE, timeout: 10_000 },
    );
    await vi.waitFor(
      async () => expect(await fleet.converged(), 'every pod on the stored epoch').toBe(true),
      { ...SETTLE, timeout: 10_000 },
    );
    expect(pods[0]!.membership.epoch).toBeGreaterThan(epochBefore);
    expect(lost.sort()).toEqual(['pod-a', 'pod-b', 'pod-c', 'pod-d']);
    expect(pods[0]!.membership.ring!.ids()).toEqual(['pod-a', 'pod-b', 'pod-c', 'pod-d']);
  });
});
