/**
 * Handoff benchmark: 10,000 domains (one URL each) queued in a real RedisFrontier on 10
 * pods; the fleet grows to 11 and shrinks to 9 (two graceful stops) on the consistent-hash
 * ring (Membership). The modulo assignment it was once compared with left the product; its
 * figures stay in BENCHMARKS.md. Per step: time until every domain sits in its
 * new owner's due index and nowhere else (and every pod is on the new ring),
 * domains moved vs the optimum k/N, commands the pods sent (client side), Redis calls
 * including those inside scripts and Redis CPU (INFO commandstats deltas, minus the
 * benchmark's own polling), and how long pods stopped claiming.
 *
 * `npm run bench -- membership`
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { RedisFrontier } from '@shardline/frontier';
import { syntheticDomains } from '@shardline/ring';
import { Redis } from 'ioredis';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { type HandoffReport, Membership } from '../src/index.js';

const DOMAINS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Client-side command count of the pods' connections (pipelined commands count one each).
let podCommands = 0;
const podClients = new WeakSet<object>();
const send = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function (this: Redis, ...args: Parameters<typeof send>) {
  if (podClients.has(this)) podCommands++;
  return send.apply(this, args);
};

interface Pod {
  id: string;
  membership: Membership;
  frontier: RedisFrontier;
  redis: Redis;
  /** Member of the fleet being measured (false once told to stop). */
  live: boolean;
  notReadyMs: number;
}

interface StepResult {
  step: string;
  ms: number;
  /** Longest handoff of one pod (scan of its due index + reindex of what moves). */
  workMs: number;
  moved: number;
  optimum: number;
  clientCommands: number;
  redisCalls: number;
  redisCpuMs: number;
  pausedPods: number;
  pauseMs: number;
  /** Ring changes adopted per pod during the step (1 = one clean transition). */
  changesPerPod: number;
  /** Whether placement settled within the cap. */
  settled: boolean;
}

/** A step that has not settled after this long is reported as such. */
const SETTLE_CAP_MS = 60_000;

/** Sums of INFO commandstats (calls, CPU µs), without the INFO calls themselves. */
async function commandStats(admin: Redis): Promise<{ calls: number; usec: number }> {
  const text = (await admin.info('commandstats')) as string;
  let calls = 0;
  let usec = 0;
  for (const m of text.matchAll(/cmdstat_([a-z|]+):calls=(\d+),usec=(\d+)/g)) {
    if (m[1] === 'info') continue;
    calls += Number(m[2]);
    usec += Number(m[3]);
  }
  return { calls, usec };
}

/** Where each domain sits: domain → pods whose due index holds it. */
async function locations(frontier: RedisFrontier, pods: string[]) {
  const out = new Map<string, string[]>();
  for (const pod of pods) {
    for (const d of await frontier.inspector.queuedDomainsOf(pod)) {
      const list = out.get(d) ?? [];
      list.push(pod);
      out.set(d, list);
    }
  }
  return out;
}

async function scenario(server: RedisServer): Promise<{ results: StepResult[] }> {
  const prefix = `b${randomUUID().slice(0, 6)}`;
  const admin = new Redis(server.port, server.host);
  const pods: Pod[] = [];
  let transitions = 0;
  let handoffWorkMs = 0;
  const make = (id: string): Pod => {
    const redis = new Redis(server.port, server.host);
    podClients.add(redis);
    const frontier: RedisFrontier = new RedisFrontier({
      redis,
      prefix,
      ownerOf: (d) => membership.ownerOf(d),
      pinMs: 0,
    });
    const membership: Membership = new Membership({
      redis,
      podId: id,
      prefix,
      frontier,
      sessionTimeoutMs: 60_000,
      heartbeatMs: 20_000,
      sweepIntervalMs: 0,
    });
    membership.on('change', () => transitions++);
    membership.on('handoff', (h: HandoffReport) => {
      handoffWorkMs = Math.max(handoffWorkMs, h.durationMs);
    });
    // Live (counted for pauses) once started.
    const pod: Pod = { id, membership, frontier, redis, live: false, notReadyMs: 0 };
    pods.push(pod);
    return pod;
  };
  const ids = (n: number) =>
    Array.from({ length: n }, (_, i) => `pod-${String(i + 1).padStart(2, '0')}`);
  const all = ids(11);

  await Promise.all(ids(10).map((id) => make(id).membership.start()));
  for (const p of pods) p.live = true;
  const domains = syntheticDomains(DOMAINS, 3);
  const seeder = pods[0]!;
  for (let i = 0; i < domains.length; i += 1000) {
    await seeder.frontier.enqueue(domains.slice(i, i + 1000).map((d) => `https://${d}/`));
  }

  // Pause accounting: sample readiness of the pods every 10 ms.
  let sampling = true;
  const sampler = (async () => {
    let last = performance.now();
    while (sampling) {
      await sleep(10);
      const now = performance.now();
      for (const p of pods) if (!p.membership.ready && p.live) p.notReadyMs += now - last;
      last = now;
    }
  })();

  let pollCalls = 0;
  let settledOk = true;
  /** Waits until every live pod uses the same ring and every domain sits in its owner's index only. */
  const settled = async (live: Pod[]): Promise<Map<string, string[]>> => {
    const deadline = performance.now() + SETTLE_CAP_MS;
    for (;;) {
      const owner = live[0]!.membership;
      const timedOut = performance.now() > deadline;
      if (
        timedOut ||
        live.every((p) => p.membership.ready && p.membership.ring?.size === live.length)
      ) {
        const where = await locations(seeder.frontier, all);
        pollCalls += all.length;
        const agree = domains.every((d) =>
          live.every((p) => p.membership.ownerOf(d) === owner.ownerOf(d)),
        );
        const placed = domains.every(
          (d) => where.get(d)?.length === 1 && where.get(d)![0] === owner.ownerOf(d),
        );
        if ((agree && placed) || timedOut) {
          settledOk = !timedOut;
          return where;
        }
      }
      await sleep(20);
    }
  };

  const results: StepResult[] = [];
  const measure = async (
    step: string,
    optimum: number,
    action: () => Promise<void>,
    live: () => Pod[],
  ) => {
    const before = await settled(live());
    const changes0 = transitions;
    for (const p of pods) p.notReadyMs = 0;
    const s0 = await commandStats(admin);
    const c0 = podCommands;
    pollCalls = 0;
    handoffWorkMs = 0;
    const t0 = performance.now();
    await action();
    const after = await settled(live());
    const ms = performance.now() - t0;
    const s1 = await commandStats(admin);
    const moved = domains.filter((d) => before.get(d)?.[0] !== after.get(d)?.[0]).length;
    const paused = pods.filter((p) => p.live && p.notReadyMs > 0);
    results.push({
      step,
      ms,
      workMs: handoffWorkMs,
      moved,
      optimum,
      clientCommands: podCommands - c0,
      redisCalls: s1.calls - s0.calls - pollCalls,
      redisCpuMs: (s1.usec - s0.usec) / 1000,
      changesPerPod: (transitions - changes0) / live().length,
      settled: settledOk,
      pausedPods: paused.length,
      pauseMs: paused.length ? Math.max(...paused.map((p) => p.notReadyMs)) : 0,
    });
  };

  await measure(
    '10 → 11',
    DOMAINS / 11,
    async () => {
      const p = make('pod-11');
      await p.membership.start();
      p.live = true;
    },
    () => pods.filter((p) => p.live || p.id === 'pod-11'),
  );
  await measure(
    '11 → 9',
    (DOMAINS * 2) / 11,
    async () => {
      const leaving = pods.filter((p) => p.id === 'pod-10' || p.id === 'pod-11');
      for (const p of leaving) p.live = false;
      // The pods hold no leases: releasing them is immediate.
      await Promise.all(
        leaving.map((p) => p.membership.stop({ graceful: true, releaseLeases: async () => {} })),
      );
    },
    () => pods.filter((p) => p.live),
  );
  sampling = false;
  await sampler;
  await Promise.all(pods.map((p) => p.membership.stop({ graceful: false })));
  for (const p of pods) p.redis.disconnect();
  admin.disconnect();
  return { results };
}

const server = await startRedis();
try {
  const runs = [['ring', await scenario(server)]] as const;
  const fmt = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  console.log(
    `\n${DOMAINS.toLocaleString('en-US')} domains, 10 pods → 11 → 9 (two graceful stops)\n`,
  );
  console.log(
    '| assignment | step | until placed | longest pod handoff | domains moved (optimum) | moved / optimum | client commands / moved domain | Redis calls / moved domain | Redis CPU / moved domain | changes adopted per pod | pods that stopped claiming (longest) |',
  );
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [label, r] of runs) {
    for (const s of r.results) {
      const per = (x: number) => x / Math.max(1, s.moved);
      console.log(
        `| ${label} | ${s.step} | ${s.settled ? '' : 'not settled after '}${fmt(s.ms)} ms | ${fmt(s.workMs)} ms | ${fmt(s.moved)} (${fmt(s.optimum)}) | ${fmt(s.moved / s.optimum, 2)}× | ${fmt(per(s.clientCommands), 1)} | ${fmt(per(s.redisCalls), 1)} | ${fmt(per(s.redisCpuMs * 1000), 0)} µs | ${fmt(s.changesPerPod, 1)} | ${s.pausedPods} (${fmt(s.pauseMs)} ms) |`,
      );
    }
  }
} finally {
  await server.stop();
}
