/**
 * Failures in the membership integration suite (see membership-suite.ts): a crashed pod is
 * reclaimed exactly once, under a lock that outlives no holder; a pod back with its id in
 * time keeps its domains; and neither lost epoch messages nor a pod's clock skew matter.
 */
import { syntheticDomains } from '@shardline/ring';
import { expect, it, vi } from 'vitest';
import {
  MembershipKeys,
  MembershipPodIdInUseError,
  type MembershipSupersededError,
} from '../src/index.js';
import { HeartbeatStatus, Registry } from '../src/registry.js';
import { hostAt, SETTLE, sleep, waitPlaced } from './harness.js';
import { type MembershipSuite, urls } from './membership-suite-context.js';

export function registerFailureTests({ fleet }: MembershipSuite): void {
  it('a crashed pod is reclaimed by exactly one survivor after its session expired', async () => {
    const fl = fleet();
    const [a, , , , e] = await fl.start('pod-a', 'pod-b', 'pod-c', 'pod-d', 'pod-e');
    const ids = ['pod-a', 'pod-b', 'pod-c', 'pod-d', 'pod-e'];
    const domains = syntheticDomains(200, 13);
    await a!.frontier.enqueue(urls(domains));
    await waitPlaced(a!.frontier.inspector, ids, domains, a!.membership.ownerOf, 'placement');
    const { leases } = await e!.frontier.claim({ pod: 'pod-e', max: 3 });
    expect(leases.length).toBe(3);
    const epochBefore = a!.membership.epoch;

    await e!.membership.stop({ graceful: false }); // heartbeats stop; no leave
    await vi.waitFor(
      () =>
        expect(
          fl.pods.some((p) => p.reclaims.length > 0),
          'reclaim of pod-e',
        ).toBe(true),
      { ...SETTLE, timeout: 20_000 },
    );
    await sleep(1000); // several more heartbeats of every survivor
    const reclaims = fl.pods.flatMap((p) => p.reclaims);
    expect(reclaims).toHaveLength(1);
    expect(reclaims[0]).toMatchObject({ pod: 'pod-e', kind: 'crash', requeued: 3 });
    expect(a!.membership.epoch).toBe(epochBefore + 1);
    const ring = a!.membership.ring!;
    expect(ring.ids()).toEqual(['pod-a', 'pod-b', 'pod-c', 'pod-d']);
    await waitPlaced(a!.frontier.inspector, ids, domains, (x) => ring.owner(x), '4-pod placement');
    for (const lease of leases) {
      const stats = await a!.frontier.inspector.domainStats(lease.domain);
      expect([stats.queued, stats.inFlight, stats.repeats]).toEqual([1, 0, 1]);
    }
    expect(await a!.redis.zcard(a!.membership.keys.reclaim())).toBe(0);
  });

  it('the reclaim lock grants one of many concurrent survivors and passes on when it expires', async () => {
    const fl = fleet();
    const keys = new MembershipKeys(fl.prefix);
    const admin = fl.connect();
    await admin.zadd(keys.reclaim(), 5, 'ghost');
    const registries = Array.from({ length: 8 }, () => new Registry(fl.connect(), keys));
    const claims = await Promise.all(
      registries.map((r, i) => r.reclaimClaim('ghost', `s${i}`, 5, 300)),
    );
    const winners = claims.flatMap((c, i) => (c.granted ? [i] : []));
    expect(winners).toHaveLength(1);
    expect(claims.filter((c) => !c.granted && c.reason === 'taken')).toHaveLength(7);
    // A survivor whose ring predates the removal may not do the work.
    expect(await registries[0]!.reclaimClaim('ghost', 'old', 4, 300)).toEqual({
      granted: false,
      reason: 'stale-ring',
    });
    // The holder dies: its lock expires and another survivor takes over.
    await sleep(400);
    const other = (winners[0]! + 1) % 8;
    expect((await registries[other]!.reclaimClaim('ghost', `s${other}`, 5, 5000)).granted).toBe(
      true,
    );
    expect(await registries[winners[0]!]!.reclaimDone('ghost', `s${winners[0]}`)).toBe(false);
    expect(await registries[other]!.reclaimDone('ghost', `s${other}`)).toBe(true);
    expect(await registries[0]!.reclaimClaim('ghost', 's0', 9, 300)).toEqual({
      granted: false,
      reason: 'done',
    });
  });

  it('a pod restarting with its id inside the timeout keeps its domains without an epoch bump', async () => {
    const fl = fleet();
    const [a, , c] = await fl.start('pod-a', 'pod-b', 'pod-c');
    const domains = syntheticDomains(150, 14);
    await a!.frontier.enqueue(urls(domains));
    const ids = ['pod-a', 'pod-b', 'pod-c'];
    await waitPlaced(a!.frontier.inspector, ids, domains, a!.membership.ownerOf, 'placement');
    const { leases } = await c!.frontier.claim({ pod: 'pod-c', max: 2 });
    expect(leases.length).toBe(2);
    const dueOfC = async () =>
      (await a!.frontier.inspector.dueHosts('pod-c', { limit: 1_000_000 }))
        .map((h) => hostAt(h.domain, h.host))
        .sort();
    const cIndex = await dueOfC();
    const epochBefore = Number(await a!.redis.get(a!.membership.keys.epoch()));

    await c!.membership.stop({ graceful: false }); // the process dies…
    const c2 = fl.pod('pod-c'); // …and its replacement starts with the same id
    let restarted = 0;
    c2.membership.on('restarted', () => restarted++);
    await c2.membership.start();
    expect(restarted).toBe(1);
    expect(Number(await a!.redis.get(a!.membership.keys.epoch()))).toBe(epochBefore);
    expect(c2.membership.epoch).toBe(epochBefore);
    // The previous incarnation's leases are back in the queue before c2 claims.
    for (const lease of leases) {
      const stats = await a!.frontier.inspector.domainStats(lease.domain);
      expect([stats.queued, stats.inFlight]).toEqual([1, 0]);
    }
    // Well past the session timeout: nobody expired or reclaimed pod-c.
    await sleep(2500);
    expect(Number(await a!.redis.get(a!.membership.keys.epoch()))).toBe(epochBefore);
    expect(fl.pods.flatMap((p) => p.reclaims)).toEqual([]);
    expect(await dueOfC()).toEqual(cIndex);
  });

  it('a second process with a live pod id is refused at start and takes nothing from the first', async () => {
    const fl = fleet();
    const [a, , c] = await fl.start('pod-a', 'pod-b', 'pod-c');
    const domains = syntheticDomains(150, 15);
    await a!.frontier.enqueue(urls(domains));
    const ids = ['pod-a', 'pod-b', 'pod-c'];
    await waitPlaced(a!.frontier.inspector, ids, domains, a!.membership.ownerOf, 'placement');
    const { leases } = await c!.frontier.claim({ pod: 'pod-c', max: 2 });
    expect(leases.length).toBe(2);
    const epochBefore = Number(await a!.redis.get(a!.membership.keys.epoch()));

    // The same id started again while pod-c runs (two `shardline crawl` on one host name).
    const twin = fl.pod('pod-c');
    const refused = await twin.membership.start().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(MembershipPodIdInUseError);
    expect((refused as Error).message).toMatch(
      /^pod id pod-c is in use by another live pod \(.+\): give each pod its own id \(--pod-id, POD_ID\), or stop the other$/,
    );
    // pod-c's leases stay out and its own: the twin requeued nothing and changed no epoch.
    for (const lease of leases) {
      const stats = await a!.frontier.inspector.domainStats(lease.domain);
      expect(stats.inFlight).toBe(1);
    }
    expect(await c!.frontier.completeMany(leases.map((lease) => ({ lease })))).toEqual([
      null,
      null,
    ]);
    expect(Number(await a!.redis.get(a!.membership.keys.epoch()))).toBe(epochBefore);
    expect(c!.membership.ring!.ids()).toEqual(ids);
  });

  it('a pod whose id was taken over while it stalled stops at its next heartbeat and writes nothing', async () => {
    const fl = fleet();
    const [a, , c] = await fl.start('pod-a', 'pod-b', 'pod-c');
    const domains = syntheticDomains(150, 16);
    await a!.frontier.enqueue(urls(domains));
    const ids = ['pod-a', 'pod-b', 'pod-c'];
    await waitPlaced(a!.frontier.inspector, ids, domains, a!.membership.ownerOf, 'placement');
    const { leases } = await c!.frontier.claim({ pod: 'pod-c', max: 2 });
    expect(leases.length).toBe(2);
    const keys = c!.membership.keys;
    const epochBefore = Number(await a!.redis.get(keys.epoch()));
    const superseded: MembershipSupersededError[] = [];
    c!.membership.on('superseded', (error) => superseded.push(error));

    // pod-c stalls (a long pause) and a replacement with its id, having found it silent for
    // 1.5 heartbeats, takes the session over and requeues its leases — what start() does.
    const registry = new Registry(fl.connect(), keys);
    const take = await registry.heartbeat({
      pod: 'pod-c',
      sessionTimeoutMs: 60_000,
      weight: 1,
      instance: 'replacement',
      info: 'replacement-host/42',
      mode: 'take',
      knownEpoch: epochBefore,
      vnodes: 256,
      seed: Number(await a!.redis.hget(keys.config(), 'seed')),
    });
    expect(take.status).toBe(HeartbeatStatus.Restarted);
    await a!.frontier.reclaimPod('pod-c');

    // pod-c's next heartbeat finds the session another instance's: it stops, writing nothing.
    await vi.waitFor(() => expect(superseded).toHaveLength(1), SETTLE);
    expect(superseded[0]!.code).toBe('SHARDLINE_ERR_MEMBERSHIP_SUPERSEDED');
    expect(superseded[0]!.message).toMatch(
      /^pod id pod-c was taken over by another instance \(replacement-host\/42\) while this process was stalled \(no heartbeat for \d+ ms\): stopping without leaving; the other instance goes on with the id$/,
    );
    expect(c!.membership.superseded).toBe(superseded[0]);
    expect(c!.membership.ready).toBe(false);
    await c!.membership.stop(); // graceful, yet no leave: the id is the replacement's
    await sleep(1000); // four of pod-c's heartbeat periods
    expect(await registry.holder('pod-c')).toMatchObject({
      instance: 'replacement',
      info: 'replacement-host/42',
      expiryMs: take.nowMs + 60_000,
    });
    expect(Number(await a!.redis.get(keys.epoch()))).toBe(epochBefore);
    expect(a!.membership.ring!.ids()).toEqual(ids);
    expect(c!.errors).toEqual([]);
    // Its leases went back to the queue once, and its late completions are refused.
    const settled = await c!.frontier.completeMany(leases.map((lease) => ({ lease })));
    expect(settled.every((error) => error !== null)).toBe(true);
    for (const lease of leases) {
      const stats = await a!.frontier.inspector.domainStats(lease.domain);
      expect([stats.queued, stats.inFlight]).toEqual([1, 0]);
    }
  });

  it('a pod that gets no epoch messages converges from the stored epoch', async () => {
    const fl = fleet();
    const [a] = await fl.start('pod-a');
    const deaf = fl.pod('pod-deaf', { subscribe: false });
    await deaf.membership.start();
    await fl.start('pod-c', 'pod-d');
    const stored = Number(await a!.redis.get(a!.membership.keys.epoch()));
    await vi.waitFor(
      async () =>
        expect((await deaf.membership.epoch) === stored, 'the deaf pod catches up').toBe(true),
      { ...SETTLE, timeout: 5000 },
    );
    expect(deaf.membership.ring!.fingerprint).toBe(a!.membership.ring!.fingerprint);
    expect(deaf.membership.ring!.ids()).toEqual(['pod-a', 'pod-c', 'pod-d', 'pod-deaf']);
  });

  it('session expiry uses Redis TIME only: a pod clock a day ahead changes nothing', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 86_400_000);
    try {
      const fl = fleet();
      const [a, b] = await fl.start('pod-a', 'pod-b');
      const [sec, usec] = (await a!.redis.time()) as unknown as [string, string];
      const redisNow = Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
      const scores = (await a!.redis.zrange(
        a!.membership.keys.members(),
        0,
        -1,
        'WITHSCORES',
      )) as string[];
      for (let i = 1; i < scores.length; i += 2) {
        const expiry = Number(scores[i]);
        expect(expiry).toBeGreaterThan(redisNow);
        expect(expiry).toBeLessThanOrEqual(redisNow + 1500);
      }
      await sleep(2500);
      expect(a!.membership.ring!.ids()).toEqual(['pod-a', 'pod-b']);
      await b!.membership.stop({ graceful: false });
      await vi.waitFor(
        async () =>
          expect((await a!.membership.ring!.ids().length) === 1, 'pod-b expired').toBe(true),
        { ...SETTLE, timeout: 10_000 },
      );
    } finally {
      vi.useRealTimers();
    }
  });
}
