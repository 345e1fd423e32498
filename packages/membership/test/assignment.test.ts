/**
 * `Membership` as an `Assignment`: `onChange` listeners hear every ring change and due-index
 * move that may give the pod new work, and stop hearing them once unsubscribed.
 */
import { syntheticDomains } from '@shardline/ring';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import type { Assignment } from '../src/index.js';
import { Fleet } from './harness.js';

let server: RedisServer;
let fleet: Fleet;

beforeAll(async () => {
  server = await startRedis();
  fleet = new Fleet(() => new Redis(server.port, server.host, { maxRetriesPerRequest: 3 }));
});

afterAll(async () => {
  await fleet?.close();
  await server?.stop();
});

describe('Membership.onChange', () => {
  it('calls the listener on a join and a handoff, and no more after unsubscribing', async () => {
    const [a] = await fleet.start('a');
    const assignment: Assignment = a!.membership;
    await a!.frontier.enqueue(syntheticDomains(200, 1).map((d) => `https://${d}/`));
    let calls = 0;
    const unsubscribe = assignment.onChange(() => {
      calls += 1;
    });
    const handoffs: number[] = [];
    a!.membership.on('handoff', (h) => handoffs.push(h.moved));

    const b = fleet.pod('b');
    await b.membership.start();
    // The new ring (`change`), then a's handoff of the domains b now owns (`handoff`).
    await vi.waitFor(() => expect(handoffs.length).toBeGreaterThan(0), { timeout: 10_000 });
    expect(handoffs[0]).toBeGreaterThan(0);
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(assignment.ownerOf('example.com')).toBe(b.membership.ownerOf('example.com'));

    unsubscribe();
    const before = calls;
    await b.membership.stop({ graceful: true });
    await vi.waitFor(() => expect(a!.membership.members()).toHaveLength(1), { timeout: 10_000 });
    expect(calls).toBe(before);
  });
});
