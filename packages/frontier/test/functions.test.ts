/**
 * The scripts as a Redis Function library: what the server runs (FCALL, not EVALSHA), a
 * library the server loses mid-crawl (FUNCTION FLUSH, a new Cluster master), and a server that
 * refuses it (an ACL without FUNCTION): every URL still claimed exactly once.
 */
import { randomUUID } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RedisCluster,
  type RedisServer,
  startRedis,
  startRedisCluster,
} from '../../../test/helpers/redis.js';
import { commandStats } from '../../../test/helpers/redis-cpu.js';
import { type FrontierOptions, FrontierOptionsError, RedisFrontier } from '../src/index.js';
import { frontierLibrary } from '../src/scripts.js';

/** Calls of each script command the server ran since the last `CONFIG RESETSTAT`. */
async function scriptCalls(
  redis: Redis,
): Promise<{ fcall: number; evalsha: number; eval: number; loads: number }> {
  const stats = await commandStats(redis);
  const calls = (name: string) => stats.get(name)?.calls ?? 0;
  return {
    fcall: calls('fcall'),
    evalsha: calls('evalsha'),
    eval: calls('eval'),
    loads: calls('function|load'),
  };
}

function urls(n: number, tag: string): string[] {
  // Seven registrable domains: seven slots on a Cluster.
  return Array.from({ length: n }, (_, i) => `https://d${i % 7}-${tag}.example/p${i}`);
}

/**
 * Claims and completes (in batches, pipelined) `expected` URLs, then claims once more to see
 * that nothing is left; the URLs claimed.
 */
async function drain(
  f: RedisFrontier,
  expected: number,
  between?: (round: number) => Promise<void>,
): Promise<string[]> {
  const claimed: string[] = [];
  for (let round = 0, empty = 0; claimed.length < expected; round++) {
    const { leases } = await f.claim({ pod: 'pod-a', max: 5 });
    if (leases.length === 0) {
      if (++empty > 100) throw new Error(`claimed ${claimed.length} of ${expected}, then nothing`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      continue;
    }
    claimed.push(...leases.map((l) => l.url));
    await between?.(round);
    const outcomes = await f.completeMany(leases.map((lease) => ({ lease })));
    expect(outcomes.every((o) => o === null)).toBe(true);
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  claimed.push(...(await f.claim({ pod: 'pod-a', max: 5 })).leases.map((l) => l.url));
  return claimed;
}

describe('the function library on a single redis-server', () => {
  let server: RedisServer;
  const clients: Redis[] = [];
  const connect = (options: { username?: string } = {}) => {
    const c = new Redis(server.port, server.host, { maxRetriesPerRequest: 3, ...options });
    clients.push(c);
    return c;
  };
  const make = (redis: Redis, options: Partial<FrontierOptions> = {}) =>
    new RedisFrontier({
      redis,
      ownerOf: () => 'pod-a',
      prefix: `t${randomUUID().slice(0, 8)}`,
      defaultDelayMs: 0,
      ...options,
    });

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await server?.stop();
  });

  it('claims and completes through FCALL: the server runs no EVALSHA', async () => {
    const admin = connect();
    const client = connect();
    const f = make(client);
    expect(f.scriptMode).toBe('eval');
    await admin.config('RESETSTAT');
    const queued = urls(30, 'fcall');
    await f.enqueue(queued);
    expect((await drain(f, queued.length)).sort()).toEqual([...queued].sort());
    expect(f.scriptMode).toBe('functions');
    // A second frontier on the same client (another crawl) finds the library loaded.
    const other = make(client, { crawlId: 'other' });
    await other.enqueue(urls(3, 'other'));
    expect(other.scriptMode).toBe('functions');
    const calls = await scriptCalls(admin);
    expect(calls.fcall).toBeGreaterThan(30);
    expect(calls.evalsha + calls.eval).toBe(0);
    expect(calls.loads).toBe(1);
    const libraries = (await admin.call(
      'FUNCTION',
      'LIST',
      'LIBRARYNAME',
      'shardline_frontier_*',
    )) as unknown[];
    expect(JSON.stringify(libraries)).toContain(frontierLibrary().name);
  });

  it('loads the library again when the server lost it mid-crawl, losing and repeating no URL', async () => {
    const admin = connect();
    await admin.config('RESETSTAT');
    const f = make(connect());
    const queued = urls(40, 'flush');
    await f.enqueue(queued.slice(0, 20));
    let flushes = 0;
    const claimed = await drain(f, queued.length, async (round) => {
      if (round % 2 === 1) return;
      // Between a claim and its completion, and before the next enqueue: FCALLs and
      // pipelined FCALLs both meet "Function not found" once.
      await admin.call('FUNCTION', 'FLUSH');
      flushes++;
      if (round === 0) await f.enqueue(queued.slice(20));
    });
    expect(flushes).toBeGreaterThan(2);
    // Each flush cost one load, not one per call that met it.
    expect((await scriptCalls(admin)).loads).toBe(flushes + 1);
    expect(claimed.sort()).toEqual([...queued].sort());
    expect(f.scriptMode).toBe('functions');
    expect(f.backgroundErrors['load-functions']).toBe(0);
  });

  it('falls back to EVALSHA when the server refuses FUNCTION, and says so once', async () => {
    const admin = connect();
    const user = `nofn${randomUUID().slice(0, 6)}`;
    await admin.call('ACL', 'SETUSER', user, 'on', 'nopass', '~*', '&*', '+@all', '-function');
    const reported: [string, Error][] = [];
    const f = make(connect({ username: user }), {
      onBackgroundError: (error, operation) => reported.push([operation, error]),
    });
    await admin.config('RESETSTAT');
    const queued = urls(25, 'acl');
    await f.enqueue(queued);
    expect((await drain(f, queued.length)).sort()).toEqual([...queued].sort());
    expect(f.scriptMode).toBe('eval');
    expect(f.backgroundErrors['load-functions']).toBe(1);
    expect(reported.map(([operation]) => operation)).toEqual(['load-functions']);
    expect(reported[0]![1].message).toMatch(/NOPERM/);
    const calls = await scriptCalls(admin);
    expect(calls.fcall).toBe(0);
    expect(calls.evalsha).toBeGreaterThan(25);
  });

  it('keeps every call on EVALSHA with redisFunctions: false, and refuses a value that is not a boolean', async () => {
    const admin = connect();
    const f = make(connect(), { redisFunctions: false });
    await admin.config('RESETSTAT');
    const queued = urls(10, 'off');
    await f.enqueue(queued);
    expect((await drain(f, queued.length)).sort()).toEqual([...queued].sort());
    expect(f.scriptMode).toBe('eval');
    expect((await scriptCalls(admin)).fcall).toBe(0);
    expect(() => make(admin, { redisFunctions: 'yes' as unknown as boolean })).toThrow(
      FrontierOptionsError,
    );
    expect(() => make(admin, { redisFunctions: 'yes' as unknown as boolean })).toThrow(
      /redisFunctions/,
    );
  });
});

describe('the function library on a three-master Redis Cluster', () => {
  let cluster: RedisCluster;
  let client: Cluster;

  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    client = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 3 } });
  });
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it('loads it on every master, and again on a master that lost it', async () => {
    const f = new RedisFrontier({
      redis: client,
      ownerOf: () => 'pod-a',
      prefix: `t${randomUUID().slice(0, 8)}`,
      defaultDelayMs: 0,
    });
    const queued = urls(42, 'cluster');
    await f.enqueue(queued.slice(0, 21));
    const admins = cluster.servers.map((s) => new Redis(s.port, s.host));
    try {
      const claimed = await drain(f, queued.length, async (round) => {
        if (round !== 1) return;
        for (const admin of admins) await admin.config('RESETSTAT');
        await admins[1]!.call('FUNCTION', 'FLUSH');
        await f.enqueue(queued.slice(21));
      });
      expect(claimed.sort()).toEqual([...queued].sort());
      expect(f.scriptMode).toBe('functions');
      for (const admin of admins) {
        const listed = await admin.call('FUNCTION', 'LIST', 'LIBRARYNAME', 'shardline_frontier_*');
        expect(JSON.stringify(listed)).toContain(frontierLibrary().name);
        expect(await scriptCalls(admin)).toMatchObject({ evalsha: 0, eval: 0 });
      }
      // The master that lost it met an FCALL and loaded it again (the load goes to all three).
      for (const admin of admins) expect((await scriptCalls(admin)).loads).toBe(1);
    } finally {
      for (const admin of admins) admin.disconnect();
    }
  });
});
