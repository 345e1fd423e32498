/**
 * Background work that fails is reported through the 'error' event, never dropped: the
 * reclaim lock's renewals, and the heartbeat and sweep that stop() waits for. Faults are real
 * Redis errors (WRONGTYPE on a key a script reads); CLIENT PAUSE, or a hook in front of one
 * frontier method, holds the work in flight while stop() is called.
 */
import { randomUUID } from 'node:crypto';
import { RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { Membership, type MembershipOptions } from '../src/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: RedisServer;
let admin: Redis;
const clients: Redis[] = [];
const running: Membership[] = [];

beforeAll(async () => {
  server = await startRedis();
  admin = new Redis(server.port, server.host);
});

afterEach(async () => {
  await Promise.allSettled(running.splice(0).map((m) => m.stop({ graceful: false })));
  for (const c of clients.splice(0)) c.disconnect();
});

afterAll(async () => {
  admin.disconnect();
  await server.stop();
});

interface TestPod {
  membership: Membership;
  frontier: RedisFrontier;
  errors: Error[];
}

/** Awaited before the named inspector method runs: `queuedDomainsOf` is mid-reclaim, `domains` mid-sweep. */
type Hooks = Partial<Record<'queuedDomainsOf' | 'domains', (arg: unknown) => Promise<void>>>;

/** One pod on its own connection and prefix, its frontier real but for the hooks. */
function pod(options: Partial<MembershipOptions> = {}, hooks: Hooks = {}): TestPod {
  const redis = new Redis(server.port, server.host, { maxRetriesPerRequest: 3 });
  clients.push(redis);
  const prefix = `t${randomUUID().slice(0, 8)}`;
  const frontier = new RedisFrontier({
    redis,
    prefix,
    ownerOf: (d) => membership.ownerOf(d),
    defaultDelayMs: 0,
    pinMs: 0,
    leaseTimeoutMs: 0,
  });
  // The real frontier's inspector with the hooks in front (methods bound, so private fields work).
  const inspector = new Proxy(frontier.inspector, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value.bind(target) as (arg: unknown) => Promise<unknown>;
      const hook = hooks[property as keyof Hooks];
      if (!hook) return method;
      return async (arg: unknown) => {
        await hook(arg);
        return method(arg);
      };
    },
  });
  const membership: Membership = new Membership({
    redis,
    podId: 'pod-a',
    prefix,
    frontier: {
      reindex: (domain, options) => frontier.reindex(domain, options),
      reclaimPod: (pod) => frontier.reclaimPod(pod),
      spillBacklog: (pod) => frontier.spillBacklog(pod),
      forgetPod: (pod) => frontier.forgetPod(pod),
      inspector,
    },
    sessionTimeoutMs: 1000,
    heartbeatMs: 100,
    vnodes: 16,
    sweepIntervalMs: 0,
    ...options,
  });
  const errors: Error[] = [];
  membership.on('error', (error) => errors.push(error));
  running.push(membership);
  return { membership, frontier, errors };
}

const wrongType = (errors: Error[]) => errors.filter((e) => /WRONGTYPE/.test(e.message)).length;

describe('Membership reports background failures', () => {
  it('a failed renewal of the reclaim lock is reported while the reclaim goes on', async () => {
    let lockKey = '';
    const t = pod(
      // Heartbeats stay out of the way: the renewals are the only reads of the lock key.
      { sessionTimeoutMs: 10_000, heartbeatMs: 5_000, reclaimLockMs: 150 },
      {
        queuedDomainsOf: async (of) => {
          if (of !== 'ghost') return;
          // Mid-reclaim the lock key turns into a hash: each renewal (every 50 ms) now fails.
          await admin.del(lockKey);
          await admin.hset(lockKey, 'not', 'a lock');
          await vi.waitFor(() => expect(wrongType(t.errors)).toBeGreaterThan(0), {
            timeout: 5_000,
          });
          await admin.del(lockKey);
          await admin.set(lockKey, 'pod-a', 'PX', 5_000);
        },
      },
    );
    const reclaimed: string[] = [];
    t.membership.on('reclaimed', (report) => reclaimed.push(report.pod));
    await t.membership.start();
    lockKey = t.membership.keys.reclaimLock('ghost');
    // A removed pod awaiting a survivor; the message makes the pod heartbeat and take it now.
    await admin.zadd(t.membership.keys.reclaim(), 1, 'ghost');
    await admin.publish(t.membership.keys.epochChannel(), 'reclaim:ghost');

    await vi.waitFor(() => expect(reclaimed).toEqual(['ghost']), { timeout: 10_000 });
    expect(wrongType(t.errors)).toBeGreaterThan(0);
  });

  it('a heartbeat in flight when stop() is called reports its failure before stop() resolves', async () => {
    const t = pod();
    await t.membership.start();
    // Every heartbeat from now on fails: the members set is not a sorted set any more.
    await admin.set(t.membership.keys.members(), 'not a zset');
    await vi.waitFor(() => expect(wrongType(t.errors)).toBeGreaterThan(0), { timeout: 5_000 });
    // Hold the next heartbeat inside Redis, and stop while it waits there.
    await admin.client('PAUSE', 800, 'ALL');
    await sleep(300);
    const before = wrongType(t.errors);
    await t.membership.stop({ graceful: false });
    expect(wrongType(t.errors)).toBe(before + 1);
    // errorCount counts what was emitted (and what would have been with nobody listening).
    expect(t.membership.errorCount).toBe(t.errors.length);
  });

  it('a sweep in flight during a graceful stop() reports its failure before stop() resolves', async () => {
    const notAString = `${randomUUID()}:hash`;
    await admin.hset(notAString, 'not', 'a string');
    let sweeping = false;
    // Each sweep takes 400 ms in the frontier's domains() and then fails with a Redis error.
    const t = pod(
      { sweepIntervalMs: 50 },
      {
        domains: async () => {
          sweeping = true;
          await sleep(400);
          await admin.get(notAString);
        },
      },
    );
    await t.membership.start();
    await vi.waitFor(() => expect(sweeping).toBe(true), { timeout: 5_000 });
    const before = wrongType(t.errors);
    await t.membership.stop();
    expect(wrongType(t.errors)).toBe(before + 1);
  });
});
