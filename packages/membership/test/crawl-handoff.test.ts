/**
 * A handoff inside a non-default crawl: the crawl's pods form their own ring (registry under
 * the crawl's key prefix); a join moves the crawl's due entries to the new owner, keeps its
 * seen-set and counters, and touches neither the default crawl's due indexes nor its registry.
 */
import { crawlKeyPrefix, FrontierInspector, RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { MembershipKeys } from '../src/index.js';
import { Fleet, placedExactly, SETTLE } from './harness.js';

describe('handoff inside a crawl', () => {
  let server: RedisServer;
  let fleet: Fleet;
  beforeAll(async () => {
    server = await startRedis();
    fleet = new Fleet(
      () => new Redis(server.port, server.host, { maxRetriesPerRequest: 3 }),
      {},
      {
        crawlId: 'x',
      },
    );
  });
  afterAll(async () => {
    await fleet?.close();
    await server?.stop();
  });

  it("moves the crawl's domains to a joining pod and keeps its state; the default crawl is untouched", async () => {
    const crawlPrefix = crawlKeyPrefix(fleet.prefix, 'x');
    const a = fleet.pod('a', { prefix: crawlPrefix });
    await a.membership.start();
    const domains = Array.from({ length: 60 }, (_, i) => `h${i}.test`);
    const urls = (n: number) => domains.map((d) => `https://${d}/${n}`);
    await a.frontier.enqueue([...urls(1), ...urls(2)]);
    // The default crawl holds the same URLs for a pod that never runs.
    const plain = new RedisFrontier({
      redis: fleet.connect(),
      prefix: fleet.prefix,
      ownerOf: () => 'z',
    });
    await plain.enqueue(urls(1));
    // One fetch per domain in the crawl before the join.
    let fetched = 0;
    while (fetched < domains.length) {
      const { leases } = await a.frontier.claim({ pod: 'a', max: 1000 });
      for (const lease of leases) await a.frontier.complete(lease);
      fetched += leases.length;
    }

    const b = fleet.pod('b', { prefix: crawlPrefix });
    await b.membership.start();
    await vi.waitFor(async () => expect(await fleet.converged()).toBe(true), SETTLE);
    const ring = a.membership.ring!;
    expect(ring.size).toBe(2);
    await vi.waitFor(
      async () =>
        expect(
          await placedExactly(a.frontier.inspector, ['a', 'b'], domains, (d) => ring.owner(d)),
        ).toBe(true),
      SETTLE,
    );
    const movedToB = domains.filter((d) => ring.owner(d) === 'b');
    expect(movedToB.length).toBeGreaterThan(0);

    // The new owner hands out the rest of its domains, once each; the seen-set came along.
    const got = new Set<string>();
    for (const pod of [a, b]) {
      const { leases } = await pod.frontier.claim({ pod: pod.id, max: 1000 });
      for (const lease of leases) {
        got.add(lease.url);
        await pod.frontier.complete(lease);
      }
    }
    expect([...got].sort()).toEqual(urls(2).sort());
    expect((await a.frontier.enqueue(urls(1))).duplicates).toBe(domains.length);
    expect((await b.frontier.inspector.domainStats(movedToB[0]!)).fetched).toBe(2);

    // The default crawl: its own entries where they were, no ring of a and b, nothing fetched.
    const plainReader = new FrontierInspector({ redis: a.redis, prefix: fleet.prefix });
    expect(await plainReader.pods()).toEqual(['z']);
    expect((await plainReader.domainStats(domains[0]!)).queued).toBe(1);
    expect(await a.redis.exists(new MembershipKeys(fleet.prefix).members())).toBe(0);
    expect(await a.redis.zcard(new MembershipKeys(crawlPrefix).members())).toBe(2);
  });
});
