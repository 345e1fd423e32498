/**
 * The pod against a small test web and a real Redis: wake-ups instead of polling, graceful
 * stop, robots.txt shared through Redis, redirects through the frontier, the page cap.
 */
import { RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { skewGlobalCounter } from '../../../packages/frontier/test/layout.js';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { startTestWeb, type TestWeb } from '../../../test/web/index.js';
import {
  CrawlerPod,
  type CrawlerPodOptions,
  type CrawlResult,
  decodeResult,
} from '../src/index.js';

let web: TestWeb;
let server: RedisServer;
let redis: Redis;
let n = 0;
/** How long and how often `vi.waitFor` checks a condition. */
const WAIT = { timeout: 10_000, interval: 20 };

beforeAll(async () => {
  [web, server] = await Promise.all([
    startTestWeb({
      hosts: 4,
      seed: 3,
      pagesPerHost: 8,
      behaviours: { 'site2.test': ['slow'], 'site3.test': ['redirect-chain'] },
      slowMs: 4000,
    }),
    startRedis(),
  ]);
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  await redis?.quit();
  await Promise.all([web?.close(), server?.stop()]);
});

function newPod(options: Partial<CrawlerPodOptions> = {}): CrawlerPod {
  n += 1;
  return new CrawlerPod({
    redis,
    podId: `pod-${n}`,
    prefix: `t${n}`,
    minDelayMs: 50,
    resolve: web.resolveOverrides,
    logger: pino({ level: 'silent' }),
    ...options,
  });
}

async function results(pod: CrawlerPod): Promise<CrawlResult[]> {
  const entries = (await redis.xrange(pod.resultsStreamKey, '-', '+')) as [string, string[]][];
  return entries.map(([, fields]) => decodeResult(fields));
}

/** One owner for every domain, and a way to announce an ownership change: no registry. */
function fixedAssignment(owner: string) {
  const listeners = new Set<() => void>();
  return {
    listeners,
    ownerOf: () => owner,
    onChange(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    changed: () => {
      for (const listener of listeners) listener();
    },
  };
}

/** A wake subscriber that never delivers a message (the loop then relies on other wake-ups). */
const deafSubscriber = {
  subscribe: async () => undefined,
  unsubscribe: async () => undefined,
  on: () => undefined,
  off: () => undefined,
};

describe('CrawlerPod', () => {
  it('runs on a fixed assignment without the registry, woken by its onChange', async () => {
    const assignment = fixedAssignment('solo');
    const pod = newPod({
      podId: 'solo',
      assignment,
      subscriber: deafSubscriber,
      maxIdleSleepMs: 60_000,
    });
    expect(pod.membership).toBeUndefined();
    await pod.start();
    expect(pod.ready).toBe(true);
    // Work for this pod that no wake message announces: only the change wakes the loop.
    const other = new RedisFrontier({ redis, ownerOf: () => 'solo', prefix: `t${n}` });
    const url = `${web.origin('site4.test')}/p/2`;
    await other.enqueue([{ url, depth: 5 }]);
    await new Promise((r) => setTimeout(r, 300));
    expect(pod.stats().fetched).toBe(0);
    assignment.changed();
    await vi.waitFor(() => expect(pod.stats().fetched).toBe(1), WAIT);
    await pod.stop();
    expect(assignment.listeners.size).toBe(0);
    expect(await redis.keys(`t${n}:{m}:*`)).toEqual([]);
  });

  it('sleeps when idle and wakes when another client enqueues work for it', async () => {
    const pod = newPod({ maxIdleSleepMs: 1000 });
    await pod.start();
    await new Promise((r) => setTimeout(r, 2500));
    // An idle pod claims about once per maxIdleSleepMs, never in a tight loop.
    expect(pod.stats().claims).toBeLessThanOrEqual(5);
    const other = new RedisFrontier({ redis, ownerOf: () => pod.id, prefix: `t${n}` });
    web.clearLog();
    const url = `${web.origin('site1.test')}/p/1`;
    await other.enqueue([{ url, depth: 5 }]);
    await vi.waitFor(() => expect(pod.stats().fetched).toBe(1), WAIT);
    expect(pod.stats().wakes).toBeGreaterThanOrEqual(1);
    expect(web.fetchCounts().get(url)).toBe(1);
    await pod.stop();
  });

  it('releases a lease in flight on stop, so the URL is queued again', async () => {
    const pod = newPod({ stopGraceMs: 0 });
    web.clearLog();
    const url = `${web.origin('site2.test')}/slow/1`;
    await pod.seed([url]);
    await pod.start();
    await vi.waitFor(() => expect(web.log.some((e) => e.path === '/slow/1')).toBe(true), WAIT);
    await pod.stop();
    const [result] = await results(pod);
    expect(result).toMatchObject({
      url,
      outcome: 'released',
      errorCode: 'SHARDLINE_ERR_CRAWLER_STOPPED',
    });
    const stats = await pod.frontier.stats();
    expect(stats.queued).toBe(1);
    expect(stats.inFlight ?? 0).toBe(0);
  });

  it('a stop during a hanging robots.txt request releases the lease and caches nothing', async () => {
    // robots.txt is held 60 s: far past this test's timeout, so stop() must not wait for it.
    const hanging = await startTestWeb({
      hosts: 1,
      seed: 5,
      pagesPerHost: 2,
      behaviours: { 'site1.test': ['robots-timeout'] },
      robotsDelayMs: 60_000,
    });
    try {
      const pod = newPod({ stopGraceMs: 100, resolve: hanging.resolveOverrides });
      const prefix = `t${n}`; // the key prefix newPod gave it
      const origin = hanging.origin('site1.test');
      await pod.seed([`${origin}/`]);
      await pod.start();
      await vi.waitFor(
        () => expect(hanging.log.some((e) => e.path === '/robots.txt')).toBe(true),
        WAIT,
      );
      await pod.stop();
      const [result] = await results(pod);
      expect(result).toMatchObject({ url: `${origin}/`, outcome: 'released' });
      expect(await pod.frontier.stats()).toMatchObject({ queued: 1 });
      // An abandoned request says nothing about the site: no "unreachable" answer is shared.
      expect(await redis.exists(`${prefix}:robots:${origin}`)).toBe(0);
      expect(await redis.keys(`${prefix}:robots:*`)).toEqual([]);
    } finally {
      await hanging.close();
    }
  }, 20_000);

  it("gives a new host's fetch slot back while its first page waits out the delay after robots.txt", async () => {
    // One fetch slot, two new hosts, 1 s delay: without the slot coming back, the second
    // host's robots.txt would wait until the first host's page was done.
    const two = await startTestWeb({ hosts: 2, seed: 9, pagesPerHost: 1, behaviours: 'none' });
    try {
      const pod = newPod({
        concurrency: 1,
        minDelayMs: 1000,
        maxDepth: 0,
        exitWhenIdle: { graceMs: 200 },
        resolve: two.resolveOverrides,
      });
      await pod.seed(two.hosts.map((h) => `${two.origin(h)}/`));
      await pod.start();
      await pod.done;
      const firstPage = Math.min(...two.log.filter((e) => e.path === '/').map((e) => e.startMs));
      const robots = two.log.filter((e) => e.path === '/robots.txt');
      expect(robots).toHaveLength(2);
      expect(Math.max(...robots.map((e) => e.startMs))).toBeLessThan(firstPage);
      // Each page still came a whole delay after its host's robots.txt, once.
      expect(
        two.politenessViolations({ minGapMs: () => 1000, maxConcurrency: 1, includeRobots: true }),
      ).toEqual([]);
      expect([...two.fetchCounts().values()]).toEqual([1, 1]);
      expect(pod.stats()).toMatchObject({ gapReleases: 2, fetched: 2, released: 0 });
      const outcomes = (await results(pod)).map((r) => r.outcome);
      expect(outcomes).toEqual(['fetched', 'fetched']);
    } finally {
      await two.close();
    }
  }, 20_000);

  it('exits when idle even though the global in-flight sum stayed off after a kill', async () => {
    const pod = newPod({ exitWhenIdle: { graceMs: 200 }, maxDepth: 0 });
    const prefix = `t${n}`; // the key prefix newPod gave it
    web.clearLog();
    const url = `${web.origin('site4.test')}/`;
    await pod.seed([url]);
    // As left by a pod killed between a complete script and its counter update.
    await skewGlobalCounter(redis, prefix, 'inFlight', 1);
    await pod.start();
    await pod.done;
    expect(web.fetchCounts().get(url)).toBe(1);
    expect((await pod.frontier.stats()).inFlight).toBe(1);
    expect(await pod.frontier.settled()).toBe(true);
  }, 30_000);

  it('sends redirect targets back through the frontier, one depth deeper per hop', async () => {
    const pod = newPod({ exitWhenIdle: { graceMs: 200 }, maxDepth: 3 });
    web.clearLog();
    const origin = web.origin('site3.test');
    await pod.seed([`${origin}/chain/1`]);
    await pod.start();
    await pod.done;
    const byPath = new Map((await results(pod)).map((r) => [new URL(r.url).pathname, r]));
    expect(byPath.get('/chain/1')).toMatchObject({
      status: 301,
      depth: 0,
      redirectTo: `${origin}/chain/2`,
    });
    expect(byPath.get('/chain/2')).toMatchObject({ status: 302, depth: 1 });
    expect(byPath.get('/chain/3')).toMatchObject({ status: 308, depth: 2 });
    expect(byPath.get('/chain/end')).toMatchObject({ status: 200, depth: 3 });
    for (const path of ['/chain/1', '/chain/2', '/chain/3', '/chain/end']) {
      expect(web.fetchCounts().get(`${origin}${path}`)).toBe(1);
    }
  });

  it('finds robots.txt warm in Redis when another pod already fetched it', async () => {
    const first = newPod({ exitWhenIdle: { graceMs: 100 }, maxDepth: 0 });
    web.clearLog();
    await first.seed([`${web.origin('site4.test')}/`]);
    await first.start();
    await first.done;
    expect(first.stats().robotsLoads.fetch).toBe(1);
    const second = new CrawlerPod({
      redis,
      podId: 'second',
      prefix: `t${n}`,
      minDelayMs: 50,
      resolve: web.resolveOverrides,
      exitWhenIdle: { graceMs: 100 },
      maxDepth: 0,
      logger: pino({ level: 'silent' }),
    });
    await second.seed([`${web.origin('site4.test')}/p/1`]);
    await second.start();
    await second.done;
    expect(second.stats().robotsLoads).toEqual({ memory: 0, 'shared-cache': 1, fetch: 0 });
    expect(web.robotsFetchCounts().get(`${web.origin('site4.test')}/robots.txt`)).toBe(1);
  });

  it('crawls on EVALSHA when Redis refuses the function library, and says so once', async () => {
    const user = `nofn${n}`;
    await redis.call('ACL', 'SETUSER', user, 'on', 'nopass', '~*', '&*', '+@all', '-function');
    const limited = new Redis(server.url, { username: user, maxRetriesPerRequest: null });
    const lines: string[] = [];
    try {
      const pod = newPod({
        redis: limited,
        exitWhenIdle: { graceMs: 100 },
        maxDepth: 1,
        logger: pino({ level: 'warn' }, { write: (line: string) => lines.push(line) }),
      });
      await pod.seed([`${web.origin('site1.test')}/`]);
      await pod.start();
      await pod.done;
      const stats = pod.stats();
      expect(stats.fetched).toBeGreaterThan(1);
      expect(stats.faults.frontier['load-functions']).toBe(1);
      const refusals = lines.filter((line) => line.includes('"operation":"load-functions"'));
      expect(refusals).toHaveLength(1);
      expect(refusals[0]).toMatch(/NOPERM/);
    } finally {
      limited.disconnect();
    }
  });

  it('counts a broken shared robots.txt record in stats().faults and still crawls the host', async () => {
    const pod = newPod({ exitWhenIdle: { graceMs: 100 }, maxDepth: 0 });
    const origin = web.origin('site1.test');
    // A hash where the cache keeps a string: the read fails (WRONGTYPE); the write replaces it.
    await redis.hset(`t${n}:robots:${origin}`, 'x', '1');
    await pod.seed([`${origin}/`]);
    await pod.start();
    await pod.done;
    const stats = pod.stats();
    expect(stats.fetched).toBe(1);
    expect(stats.robotsLoads.fetch).toBe(1);
    expect(stats.faults.robotsSharedCache).toBe(1);
    expect(await redis.type(`t${n}:robots:${origin}`)).toBe('string');
    expect(stats.faults.membership).toBe(0);
    expect(stats.faults.frontier).toEqual({
      'register-pod': 0,
      forward: 0,
      'load-functions': 0,
    });
  });

  it('stops accepting URLs of a domain at maxPagesPerDomain', async () => {
    const pod = newPod({ exitWhenIdle: { graceMs: 200 }, maxPagesPerDomain: 3, minDelayMs: 10 });
    web.clearLog();
    await pod.seed([`${web.origin('site1.test')}/`]);
    await pod.start();
    await pod.done;
    const site1 = [...web.fetchCounts().keys()].filter((u) => u.includes('//site1.test'));
    expect(site1.length).toBe(3);
    expect(pod.stats().fetched).toBeGreaterThanOrEqual(3);
  });

  it('keeps a slow fetch alive past the lease timeout with batched heartbeats', async () => {
    const pod = newPod({
      exitWhenIdle: { graceMs: 200 },
      leaseTimeoutMs: 1500,
      heartbeatIntervalMs: 300,
      maxDepth: 0,
    });
    web.clearLog();
    const url = `${web.origin('site2.test')}/slow/1`;
    await pod.seed([url]);
    await pod.start();
    await pod.done;
    // The page takes 4 s, the lease 1.5 s: only heartbeats keep it from being reaped.
    expect(web.fetchCounts().get(url)).toBe(1);
    expect((await results(pod)).find((r) => r.url === url)?.outcome).toBe('fetched');
    // No lease was reaped and no ack came late.
    expect(await pod.frontier.inspector.domainStats('site2.test')).toMatchObject({
      repeats: 0,
      late: 0,
    });
    expect(pod.stats().lost).toBe(0);
  }, 15_000);

  it('a robots refusal before any page request leaves the host slot where the claim put it', async () => {
    // robots.txt is held 400 ms then dropped: unreachable ⇒ disallow all ⇒ dead letter (no retries).
    const slowRobots = await startTestWeb({
      hosts: 1,
      seed: 4,
      pagesPerHost: 3,
      behaviours: { 'site1.test': ['robots-timeout'] },
      robotsDelayMs: 400,
    });
    try {
      const delayMs = 5000;
      const pod = newPod({
        exitWhenIdle: { graceMs: 200 },
        robotsMaxRetries: 0,
        minDelayMs: delayMs,
        resolve: slowRobots.resolveOverrides,
      });
      await pod.seed([`${slowRobots.origin('site1.test')}/`]);
      await pod.start();
      await pod.done;
      const [dead] = await pod.frontier.inspector.deadLetters('site1.test');
      expect(dead?.reason).toBe('SHARDLINE_ERR_CRAWLER_ROBOTS_UNREACHABLE');
      const state = await pod.frontier.inspector.hostState('site1.test', 'site1.test');
      // Claimed ≥ 400 ms before the refusal; the claim set n = claim + delay. A failure
      // counted as sent would have moved it to refusal + delay.
      expect(state.nextAllowedAtMs).toBeLessThanOrEqual(dead!.atMs + delayMs - 300);
      expect(state.nextAllowedAtMs).toBeGreaterThan(dead!.atMs);
      expect([state.backoffMs, state.consecutiveFailures]).toEqual([0, 0]);
    } finally {
      await slowRobots.close();
    }
  }, 15_000);
});
