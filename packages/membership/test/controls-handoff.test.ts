/**
 * Invariant 9, controls travel with their domain: domains moved by a join mid-budget,
 * mid-backoff, mid-block and mid-recrawl schedule arrive at their new owner with their
 * state unchanged, wait in its due index until the same time, and its claims honour them.
 */
import type { EnqueueItem, RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { Fleet, SETTLE, sleep } from './harness.js';

/** How long every control in this test holds a domain back. */
const HOLD_MS = 4000;

describe('controls travel with their domain on handoff', () => {
  let server: RedisServer;
  let fleet: Fleet;
  beforeAll(async () => {
    server = await startRedis();
    fleet = new Fleet(
      () => new Redis(server.port, server.host, { maxRetriesPerRequest: 3 }),
      {},
      {
        domainBudget: { pages: 1, periodMs: HOLD_MS },
        backoffBaseMs: 2 * HOLD_MS,
        defaultConcurrency: 4,
      },
    );
  });
  afterAll(async () => {
    await fleet?.close();
    await server?.stop();
  });

  const redisNow = async (redis: Redis) => {
    const [s, us] = await redis.time();
    return Number(s) * 1000 + Math.floor(Number(us) / 1000);
  };

  /** Claims once from `pod` and completes or fails each lease by its domain's kind. */
  async function settleAll(frontier: RedisFrontier, pod: string) {
    const { leases } = await frontier.claim({ pod, max: 1000 });
    for (const lease of leases) {
      if (lease.domain.startsWith('bo')) {
        await frontier.fail(lease, { retryable: true, reason: 'http-503', status: 503 });
      } else await frontier.complete(lease);
    }
    return leases;
  }

  it('budget, backoff, block and refetch schedule arrive unchanged and are honoured', async () => {
    const [a] = await fleet.start('a');
    const redis = a!.redis as Redis;
    const kinds = ['bud', 'bo', 'bk', 'rc'];
    const domains = kinds.flatMap((k) => Array.from({ length: 12 }, (_, i) => `${k}${i}.test`));
    await a!.frontier.enqueue(
      domains.flatMap((d): EnqueueItem[] =>
        d.startsWith('rc')
          ? [{ url: `https://${d}/`, refetchAfterMs: HOLD_MS }]
          : [`https://${d}/1`, `https://${d}/2`],
      ),
    );
    const until = (await redisNow(redis)) + HOLD_MS;
    for (const d of domains.filter((x) => x.startsWith('bk'))) {
      await a!.frontier.blockUntil({ domain: d }, until);
    }
    // One claim per domain (the budget allows one per window): budget spent everywhere,
    // backoff on bo*, rc* scheduled for refetch; bk* claims nothing.
    const first = await settleAll(a!.frontier, 'a');
    expect(first.some((l) => l.domain.startsWith('bk'))).toBe(false);
    expect(first).toHaveLength(36);

    const inspector = a!.frontier.inspector;
    const snapshot = async (d: string) => ({
      domain: await redis.hgetall(`${fleet.prefix}:{d:${d}}:d`),
      host: await inspector.hostState(d, d),
      stats: await inspector.domainStats(d),
    });
    const before = new Map<string, Awaited<ReturnType<typeof snapshot>>>();
    const dueBefore = new Map<string, number>();
    for (const d of domains) before.set(d, await snapshot(d));
    for (const h of await inspector.dueHosts('a')) dueBefore.set(h.domain, h.dueAtMs);
    expect(dueBefore.size).toBe(domains.length);

    // A second pod joins: about half the domains move to it.
    const [b] = await fleet.start('b');
    const moved = domains.filter((d) => b!.membership.ownerOf(d) === 'b');
    for (const k of kinds)
      expect(
        moved.some((d) => d.startsWith(k)),
        k,
      ).toBe(true);
    await vi.waitFor(async () => {
      const onB = new Set((await inspector.dueHosts('b')).map((h) => h.domain));
      expect(moved.filter((d) => !onB.has(d))).toEqual([]);
    }, SETTLE);

    const dueOnB = new Map((await inspector.dueHosts('b')).map((h) => [h.domain, h.dueAtMs]));
    for (const d of moved) {
      const now = await snapshot(d);
      const was = before.get(d)!;
      // The state arrived unchanged (only the host's scheduling seq moved).
      expect({ ...now.domain }, d).toEqual({ ...was.domain });
      expect({ ...now.host }, d).toEqual({ ...was.host });
      expect(now.stats.scheduled, d).toBe(was.stats.scheduled);
      // The new owner waits until the same time.
      expect(dueOnB.get(d), d).toBe(dueBefore.get(d));
      expect(dueOnB.get(d)!, d).toBeGreaterThan(await redisNow(redis));
    }
    for (const d of moved.filter((x) => x.startsWith('bud'))) {
      expect(before.get(d)!.stats).toMatchObject({ budgetSpent: 1, queued: 1 });
    }
    for (const d of moved.filter((x) => x.startsWith('bo'))) {
      expect(before.get(d)!.host.backoffMs).toBeGreaterThan(0);
    }
    for (const d of moved.filter((x) => x.startsWith('rc'))) {
      expect(before.get(d)!.stats).toMatchObject({ scheduled: 1, queued: 1 });
    }

    // The new owner claims none of them early...
    const early = await b!.frontier.claim({ pod: 'b', max: 1000 });
    expect(early.leases.filter((l) => moved.includes(l.domain))).toEqual([]);
    // ...and each once its time has come, never before it.
    const latest = Math.max(...moved.map((d) => dueOnB.get(d)!));
    await sleep(latest - (await redisNow(redis)) + 50);
    const claimed = new Map<string, number>();
    await vi.waitFor(async () => {
      for (const lease of (await b!.frontier.claim({ pod: 'b', max: 1000 })).leases) {
        claimed.set(lease.domain, lease.claimedAtMs);
        await b!.frontier.complete(lease);
      }
      expect(moved.filter((d) => !claimed.has(d))).toEqual([]);
    }, SETTLE);
    for (const d of moved) expect(claimed.get(d)!, d).toBeGreaterThanOrEqual(dueOnB.get(d)!);
  }, 60_000);
});
