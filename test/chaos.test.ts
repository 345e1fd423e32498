/**
 * Chaos crawl: real `shardline crawl` processes on a Redis with AOF against the test web's
 * 300 hosts, while the fleet scales 1 → 4 → 2 → 3, one pod is killed -9 mid-fetch, another
 * gets SIGTERM, Redis restarts, and a killed pod comes back under its old id inside its
 * session. Judged from the SERVER's request log and the frontier's exact per-domain
 * counters; the membership figures are replayed on `@shardline/ring` from the registry's
 * epochs as a watcher saw them. Prints its figures.
 *
 * Run with `npm run test:chaos` (about 2 minutes). A domain's pause at a change is what it
 * waited after the change (see `pauseOf` in chaos/figures.ts); a domain that a neighbouring
 * change moved while it waited counts there, not as unmoved. Unmoved domains used to wait
 * 1.5–2.7 s at joins about one run in three: claims held back their own leases until the
 * foreign hosts they found were reindexed, and the old owner kept a pinned copy of every
 * host it handed off, so each later handoff redid them all (fixed in the frontier's claim
 * and in the membership handoff; regression tests in packages/frontier and
 * packages/membership).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RedisFrontier } from '@shardline/frontier';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, type RunnerTask, vi } from 'vitest';
import { type ChangeFigures, changeFigures, formatTable } from './chaos/figures.js';
import type { MembershipWatch } from './chaos/membership-watch.js';
import { type PodFleet, podOfUserAgent } from './chaos/pods.js';
import { chaosSteps, type DomainTotals, startChaosRig } from './chaos/rig.js';
import { readResults, sentTimeLog } from './helpers/hostile-crawl.js';
import type { RedisServer } from './helpers/redis.js';
import { politenessViolations } from './web/analysis.js';
import type { TestWeb } from './web/index.js';

const HOSTS = 300;
const MIN_DELAY_MS = 1500;
const SESSION_TIMEOUT_MS = 3000;
/**
 * Session of the chaos-2 incarnations killed and restarted "inside the session": a restart spawns
 * a Node process, which on a loaded 2-core CI machine took longer than 3 s (the registry then saw
 * an expiry and a join). 20 s keeps the step about static membership, not about start-up speed.
 */
const RESTART_SESSION_TIMEOUT_MS = 20_000;
const SLOW_MS = 1500;
/** Keyspace moved / optimum allowed per change (8192 vnodes per pod). */
const MAX_MOVE_RATIO = 1.15;
/**
 * An unmoved domain may wait this much beyond its politeness delay: claim-loop latency on two
 * busy cores (outside changes the same measure stays < 0.5 s; across joins,
 * while new pods start under tsx, unmoved domains measured up to 0.8 s). A domain that waited for a
 * handoff or a reclaim waits ≥ the session timeout (3 s) or a drain (slow page 1.5 s).
 */
const UNMOVED_SLACK_MS = 1500;
/** Poll period of the membership watcher. */
const WATCH_INTERVAL_MS = 100;
/**
 * Jitter allowed by the politeness check. Gaps count start to start (a pod's next request to a
 * host leaves exactly the delay after the previous one's send; with claim ahead, within a few
 * ms), and the test web runs in this process, whose event loop (watchers, Redis reads) can
 * stamp an arrival late: in CI three hosts' gaps came out at exactly 1,386.9 ms, one stall
 * stamping three arrivals at once 113 ms late; later five hosts at 1,346 ms and twenty at
 * 1,245-1,334 ms. So pages are judged by their pods' send times where those agree with the
 * server's log (as the cluster crawl tests do); robots.txt requests and fetches cut by a kill
 * keep the server's stamps, hence still this slack: 10 % of the 1.5 s delay.
 */
const POLITENESS_SLACK_MS = 150;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let web: TestWeb;
let server: RedisServer;
let redis: Redis;
let fleet: PodFleet;
let watch: MembershipWatch;
let frontier: RedisFrontier;
let domains: string[];

// The steps record what the timeline did, for the assertions.
const { events, killedInFlight, exitStats, mark, sumDomains, killMidFetch, sigterm } = chaosSteps(
  () => ({ web, frontier, fleet, domains }),
);
const restartsInSession: { pod: string; epochBefore: number; epochAfter: number }[] = [];
let leftoverAtLastStep = 0;
let totals: DomainTotals;
let figures: ChangeFigures[];

beforeAll(async () => {
  ({ web, server, redis, frontier, watch, fleet, domains } = await startChaosRig({
    hosts: HOSTS,
    slowMs: SLOW_MS,
    minDelayMs: MIN_DELAY_MS,
    sessionTimeoutMs: SESSION_TIMEOUT_MS,
    watchIntervalMs: WATCH_INTERVAL_MS,
  }));
}, 60_000);

/** Whether the task or anything under it failed (a beforeAll error fails its suite). */
function anyFailed(task: RunnerTask): boolean {
  if (task.result?.state === 'fail') return true;
  return 'tasks' in task && task.tasks.some(anyFailed);
}

// vitest reads hook arguments as fixtures: the first must be a destructuring pattern.
// biome-ignore lint/correctness/noEmptyPattern: no fixture wanted, only the file (2nd argument)
afterAll(async ({}, file) => {
  await fleet?.killAll();
  await watch?.stop();
  redis?.disconnect();
  await Promise.all([web?.close(), server?.stop()]);
  // The pods' logs and the request dump are kept only when a check failed.
  if (fleet && !anyFailed(file)) rmSync(fleet.dir, { recursive: true, force: true });
});

describe('chaos crawl of 300 hosts through scaling, kills, a SIGTERM and a Redis restart', () => {
  beforeAll(async () => {
    const started = Date.now();
    // 1 pod, seeded with every site root.
    fleet.start('chaos-1');
    mark('start chaos-1 (seeds)');
    await watch.waitForMembers(['chaos-1'], 30_000);
    await vi.waitFor(
      () => expect(web.log.length, 'the crawl under way').toBeGreaterThanOrEqual(300),
      {
        timeout: 30_000,
      },
    );
    mark('chaos-1 crawling');

    // Scale 1 → 4.
    for (const id of ['chaos-2', 'chaos-3', 'chaos-4']) fleet.start(id);
    await watch.waitForMembers(['chaos-1', 'chaos-2', 'chaos-3', 'chaos-4'], 30_000);
    mark('scaled to 4');
    await sleep(3000);

    // Scale 4 → 2: SIGTERM two pods (graceful handoff).
    await Promise.all([sigterm('chaos-3'), sigterm('chaos-4')]);
    await watch.waitForMembers(['chaos-1', 'chaos-2'], 10_000);
    mark('scaled to 2');
    await sleep(3000);

    // Scale 2 → 3 (a fresh pod).
    fleet.start('chaos-5');
    await watch.waitForMembers(['chaos-1', 'chaos-2', 'chaos-5'], 30_000);
    mark('scaled to 3');
    await sleep(3000);

    // kill -9 mid-fetch; the survivors reclaim after the session timeout.
    await killMidFetch('chaos-2');
    await watch.waitForMembers(['chaos-1', 'chaos-5'], SESSION_TIMEOUT_MS + 10_000);
    mark('chaos-2 expired and reclaimed');
    await sleep(3000);

    // SIGTERM another.
    await sigterm('chaos-5');
    await watch.waitForMembers(['chaos-1'], 10_000);
    await sleep(2000);

    // The crashed pod comes back under its old id (after its session: a join).
    fleet.start('chaos-2', { sessionTimeoutMs: RESTART_SESSION_TIMEOUT_MS });
    await watch.waitForMembers(['chaos-1', 'chaos-2'], 30_000);
    mark('chaos-2 rejoined');
    await sleep(3000);

    // Redis restarts (AOF, fsync always); the pods reconnect.
    await server.kill();
    mark('redis killed');
    await sleep(500);
    await server.restart();
    mark('redis restarted');
    await vi.waitFor(
      () => {
        const since = events.at(-1)?.atMs ?? 0;
        const by = new Set(
          web.log.filter((e) => e.startMs > since).map((e) => podOfUserAgent(e.userAgent)),
        );
        expect([...by], 'pods fetching again after the restart').toEqual(
          expect.arrayContaining(['chaos-1', 'chaos-2']),
        );
      },
      { timeout: 30_000 },
    );
    mark('both pods fetching after the redis restart');
    await sleep(2000);

    // kill -9 mid-fetch and restart under the same id inside the session timeout: static
    // membership, no epoch change; the new incarnation requeues the old one's leases.
    const epochBefore = watch.views.at(-1)?.epoch ?? -1;
    await killMidFetch('chaos-2');
    fleet.start('chaos-2', { sessionTimeoutMs: RESTART_SESSION_TIMEOUT_MS });
    await vi.waitFor(
      () => {
        const since = events.at(-1)?.atMs ?? 0;
        const again = web.log.some(
          (e) => e.startMs > since && podOfUserAgent(e.userAgent) === 'chaos-2',
        );
        expect(again, 'chaos-2 fetching again').toBe(true);
      },
      { timeout: 30_000 },
    );
    const epochAfter = watch.views.at(-1)?.epoch ?? -1;
    restartsInSession.push({ pod: 'chaos-2', epochBefore, epochAfter });
    mark('chaos-2 restarted in its session', `epoch ${epochBefore} → ${epochAfter}`);
    leftoverAtLastStep = (await sumDomains()).queued;

    // Let it finish: nothing queued, nothing in flight (exact per-domain counters), twice.
    let quietPolls = 0;
    await vi.waitFor(
      async () => {
        const s = await sumDomains();
        quietPolls = s.queued === 0 && s.inFlight === 0 ? quietPolls + 1 : 0;
        if (quietPolls === 0) await sleep(500);
        expect(quietPolls, 'the crawl drained (three quiet polls)').toBeGreaterThanOrEqual(3);
      },
      { timeout: 150_000 },
    );
    mark('drained');
    for (const id of fleet.liveIds()) await sigterm(id);
    const final = await sumDomains();
    totals = final;
    await watch.poll();
    figures = await changeFigures({
      views: watch.views,
      labels: (b, a) => {
        const before = new Set(b.members.map((m) => m.id));
        const after = new Set(a.members.map((m) => m.id));
        const joined = [...after].filter((id) => !before.has(id));
        const left = [...before].filter((id) => !after.has(id));
        return [...joined.map((id) => `+${id}`), ...left.map((id) => `-${id}`)].join(' ');
      },
      ringParams: watch.ringParams ?? { vnodes: 8192, seed: 0 },
      domains,
      log: web.log,
      minDelayMs: MIN_DELAY_MS,
      lookBackMs: SESSION_TIMEOUT_MS + 3000,
      lookAheadMs: 15_000,
      unmovedSlackMs: UNMOVED_SLACK_MS,
      watchIntervalMs: WATCH_INTERVAL_MS,
    });
    console.log(
      `[chaos] membership changes (ring ${JSON.stringify(watch.ringParams)}):\n${formatTable(figures)}`,
    );
    const dump = join(fleet.dir, 'chaos-dump.json');
    writeFileSync(dump, JSON.stringify({ events, views: watch.views, log: web.log }));
    console.log(
      `[chaos] request log, views and events: ${dump}; pod logs in ${fleet.dir} (kept if a check fails)`,
    );
    console.log(
      `[chaos] total ${((Date.now() - started) / 1000).toFixed(1)} s, ${web.log.length} requests`,
    );
  }, 300_000);

  it('drove the crawl through every step with work left at the last one', () => {
    expect(leftoverAtLastStep).toBeGreaterThan(0);
    expect(killedInFlight.map((k) => k.urls.length + k.leases > 0)).toEqual([true, true]);
    // Restart inside the session: the registry saw no change.
    expect(restartsInSession).toEqual([
      {
        pod: 'chaos-2',
        epochBefore: expect.any(Number),
        epochAfter: restartsInSession[0]?.epochBefore,
      },
    ]);
  });

  it('fetches every reachable allowed URL (invariant 1) and leaves nothing queued or in flight', () => {
    const truth = web.groundTruth({ userAgentToken: 'shardline' });
    const counts = web.fetchCounts();
    const missing = [...truth.reachableAllowed].filter((url) => !counts.has(url));
    console.log(
      `[chaos] reachable allowed URLs: ${truth.reachableAllowed.size}, missing: ${missing.length}`,
    );
    expect(missing).toEqual([]);
    expect(truth.reachableAllowed.size).toBeGreaterThan(HOSTS * 10);
    expect({ queued: totals.queued, inFlight: totals.inFlight }).toEqual({
      queued: 0,
      inFlight: 0,
    });
  });

  it('repeats only fetches in flight at a kill or lease expiry (invariant 2)', async () => {
    const counts = web.fetchCounts();
    const repeated = [...counts].filter(([, n]) => n > 1);
    const duplicates = repeated.reduce((sum, [, n]) => sum + n - 1, 0);
    const released = exitStats.reduce((sum, s) => sum + Number(s.released ?? 0), 0);
    const lost = exitStats.reduce((sum, s) => sum + Number(s.lost ?? 0), 0);
    const inFlightAtKills = killedInFlight.reduce((sum, k) => sum + k.urls.length, 0);
    const budget = totals.repeats + totals.failed + released;
    console.log(
      `[chaos] duplicates at the server: ${duplicates} on ${repeated.length} URLs; budget ${budget} = repeats ${totals.repeats} (frontier, exact) + failed attempts ${totals.failed} + released ${released}; in flight at the server at the kills ${inFlightAtKills}; lost leases ${lost}`,
    );
    if (repeated.length > 0)
      console.log(
        `[chaos] repeated: ${repeated
          .slice(0, 20)
          .map(([u, n]) => `${u} ×${n}`)
          .join(', ')}`,
      );
    expect(duplicates).toBeLessThanOrEqual(budget);
    // A page the server was still answering when its pod died never completed: it must have
    // been requeued and fetched again, not lost.
    const cut = killedInFlight.flatMap((k) => k.urls).filter((u) => !u.endsWith('/robots.txt'));
    expect(cut.filter((url) => (counts.get(url) ?? 0) < 2)).toEqual([]);
  });

  it('never breaks per-host delay or concurrency 1, robots.txt included (invariant 3)', async () => {
    // Pages by their pods' send times where those agree with the server's log (sentTimeLog);
    // robots.txt and fetches cut by a kill keep the server's stamps.
    const results = await readResults(redis, 'sl:results');
    expect(results.length).toBeGreaterThan(web.log.length / 2);
    const violations = politenessViolations(sentTimeLog(web.log, results), {
      minGapMs: MIN_DELAY_MS,
      maxConcurrency: 1,
      slackMs: POLITENESS_SLACK_MS,
      includeRobots: true,
    });
    console.log(`[chaos] politeness violations: ${violations.length}`);
    expect(violations.slice(0, 20)).toEqual([]);
  });

  it('explains every dead letter', async () => {
    const letters = (
      await Promise.all(domains.map((d) => frontier.inspector.deadLetters(d, { limit: 1000 })))
    ).flat();
    console.log(
      `[chaos] dead letters: ${letters.length} ${letters
        .slice(0, 10)
        .map((l) => `${l.url} ${l.reason}`)
        .join('; ')}`,
    );
    expect(letters.length).toBe(totals.dead);
    // Plain hosts on loopback: the only way to a dead letter is exhausting retries on
    // repeats, which would mean a URL lost its fetch to kills more than maxRetries times.
    expect(letters.map((l) => `${l.url} ${l.reason}`)).toEqual([]);
  });

  it('moves about k/N of the keyspace per change and never pauses unmoved domains', () => {
    const joinsAndLeaves = figures.filter((f) => f.optimum > 0);
    expect(joinsAndLeaves.length).toBeGreaterThanOrEqual(6);
    for (const f of joinsAndLeaves) {
      expect(f.keyspaceMoved / f.optimum, f.label).toBeLessThanOrEqual(MAX_MOVE_RATIO);
      expect(f.unmovedPaused, f.label).toEqual([]);
    }
  });
});
