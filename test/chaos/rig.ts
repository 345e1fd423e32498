/**
 * The chaos test's rig and step helpers: what it starts (test web, Redis with AOF, a
 * read-only frontier, the membership watcher, the pod fleet) and the steps that mark the
 * timeline, kill or stop pods and sum the frontier's counters, recording what they did for
 * the assertions. Kept out of chaos.test.ts so that file reads as the timeline and its checks.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DomainStats, RedisFrontier } from '@shardline/frontier';
import { domainKey } from '@shardline/url';
import { Redis } from 'ioredis';
import { type RedisServer, startRedis } from '../helpers/redis.js';
import { startTestWeb, type TestWeb } from '../web/index.js';
import { MembershipWatch } from './membership-watch.js';
import { PodFleet, podOfUserAgent } from './pods.js';

/** The test's sizes and timings the rig is built with. */
export interface ChaosRigOptions {
  hosts: number;
  slowMs: number;
  minDelayMs: number;
  sessionTimeoutMs: number;
  watchIntervalMs: number;
}

export interface ChaosRig {
  web: TestWeb;
  server: RedisServer;
  redis: Redis;
  frontier: RedisFrontier;
  watch: MembershipWatch;
  fleet: PodFleet;
  /** Every domain of the crawl, sorted. */
  domains: string[];
}

/** Exact sums of the per-domain counters over every domain of the crawl. */
export interface DomainTotals {
  queued: number;
  inFlight: number;
  repeats: number;
  failed: number;
  dead: number;
}

export async function startChaosRig(options: ChaosRigOptions): Promise<ChaosRig> {
  const { hosts } = options;
  const [web, server] = await Promise.all([
    startTestWeb({
      hosts,
      seed: 7,
      pagesPerHost: [28, 40],
      // Every host gets two slow pages, so kills and stops find fetches in flight.
      behaviours: Object.fromEntries(
        Array.from({ length: hosts }, (_, i) => [`site${i + 1}.test`, ['slow' as const]]),
      ),
      slowMs: options.slowMs,
    }),
    startRedis({ appendonly: true }),
  ]);
  // The test's afterAll stops only what this returns: a failure from here on stops the web and
  // Redis started above itself.
  let redis: Redis | undefined;
  try {
    redis = new Redis(server.url, { maxRetriesPerRequest: null });
    // The watcher keeps polling through the Redis restart; refused reconnects are expected.
    redis.on('error', () => {});
    const domains = [...new Set(web.hosts.map((h) => domainKey(h)))].sort();
    const frontier = new RedisFrontier({
      redis,
      ownerOf: () => {
        throw new Error('the test only reads the frontier');
      },
    });
    const watch = new MembershipWatch(redis, 'sl', options.watchIntervalMs);
    const fleet = new PodFleet({
      redisUrl: server.url,
      minDelayMs: options.minDelayMs,
      sessionTimeoutMs: options.sessionTimeoutMs,
      // Far more slots than 300 hosts at one request per 1.5 s need: a domain never waits for a slot.
      concurrency: 128,
      resolve: web.resolveOverrides,
      seedsFile: join(
        (() => {
          const file = join(server.dir, 'seeds.txt');
          writeFileSync(file, `${web.seeds.join('\n')}\n`);
          return server.dir;
        })(),
        'seeds.txt',
      ),
    });
    return { web, server, redis, frontier, watch, fleet, domains };
  } catch (error) {
    redis?.disconnect();
    await Promise.all([web.close(), server.stop()]);
    throw error;
  }
}

/**
 * The steps of the timeline and what they record. `rig` is read at each step: the test
 * takes the steps when it loads, before its beforeAll has started the rig.
 */
export function chaosSteps(rig: () => Pick<ChaosRig, 'web' | 'frontier' | 'fleet' | 'domains'>) {
  /** What the timeline did, for the assertions. */
  const events: { label: string; atMs: number; detail?: string }[] = [];
  const killedInFlight: { pod: string; urls: string[]; leases: number }[] = [];
  const exitStats: Record<string, unknown>[] = [];

  function mark(label: string, detail?: string): void {
    const fetched = rig().web.log.length;
    events.push({ label, atMs: Date.now(), ...(detail ? { detail } : {}) });
    console.log(
      `[chaos] ${new Date().toISOString().slice(11, 23)} ${label} (requests so far ${fetched})${detail ? ` ${detail}` : ''}`,
    );
  }

  async function sumDomains(): Promise<DomainTotals & { per: DomainStats[] }> {
    const { frontier, domains } = rig();
    const per = await Promise.all(domains.map((d) => frontier.inspector.domainStats(d)));
    const sum = (f: (s: DomainStats) => number) => per.reduce((n, s) => n + f(s), 0);
    return {
      queued: sum((s) => s.queued),
      inFlight: sum((s) => s.inFlight),
      repeats: sum((s) => s.repeats),
      failed: sum((s) => s.failed),
      dead: sum((s) => s.dead),
      per,
    };
  }

  /** Requests of pod `id` the server is still answering. */
  function inFlightOf(id: string): string[] {
    const { web } = rig();
    // Only the tail can still be in flight (fetches here last ms, slow pages 1.5 s).
    const out: string[] = [];
    for (let i = web.log.length - 1; i >= Math.max(0, web.log.length - 2000); i--) {
      const e = web.log[i];
      if (e && e.endMs < 0 && podOfUserAgent(e.userAgent) === id) {
        out.push(`http://${e.host}:${web.port}${e.path}`);
      }
    }
    return out;
  }

  /**
   * kill -9 pod `id` while it holds leases: preferably while the server is answering one of its
   * requests (only slow pages stay open long enough for this process, which also runs the
   * server, to see them), else while the frontier counts leases in flight for it.
   */
  async function killMidFetch(id: string): Promise<void> {
    const { frontier, fleet } = rig();
    const since = Date.now();
    let urls = inFlightOf(id);
    let leases = 0;
    while (urls.length === 0) {
      if (Date.now() - since > 20_000) throw new Error(`${id} held no lease for 20 s`);
      if (Date.now() - since > 3000) {
        leases = Number((await frontier.inspector.podStats(id)).inFlight ?? 0);
        if (leases > 0) break;
      }
      await new Promise((r) => setImmediate(r));
      urls = inFlightOf(id);
    }
    await fleet.signal(id, 'SIGKILL');
    killedInFlight.push({ pod: id, urls, leases });
    mark(
      `kill -9 ${id}`,
      urls.length > 0
        ? `with ${urls.length} request(s) in flight at the server`
        : `with ${leases} lease(s) in flight (frontier pod counters)`,
    );
  }

  async function sigterm(id: string): Promise<void> {
    const { fleet } = rig();
    const run = await fleet.signal(id, 'SIGTERM', 30_000);
    const stats = fleet.exitStats(run);
    if (stats) exitStats.push(stats);
    mark(`SIGTERM ${id} exited`, `code ${run.child.exitCode}`);
  }

  return { events, killedInFlight, exitStats, mark, sumDomains, killMidFetch, sigterm };
}
