/**
 * ModuloAssignment against a real redis-server and RedisFrontier: replica list learned
 * from per-interval INCR counters, safe transitions, handoff of a vanished pod.
 */
import { randomUUID } from 'node:crypto';
import { RedisFrontier } from '@shardline/frontier';
import { syntheticDomains } from '@shardline/ring';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { ModuloAssignment, type ReclaimReport } from '../src/index.js';
import { dueLocations, placedExactly, until } from './harness.js';

interface ModPod {
  id: string;
  assignment: ModuloAssignment;
  frontier: RedisFrontier;
  drains: number;
  reclaims: ReclaimReport[];
}

describe('ModuloAssignment on a single redis-server', () => {
  let server: RedisServer;
  const clients: Redis[] = [];
  const pods: ModPod[] = [];
  const prefix = `t${randomUUID().slice(0, 8)}`;
  const connect = () => {
    const c = new Redis(server.port, server.host, { maxRetriesPerRequest: 3 });
    clients.push(c);
    return c;
  };
  const make = (id: string, phase: number): ModPod => {
    const redis = connect();
    const frontier: RedisFrontier = new RedisFrontier({
      redis,
      prefix,
      ownerOf: (d) => assignment.ownerOf(d),
      defaultDelayMs: 0,
      pinMs: 0,
    });
    const pod: ModPod = { id, assignment: undefined as never, frontier, drains: 0, reclaims: [] };
    const assignment: ModuloAssignment = new ModuloAssignment({
      redis,
      podId: id,
      prefix,
      frontier,
      intervalMs: 400,
      random: () => phase,
      drain: async () => {
        pod.drains++;
      },
    });
    assignment.on('reclaimed', (r) => pod.reclaims.push(r));
    pod.assignment = assignment;
    pods.push(pod);
    return pod;
  };

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await Promise.allSettled(pods.map((p) => p.assignment.stop()));
    for (const c of clients) c.disconnect();
    await server?.stop();
  });

  const ids = ['pod-a', 'pod-b', 'pod-c', 'pod-d'];
  const domains = syntheticDomains(300, 21);
  const urls = domains.map((d) => `https://${d}/`);

  it('learns one replica list without configuration; a fourth pod moves most domains', async () => {
    const [a, b, c] = [make('pod-a', 0.05), make('pod-b', 0.35), make('pod-c', 0.65)];
    await Promise.all([a, b, c].map((p) => p.assignment.start()));
    await until('three-pod lists', () =>
      [a, b, c].every((p) => p.assignment.replicas?.length === 3 && p.assignment.ready),
    );
    expect(b.assignment.replicas).toEqual(a.assignment.replicas);
    expect(c.assignment.replicas).toEqual(a.assignment.replicas);
    expect([...a.assignment.replicas!].sort()).toEqual(['pod-a', 'pod-b', 'pod-c']);

    await a.frontier.enqueue(urls);
    await until('3-pod placement', () =>
      placedExactly(a.frontier, clients[0]!, ids, domains, a.assignment.ownerOf),
    );
    const before = await dueLocations(a.frontier, clients[0]!, ids);
    const drainsBefore = a.drains + b.drains + c.drains;

    const d = make('pod-d', 0.95);
    await d.assignment.start();
    await until('four-pod lists, all resumed', () =>
      pods.every((p) => p.assignment.replicas?.length === 4 && p.assignment.ready),
    );
    for (const p of pods) expect(p.assignment.replicas).toEqual(a.assignment.replicas);
    await until('4-pod placement', () =>
      placedExactly(a.frontier, clients[0]!, ids, domains, a.assignment.ownerOf),
    );
    const after = await dueLocations(a.frontier, clients[0]!, ids);
    const moved = domains.filter(
      (x) => before.get(`${x}/${x}`)![0]!.pod !== after.get(`${x}/${x}`)![0]!.pod,
    );
    // 3 → 4 replicas: a domain keeps its pod only when h mod 3 and h mod 4 name the same
    // pod; about 1/4 stay here, versus 3/4 under the ring.
    expect(moved.length / domains.length).toBeGreaterThan(0.5);
    // Each of the three old pods stopped claiming and drained for the change.
    expect(a.drains + b.drains + c.drains).toBeGreaterThanOrEqual(drainsBefore + 3);
  });

  it('a pod that stops registering is handed off by exactly one survivor', async () => {
    const d = pods.find((p) => p.id === 'pod-d')!;
    const { leases } = await d.frontier.claim({ pod: 'pod-d', max: 2 });
    await d.assignment.stop({ graceful: false });
    const live = pods.filter((p) => p !== d);
    await until(
      'three-pod lists',
      () => live.every((p) => p.assignment.replicas?.length === 3 && p.assignment.ready),
      10_000,
    );
    await until('the reclaim', () => live.some((p) => p.reclaims.length > 0), 5000);
    const reclaims = live.flatMap((p) => p.reclaims);
    expect(reclaims).toHaveLength(1);
    expect(reclaims[0]).toMatchObject({ pod: 'pod-d', requeued: leases.length });
    const a = live[0]!;
    await until('3-pod placement', () =>
      placedExactly(a.frontier, clients[0]!, ids, domains, a.assignment.ownerOf),
    );
  });
});
