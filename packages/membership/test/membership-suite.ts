/**
 * Integration suite of Membership with a real RedisFrontier, run on a single
 * redis-server (membership.test.ts) and on a three-master Cluster
 * (membership.cluster.test.ts). Assertions read what Redis holds.
 */
import type { Lease } from '@shardline/frontier';
import { diffRings, syntheticDomains } from '@shardline/ring';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MembershipKeys, MembershipReader } from '../src/index.js';
import { Registry } from '../src/registry.js';
import {
  type Client,
  dueLocations,
  Fleet,
  hostAt,
  placedExactly,
  SETTLE,
  sleep,
} from './harness.js';

export interface SuiteBackend {
  connect(): Client;
  stop(): Promise<void>;
}

const urls = (domains: string[]) => domains.map((d) => `https://${d}/`);

export function describeMembership(name: string, start: () => Promise<SuiteBackend>): void {
  describe(`Membership on ${name}`, () => {
    let backend: SuiteBackend;
    const fleets: Fleet[] = [];
    const fleet = (
      ...args: ConstructorParameters<typeof Fleet> extends [unknown, ...infer R] ? R : never
    ) => {
      const f = new Fleet(() => backend.connect(), ...args);
      fleets.push(f);
      return f;
    };

    beforeAll(async () => {
      backend = await start();
    });
    afterAll(async () => {
      for (const f of fleets) await f.close();
      await backend?.stop();
    });

    it('a joining pod takes about 1/N of the domains, and only those whose owner changed', async () => {
      const fl = fleet();
      const [a] = await fl.start('pod-a', 'pod-b', 'pod-c');
      const ids = ['pod-a', 'pod-b', 'pod-c', 'pod-d'];
      const domains = syntheticDomains(400, 11);
      await a!.frontier.enqueue(urls(domains));
      const ringBefore = a!.membership.ring!;
      await vi.waitFor(
        async () =>
          expect(
            await placedExactly(a!.frontier.inspector, ids, domains, (d) => ringBefore.owner(d)),
            '3-pod placement',
          ).toBe(true),
        SETTLE,
      );
      const before = await dueLocations(a!.frontier.inspector, ids);
      const epochBefore = a!.membership.epoch;

      await fl.start('pod-d');
      await vi.waitFor(
        async () => expect(await fl.converged(), 'every pod on the new epoch').toBe(true),
        SETTLE,
      );
      const ringAfter = a!.membership.ring!;
      expect(ringAfter.size).toBe(4);
      expect(ringAfter.epoch).toBe(epochBefore + 1);
      await vi.waitFor(
        async () =>
          expect(
            await placedExactly(a!.frontier.inspector, ids, domains, (d) => ringAfter.owner(d)),
            '4-pod placement',
          ).toBe(true),
        SETTLE,
      );
      const after = await dueLocations(a!.frontier.inspector, ids);

      const diff = diffRings(ringBefore, ringAfter);
      const member = (d: string) => hostAt(d, d);
      const moved = domains.filter(
        (d) => before.get(member(d))![0]!.pod !== after.get(member(d))![0]!.pod,
      );
      expect(moved).toEqual(domains.filter((d) => diff.moved(d)));
      expect(moved.every((d) => after.get(member(d))![0]!.pod === 'pod-d')).toBe(true);
      expect(moved.length / domains.length).toBeGreaterThan(0.12);
      expect(moved.length / domains.length).toBeLessThan(0.4);
      // Entries that stayed were not touched at all: same seq and pin as before.
      for (const d of domains.filter((x) => !diff.moved(x))) {
        expect(after.get(member(d))).toEqual(before.get(member(d)));
      }
    });

    it('a join leaves the old owners no copy of the hosts that moved, however recently pinned', async () => {
      // Pins as in production: every host below was pinned by its enqueue just now.
      const fl = fleet({}, { pinMs: 30_000 });
      const [a, b] = await fl.start('pod-a', 'pod-b');
      const ids = ['pod-a', 'pod-b', 'pod-c', 'pod-d'];
      const domains = syntheticDomains(300, 21);
      await a!.frontier.enqueue(urls(domains));
      const handoffs: { pod: string; epoch: number; moved: number; scanned: number }[] = [];
      for (const p of [a!, b!]) p.membership.on('handoff', (h) => handoffs.push(h));
      const handedOff = (epoch: number, pods: string[]) =>
        vi.waitFor(
          () =>
            expect(
              pods.every((pod) => handoffs.some((h) => h.pod === pod && h.epoch === epoch)),
              `the old owners' handoffs of epoch ${epoch}`,
            ).toBe(true),
          SETTLE,
        );
      // Two joins in a row, as a scale-up brings them.
      const [c] = await fl.start('pod-c');
      c!.membership.on('handoff', (h) => handoffs.push(h));
      const ringC = a!.membership.ring!;
      await handedOff(ringC.epoch, ['pod-a', 'pod-b']);
      await fl.start('pod-d');
      await vi.waitFor(
        async () => expect(await fl.converged(), 'every pod on the new epoch').toBe(true),
        SETTLE,
      );
      const ringD = a!.membership.ring!;
      expect(ringD.size).toBe(4);
      // pod-c hands off too: pod-d takes ranges from every pod of ring C.
      await handedOff(ringD.epoch, ['pod-a', 'pod-b', 'pod-c']);
      expect(await placedExactly(a!.frontier.inspector, ids, domains, (d) => ringD.owner(d))).toBe(
        true,
      );
      for (const pod of ['pod-a', 'pod-b']) {
        // The second handoff found only what the pod still owned after the first join,
        // and moved only what the second join took from it.
        const second = handoffs.find((h) => h.pod === pod && h.epoch === ringD.epoch)!;
        const ownedAfterC = domains.filter((d) => ringC.owner(d) === pod);
        expect(second.scanned).toBe(ownedAfterC.length);
        expect(second.moved).toBe(ownedAfterC.filter((d) => ringD.owner(d) === 'pod-d').length);
      }
    });

    it('a graceful stop releases leases, leaves at once and hands off its whole due index', async () => {
      const fl = fleet();
      const [a, , , d] = await fl.start('pod-a', 'pod-b', 'pod-c', 'pod-d');
      const ids = ['pod-a', 'pod-b', 'pod-c', 'pod-d'];
      const domains = syntheticDomains(200, 12);
      await a!.frontier.enqueue(urls(domains));
      await vi.waitFor(
        async () =>
          expect(
            await placedExactly(a!.frontier.inspector, ids, domains, a!.membership.ownerOf),
            'placement',
          ).toBe(true),
        SETTLE,
      );
      const { leases } = await d!.frontier.claim({ pod: 'pod-d', max: 4 });
      expect(leases.length).toBe(4);
      const epochBefore = a!.membership.epoch;
      const order: string[] = [];
      d!.membership.on('handoff', () => order.push('handoff'));

      await d!.membership.stop({
        graceful: true,
        releaseLeases: async () => {
          order.push(`release:${d!.membership.ready}`);
          for (const lease of leases) await d!.frontier.release(lease);
        },
      });
      expect(order).toEqual(['release:false', 'handoff']);
      expect(await a!.frontier.inspector.dueHostCount('pod-d')).toBe(0);
      expect(await a!.redis.zscore(d!.membership.keys.members(), 'pod-d')).toBeNull();
      await vi.waitFor(
        async () => expect(await fl.converged(), 'survivors on the new epoch').toBe(true),
        SETTLE,
      );
      expect(a!.membership.epoch).toBe(epochBefore + 1);
      const ring = a!.membership.ring!;
      expect(ring.has('pod-d')).toBe(false);
      await vi.waitFor(
        async () =>
          expect(
            await placedExactly(a!.frontier.inspector, ids, domains, (x) => ring.owner(x)),
            '3-pod placement',
          ).toBe(true),
        SETTLE,
      );
      for (const lease of leases) {
        const stats = await a!.frontier.inspector.domainStats(lease.domain);
        expect([stats.queued, stats.inFlight]).toEqual([1, 0]);
      }
      // One survivor checks the leaver's index once more; nobody requeues its leases.
      await vi.waitFor(
        () =>
          expect(
            fl.pods.some((p) => p.reclaims.length > 0),
            'leaver reclaimed',
          ).toBe(true),
        SETTLE,
      );
      const reclaims = fl.pods.flatMap((p) => p.reclaims);
      expect(reclaims).toHaveLength(1);
      expect(reclaims[0]).toMatchObject({ pod: 'pod-d', kind: 'left-released', requeued: 0 });
    });

    it('a crashed pod is reclaimed by exactly one survivor after its session expired', async () => {
      const fl = fleet();
      const [a, , , , e] = await fl.start('pod-a', 'pod-b', 'pod-c', 'pod-d', 'pod-e');
      const ids = ['pod-a', 'pod-b', 'pod-c', 'pod-d', 'pod-e'];
      const domains = syntheticDomains(200, 13);
      await a!.frontier.enqueue(urls(domains));
      await vi.waitFor(
        async () =>
          expect(
            await placedExactly(a!.frontier.inspector, ids, domains, a!.membership.ownerOf),
            'placement',
          ).toBe(true),
        SETTLE,
      );
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
      await vi.waitFor(
        async () =>
          expect(
            await placedExactly(a!.frontier.inspector, ids, domains, (x) => ring.owner(x)),
            '4-pod placement',
          ).toBe(true),
        SETTLE,
      );
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
      await vi.waitFor(
        async () =>
          expect(
            await placedExactly(a!.frontier.inspector, ids, domains, a!.membership.ownerOf),
            'placement',
          ).toBe(true),
        SETTLE,
      );
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

    it('MembershipReader reports the members, epoch and ring config without joining', async () => {
      const fl = fleet();
      const a = fl.pod('pod-a', { info: 'host-a/1' });
      const b = fl.pod('pod-b', { settings: { minDelayMs: 300, adaptiveDelay: true } });
      await Promise.all([a.membership.start(), b.membership.start()]);
      const reader = new MembershipReader(fl.connect(), fl.prefix);
      // The first to join learns the second's epoch by pub/sub, which may land after start().
      await vi.waitFor(() => expect(a.membership.epoch).toBe(b.membership.epoch), {
        timeout: 10_000,
      });
      expect(await reader.epoch()).toBe(a.membership.epoch);
      expect(await reader.ringParams()).toEqual({ vnodes: 256, seed: 0 });
      const members = await reader.members();
      expect(members.map((m) => [m.id, m.weight, m.alive])).toEqual([
        ['pod-a', 1, true],
        ['pod-b', 1, true],
      ]);
      // Each member's diagnostics and the settings it published (none for pod-a).
      expect(await reader.memberInfo()).toEqual([
        { id: 'pod-a', alive: true, info: 'host-a/1', settings: {} },
        {
          id: 'pod-b',
          alive: true,
          info: expect.stringMatching(/\/\d+$/),
          settings: { minDelayMs: 300, adaptiveDelay: true },
        },
      ]);
      await b.membership.stop({ graceful: true });
      expect((await reader.members()).map((m) => m.id)).toEqual(['pod-a']);
      expect(
        await new MembershipReader(fl.connect(), `${fl.prefix}x`).ringParams(),
      ).toBeUndefined();
    });

    it('a restart with a new weight bumps the epoch and moves keys only to or from that pod', async () => {
      const fl = fleet();
      const [a, , c] = await fl.start('pod-a', 'pod-b', 'pod-c');
      const before = a!.membership.ring!;
      await c!.membership.stop({ graceful: false });
      const c2 = fl.pod('pod-c', { weight: 2 });
      await c2.membership.start();
      await vi.waitFor(
        async () => expect(await fl.converged(), 'every pod on the new epoch').toBe(true),
        SETTLE,
      );
      const after = a!.membership.ring!;
      expect(after.epoch).toBe(before.epoch + 1);
      expect(after.weight('pod-c')).toBe(2);
      const moves = diffRings(before, after).ranges;
      expect(moves.length).toBeGreaterThan(0);
      expect(moves.every((r) => r.to === 'pod-c' && r.from !== 'pod-c')).toBe(true);
    });

    it('the automatic sweep repairs a domain stranded in a departed pod index', async () => {
      const fl = fleet();
      const [a] = await fl.start('pod-a', 'pod-b');
      const swept = fl.pod('pod-s', { sweepIntervalMs: 300, sweepBatch: 50 });
      await swept.membership.start();
      await vi.waitFor(
        async () => expect(await fl.converged(), 'every pod on the new epoch').toBe(true),
        SETTLE,
      );
      const { RedisFrontier } = await import('@shardline/frontier');
      const stale = new RedisFrontier({
        redis: fl.connect(),
        prefix: fl.prefix,
        ownerOf: () => 'pod-gone',
        defaultDelayMs: 0,
        pinMs: 0,
      });
      const domains = syntheticDomains(120, 16);
      await stale.enqueue(urls(domains));
      const ids = ['pod-a', 'pod-b', 'pod-s', 'pod-gone'];
      await vi.waitFor(
        async () =>
          expect(
            await placedExactly(a!.frontier.inspector, ids, domains, a!.membership.ownerOf),
            'the sweeps placed every domain',
          ).toBe(true),
        SETTLE,
      );
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

    it('stale-ring enqueues: a live non-owner forwards, the sweep repairs the rest (one pod per interval)', async () => {
      const fl = fleet();
      const [a, b] = await fl.start('pod-a', 'pod-b');
      const owner = a!.membership.ownerOf;
      const domains = syntheticDomains(60, 15);
      const good = domains.slice(0, 30);
      await a!.frontier.enqueue(urls(good));
      // An enqueuer whose ring still names a pod that has gone.
      const { RedisFrontier } = await import('@shardline/frontier');
      const gone = new RedisFrontier({
        redis: fl.connect(),
        prefix: fl.prefix,
        ownerOf: () => 'pod-gone',
        defaultDelayMs: 0,
        pinMs: 0,
      });
      const strandedDomains = domains.slice(30, 50);
      await gone.enqueue(urls(strandedDomains));
      // An enqueuer that places domains at the wrong live pod.
      const wrong = domains.slice(50).filter((d) => owner(d) === 'pod-a');
      const misplaced = new RedisFrontier({
        redis: fl.connect(),
        prefix: fl.prefix,
        ownerOf: () => 'pod-b',
        defaultDelayMs: 0,
        pinMs: 0,
      });
      await misplaced.enqueue(urls(wrong));
      expect(wrong.length).toBeGreaterThan(0);
      const claimed = await b!.frontier.claim({ pod: 'pod-b', max: 100 });
      expect(claimed.leases.some((l) => wrong.includes(l.domain))).toBe(false);
      await b!.frontier.forwarded();
      expect(await placedExactly(a!.frontier.inspector, ['pod-a', 'pod-b'], wrong, owner)).toBe(
        true,
      );
      for (const l of claimed.leases) await b!.frontier.complete(l);

      const reports = await Promise.all([a!.membership.sweep(), b!.membership.sweep()]);
      const ran = reports.filter((r) => r !== null);
      expect(ran).toHaveLength(1);
      // The departed-pod tidy on a heartbeat may have moved some of them first, early enough
      // for pod-b's claim above to take (and complete) those it owns: they were placed at
      // their owner, and with pinMs 0 their finished hosts left its index.
      expect(strandedDomains).toEqual(expect.arrayContaining(ran[0]!.stranded));
      const claimedThere = new Set(claimed.leases.map((l) => l.domain));
      for (const d of strandedDomains.filter((x) => claimedThere.has(x))) {
        expect(owner(d)).toBe('pod-b');
      }
      expect(
        await placedExactly(
          a!.frontier.inspector,
          ['pod-a', 'pod-b', 'pod-gone'],
          strandedDomains.filter((d) => !claimedThere.has(d)),
          owner,
        ),
      ).toBe(true);
      expect(await Promise.all([a!.membership.sweep(), b!.membership.sweep()])).toEqual([
        null,
        null,
      ]);
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
  });
}

export type { Lease };
