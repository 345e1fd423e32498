/**
 * The crawl of crawl.test.ts on a real three-master Redis Cluster, with a scale step: two pods
 * (in-process, each with its own ioredis Cluster client) start the crawl of 200 hosts of the
 * hostile test web, a third pod joins once a quarter of the pages are fetched (epoch bump,
 * domains move), and one of the first two leaves gracefully at about half. Judged from what
 * the SERVER logged (each pod sends its own contact URL in the User-Agent) and what the
 * cluster holds (keys per master).
 *
 * Part of `npm test` (about 40 s). In one early run three hosts were never fetched while
 * nothing stayed queued. The likely cause (the run's log was not kept): a robots.txt request
 * that timed out (1 s headers timeout on a busy machine) or was abandoned by the leaving pod
 * became an "unreachable" answer cached in Redis, and every URL of the host was dead-lettered.
 * Since then an unreachable robots.txt holds its host until a retry (RFC 9309), an abandoned
 * request is never cached, the headers timeout is 15 s (3 s still fired under CPU hogs), and `robotsRetryProblems` checks the
 * robots.txt requests at the server; green in 8 of 8 runs after the change.
 */
import type { CrawlerPod, CrawlResult } from '@shardline/crawler';
import { domainKey } from '@shardline/url';
import { type Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  archiveKeyCount,
  archiveKeysPattern,
  domainKeysPattern,
} from '../packages/frontier/test/layout.js';
import { newClusterClient, newClusterPod, type PodSetup } from './crawl-cluster/pods.js';
import {
  CRAWL,
  fetchedOutsideTruth,
  HOSTILE_WEB,
  readResults,
  robotsRetryProblems,
  sentTimeLog,
  wrongFetchCounts,
} from './helpers/hostile-crawl.js';
import { type RedisCluster, startRedisCluster } from './helpers/redis.js';
import { politenessViolations, type RequestLogEntry } from './web/analysis.js';
import { startTestWeb, type TestWeb } from './web/index.js';

const PREFIX = 'cc';
/**
 * A claim that was already running when a pod learned the new ring decided with the old one;
 * its lease starts at most a claim round trip later. Leases started up to this long after
 * the ring settled still count as "from before the step".
 */
const CLAIM_SLACK_MS = 250;

let web: TestWeb;
let cluster: RedisCluster;
const clients: (Redis | Cluster)[] = [];

beforeAll(async () => {
  [web, cluster] = await Promise.all([startTestWeb(HOSTILE_WEB), startRedisCluster(3)]);
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
  await Promise.all([web?.close(), cluster?.stop()]);
});

const setup = (): PodSetup => ({
  nodes: cluster.nodes,
  clients,
  prefix: PREFIX,
  resolve: web.resolveOverrides,
  ...CRAWL,
});

/** All these pods hold the same ring, made of exactly them. */
function agreed(pods: CrawlerPod[]): boolean {
  const epoch = pods[0]!.membership!.epoch;
  const ids = pods.map((p) => p.id).sort();
  return pods.every(
    (p) =>
      p.membership!.epoch === epoch &&
      JSON.stringify(
        p
          .membership!.members()
          .map((m) => m.id)
          .sort(),
      ) === JSON.stringify(ids),
  );
}

function now(): number {
  return performance.timeOrigin + performance.now();
}

/** Pod id of a server log entry, from the User-Agent's contact URL. */
function senderOf(entry: RequestLogEntry): string {
  const match = /\(\+https:\/\/([^./]+)\.example\/bot\)/.exec(entry.userAgent);
  if (!match) throw new Error(`unknown User-Agent ${entry.userAgent}`);
  return match[1]!;
}

/** One ring in force: from `changeAt` (the step began) and settled (all agree) at `settledAt`. */
interface Phase {
  changeAt: number;
  settledAt: number;
  owner: Map<string, string>;
}

function owners(pod: CrawlerPod): Map<string, string> {
  return new Map(web.hosts.map((h) => [h, pod.membership!.ownerOf(domainKey(h))]));
}

describe('three pods on a three-master Redis Cluster crawling 200 hosts, scaling mid-crawl', () => {
  let pods: Record<'ka' | 'kb' | 'kc', CrawlerPod>;
  let phases: Phase[];
  /** `kb` had returned from `stop()`: it sends nothing after this. */
  let leftAt: number;
  let results: CrawlResult[];
  let truthSize: number;

  beforeAll(async () => {
    const ka = newClusterPod('ka', setup());
    const kb = newClusterPod('kb', setup(), { exitWhenIdle: false });
    const kc = newClusterPod('kc', setup());
    pods = { ka, kb, kc };
    await Promise.all([ka.start(), kb.start()]);
    await vi.waitFor(() => expect(agreed([ka, kb]), 'ka and kb agree on a ring').toBe(true), {
      timeout: 15_000,
      interval: 20,
    });
    const t0 = now();
    phases = [{ changeAt: t0, settledAt: t0, owner: owners(ka) }];
    truthSize = web.groundTruth({ userAgentToken: 'shardline' }).reachableAllowed.size;
    const report = await ka.seed(web.seeds);
    expect(report.queued).toBe(web.seeds.length);
    const fetched = () => ka.stats().fetched + kb.stats().fetched + kc.stats().fetched;

    // Scale up: a third pod joins after a quarter of the pages.
    await vi.waitFor(() => expect(fetched() >= truthSize / 4, 'a quarter fetched').toBe(true), {
      timeout: 90_000,
      interval: 20,
    });
    const joinAt = now();
    await kc.start();
    await vi.waitFor(() => expect(agreed([ka, kb, kc]), 'three pods agree on a ring').toBe(true), {
      timeout: 15_000,
      interval: 20,
    });
    phases.push({ changeAt: joinAt, settledAt: now(), owner: owners(ka) });

    // Scale down: kb leaves gracefully at about half.
    await vi.waitFor(() => expect(fetched() >= truthSize / 2, 'half fetched').toBe(true), {
      timeout: 90_000,
      interval: 20,
    });
    const stopAt = now();
    await kb.stop();
    leftAt = now();
    await vi.waitFor(() => expect(agreed([ka, kc]), 'ka and kc agree on a ring').toBe(true), {
      timeout: 15_000,
      interval: 20,
    });
    phases.push({ changeAt: stopAt, settledAt: now(), owner: owners(ka) });

    await Promise.all([ka.done, kc.done]);
    results = await readResults(newClusterClient(setup()), ka.resultsStreamKey);
  }, 300_000);

  it('moved domains at each step, to the joiner and away from the leaver', () => {
    const [before, joined, left] = phases.map((p) => p.owner) as [
      Map<string, string>,
      Map<string, string>,
      Map<string, string>,
    ];
    expect(new Set(before.values())).toEqual(new Set(['ka', 'kb']));
    expect(new Set(joined.values())).toEqual(new Set(['ka', 'kb', 'kc']));
    expect(new Set(left.values())).toEqual(new Set(['ka', 'kc']));
    // A join moves hosts only to the joiner; a leave only away from the leaver.
    for (const h of web.hosts) {
      if (joined.get(h) !== before.get(h)) expect(joined.get(h)).toBe('kc');
      if (left.get(h) !== joined.get(h)) expect(joined.get(h)).toBe('kb');
    }
    for (const pod of ['ka', 'kb', 'kc']) {
      expect(web.log.some((e) => senderOf(e) === pod)).toBe(true);
    }
  });

  it('fetches every reachable allowed URL exactly once (retries as the policy says)', () => {
    expect(wrongFetchCounts(web)).toEqual([]);
    expect(web.groundTruth({ userAgentToken: 'shardline' }).reachableAllowed.size).toBeGreaterThan(
      1500,
    );
    const { ka, kb, kc } = pods;
    expect(ka.stats().lost + kb.stats().lost + kc.stats().lost).toBe(0);
  });

  it('fetches nothing else: no disallowed, nofollow or trap URL', () => {
    expect(fetchedOutsideTruth(web)).toEqual([]);
    expect(web.groundTruth({ userAgentToken: 'shardline' }).disallowedLinked.size).toBeGreaterThan(
      0,
    );
  });

  it('keeps per-host gaps and concurrency 1 at the server across the steps, robots included', () => {
    // By the pods' send times: see sentTimeLog (the server's stamps lag under load).
    const violations = politenessViolations(sentTimeLog(web.log, results), {
      minGapMs: (host) => Math.max(CRAWL.minDelayMs, web.crawlDelayMs(host)),
      maxConcurrency: 1,
      includeRobots: true,
    });
    expect(violations).toEqual([]);
  });

  it('fetches robots.txt once per host (unreachable ones once per retry), whichever pod owns it', () => {
    const problems = robotsRetryProblems(web);
    expect(problems.wrongCounts).toEqual([]);
    expect(problems.earlyRetries).toEqual([]);
  });

  it('sends each request from the owner of its host at that time', () => {
    // A pod's lease on `host` that started before `until` and was open at `t`.
    const straddles = (pod: string, host: string, t: number, until: number) =>
      results.some(
        (r) => r.pod === pod && r.host === host && r.startedAtMs < until && r.endAtMs + 10 >= t,
      );
    const wrong: string[] = [];
    let carried = 0;
    for (const e of web.log) {
      const by = senderOf(e);
      if (by === 'kb' && e.startMs > leftAt) {
        wrong.push(`${e.host}${e.path} by kb after it left`);
        continue;
      }
      let k = 0;
      for (let i = 1; i < phases.length; i++) if (e.startMs >= phases[i]!.changeAt) k = i;
      const phase = phases[k]!;
      const owner = phase.owner.get(e.host);
      if (by === owner) continue;
      const previous = k > 0 ? phases[k - 1]!.owner.get(e.host) : undefined;
      // While a step is under way (begun, not yet agreed by all) either owner may send.
      if (e.startMs <= phase.settledAt && by === previous) continue;
      // A lease from before the step may finish after it (politeness still holds, above).
      if (k > 0 && straddles(by, e.host, e.startMs, phase.settledAt + CLAIM_SLACK_MS)) {
        carried++;
        continue;
      }
      wrong.push(`${e.host}${e.path} by ${by}, owner ${owner}, phase ${k}`);
    }
    expect(wrong).toEqual([]);
    // Most of the traffic cannot be carried over from an earlier ring.
    expect(carried).toBeLessThan(web.log.length / 10);
    // The joiner took over hosts it did not own before, and fetched from them.
    const movedToKc = web.hosts.filter(
      (h) => phases[1]!.owner.get(h) === 'kc' && phases[0]!.owner.get(h) !== 'kc',
    );
    expect(movedToKc.length).toBeGreaterThan(0);
    expect(web.log.some((e) => senderOf(e) === 'kc' && movedToKc.includes(e.host))).toBe(true);
  });

  it('terminates with nothing queued or in flight', async () => {
    const { ka, kb, kc } = pods;
    const stats = await ka.frontier.stats();
    expect(stats.queued ?? 0).toBe(0);
    expect(stats.inFlight ?? 0).toBe(0);
    for (const pod of [ka, kb, kc]) {
      expect(pod.stats().inFlight).toBe(0);
      expect(pod.stats().results.errors).toBe(0);
    }
    expect(results.every((r) => r.outcome !== 'lost')).toBe(true);
    expect(results.filter((r) => r.outcome === 'fetched').length).toBeGreaterThan(1500);
  });

  it("spreads the frontier's keys over all three masters", async () => {
    const perMaster: { size: number; domainKeys: number }[] = [];
    // A domain's state is its own keys while live, or its field in an archive hash once a
    // visit folded it away (idle and small: most of these by the end of the crawl).
    const patterns = [domainKeysPattern(PREFIX), archiveKeysPattern(PREFIX)];
    for (const node of cluster.nodes) {
      const direct = new Redis({ host: node.host, port: node.port, lazyConnect: true });
      clients.push(direct);
      await direct.connect();
      const size = Number(await direct.dbsize());
      const keys = new Set<string>();
      for (const pattern of patterns) {
        let cursor = '0';
        do {
          const [next, batch] = await direct.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
          cursor = next;
          for (const key of batch) keys.add(key);
        } while (cursor !== '0');
      }
      perMaster.push({ size, domainKeys: keys.size });
    }
    const total = perMaster.reduce((n, m) => n + m.domainKeys, 0);
    // Every crawled domain holds a key of its own while live, or shares an archive hash of
    // its slot once folded; hashed by domain over 16384 slots in three ranges.
    const domains = new Set(web.hosts.map((host) => domainKey(host)));
    expect(domains.size).toBeGreaterThan(100);
    expect(total).toBeGreaterThanOrEqual(archiveKeyCount(PREFIX, domains));
    for (const m of perMaster) {
      expect(m.domainKeys).toBeGreaterThan(total / 6);
      expect(m.size).toBeGreaterThanOrEqual(m.domainKeys);
    }
  });
});
