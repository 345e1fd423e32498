/**
 * Redis faults seen from the frontier, on a real redis-server: out of memory (`maxmemory`
 * with `noeviction`) and a Redis that lost its data. Regression tests of issue 15: the global
 * counters drifted from the exact per-domain values after a mid-crawl OOM (`queued` went
 * negative), enqueue gave no count of what it had queued, and an emptied Redis looked like
 * a finished crawl.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import {
  FrontierErrorCode,
  FrontierLostError,
  type Lease,
  RedisFrontier,
  RedisOomError,
} from '../src/index.js';

const DOMAINS = ['a.test', 'b.test', 'c.test'];

describe('RedisFrontier under Redis faults', () => {
  let server: RedisServer;
  let redis: Redis;
  let admin: Redis;

  beforeAll(async () => {
    server = await startRedis({ args: ['--maxmemory-policy', 'noeviction'] });
    redis = new Redis(server.port, server.host, { maxRetriesPerRequest: 3 });
    admin = new Redis(server.port, server.host);
  });
  afterAll(async () => {
    redis.disconnect();
    admin.disconnect();
    await server?.stop();
  });

  // maxmemory of 1 byte: Redis is over it whatever it holds, so every write needing memory is refused.
  const fill = () => admin.config('SET', 'maxmemory', '1');
  const drain = () => admin.config('SET', 'maxmemory', '0');

  const make = (prefix: string) =>
    new RedisFrontier({
      redis,
      ownerOf: () => 'pod-a',
      prefix,
      defaultDelayMs: 0,
      defaultConcurrency: 2,
      backoffBaseMs: 1,
    });

  /** Global counters next to the sums of the exact per-domain values. */
  async function countersAndTruth(f: RedisFrontier) {
    const stats = await f.inspector.stats();
    const truth = { queued: 0, fetched: 0, dead: 0 };
    for (const d of DOMAINS) {
      const s = await f.inspector.domainStats(d);
      truth.queued += s.queued;
      truth.fetched += s.fetched;
      truth.dead += s.dead;
    }
    return {
      counters: { queued: stats.queued ?? 0, fetched: stats.fetched ?? 0, dead: stats.dead ?? 0 },
      truth,
    };
  }

  it('keeps the global counters equal to the exact per-domain values through an OOM', async () => {
    const f = make('oom1');
    const urls = DOMAINS.flatMap((d) => [1, 2, 3, 4].map((n) => `http://${d}/p${n}`));
    expect((await f.enqueue(urls)).queued).toBe(12);
    // Two hosts' worth of leases per claim at most (one visit per due host): claim twice.
    const leases: Lease[] = [];
    for (let i = 0; i < 5 && leases.length < 6; i++) {
      leases.push(...(await f.claim({ pod: 'pod-a', max: 6 - leases.length })).leases);
    }
    expect(leases).toHaveLength(6);

    await fill();
    try {
      // Leases in flight can still be settled and extended: these scripts only shrink or
      // rewrite state (allow-oom), and their counter updates go through too.
      await f.heartbeat(leases[0]!);
      await f.complete(leases[0]!, { status: 200 });
      await f.fail(leases[1]!, { retryable: true, reason: 'http-503' });
      await f.fail(leases[2]!, { retryable: false, reason: 'http-404' });
      await f.release(leases[3]!);
      // New work is refused whole, with a typed error.
      await expect(f.claim({ pod: 'pod-a', max: 2 })).rejects.toMatchObject({
        code: FrontierErrorCode.REDIS_OOM,
      });
      const during = await countersAndTruth(f);
      expect(during.counters).toEqual(during.truth);
    } finally {
      await drain();
    }

    // Recovery: everything left is claimed and completed.
    for (const lease of leases.slice(4)) await f.complete(lease, { status: 200 });
    for (let i = 0; i < 200; i++) {
      const { leases: got, nextDueAtMs } = await f.claim({ pod: 'pod-a', max: 20 });
      for (const lease of got) await f.complete(lease, { status: 200 });
      if (got.length === 0 && nextDueAtMs === null) break;
      if (got.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    const after = await countersAndTruth(f);
    expect(after.counters).toEqual(after.truth);
    expect(after.truth).toEqual({ queued: 0, fetched: 11, dead: 1 });
  });

  it('reports what enqueue queued before Redis refused the rest', async () => {
    const f = make('oom2');
    // a.test has a URL already: its next enqueue needs no new key, only more memory.
    await f.enqueue(['http://a.test/first']);
    await fill();
    let error: unknown;
    try {
      await f.enqueue(['http://a.test/x', 'http://b.test/y', 'not a url', 'http://c.test/z']);
    } catch (e) {
      error = e;
    } finally {
      await drain();
    }
    expect(error).toBeInstanceOf(RedisOomError);
    const oom = error as RedisOomError;
    expect(oom.code).toBe('SHARDLINE_ERR_REDIS_OOM');
    expect(oom.report).toMatchObject({ queued: 0, rejected: 1 });
    expect(oom.pending).toEqual([0, 1, 3]);
    expect(oom.message).toContain('0 URL(s) queued before it, 3 not queued');
    // Nothing of the refused items was written: retrying them queues each once.
    const items = ['http://a.test/x', 'http://b.test/y', '', 'http://c.test/z'];
    const retry = await f.enqueue(oom.pending.map((i) => items[i]!));
    expect(retry.queued).toBe(3);
    expect((await f.inspector.stats()).queued).toBe(4);
  });

  it('detects a frontier whose Redis lost its data and records it', async () => {
    const f = make('lost1');
    const id = await f.identity();
    expect(await f.identity()).toBe(id);
    await f.checkIdentity(id, 'pod-a');
    expect(await f.inspector.frontierLost()).toBeNull();

    await admin.flushall();
    await expect(f.checkIdentity(id, 'pod-a')).rejects.toBeInstanceOf(FrontierLostError);
    const record = await f.inspector.frontierLost();
    expect(record).toMatchObject({ pod: 'pod-a', expected: id, found: null });
    // A new identity (a later pod) is not the one the pod worked on either.
    const other = await f.identity();
    expect(other).not.toBe(id);
    await expect(f.checkIdentity(id, 'pod-a')).rejects.toMatchObject({
      code: FrontierErrorCode.FRONTIER_LOST,
      found: other,
    });
  });
});
