/**
 * Ring changes in the membership integration suite (see membership-suite.ts): joins and a
 * graceful leave move only the domains whose owner changed and leave no copies behind, a
 * new weight moves keys only to or from its pod, and a MembershipReader sees the result.
 */
import { diffRings, syntheticDomains } from '@shardline/ring';
import { expect, it, vi } from 'vitest';
import { MembershipReader } from '../src/index.js';
import { dueLocations, hostAt, placedExactly, SETTLE, waitPlaced } from './harness.js';
import { type MembershipSuite, urls } from './membership-suite-context.js';

export function registerRingChangeTests({ fleet }: MembershipSuite): void {
  it('a joining pod takes about 1/N of the domains, and only those whose owner changed', async () => {
    const fl = fleet();
    const [a] = await fl.start('pod-a', 'pod-b', 'pod-c');
    const ids = ['pod-a', 'pod-b', 'pod-c', 'pod-d'];
    const domains = syntheticDomains(400, 11);
    await a!.frontier.enqueue(urls(domains));
    const ringBefore = a!.membership.ring!;
    await waitPlaced(
      a!.frontier.inspector,
      ids,
      domains,
      (d) => ringBefore.owner(d),
      '3-pod placement',
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
    await waitPlaced(
      a!.frontier.inspector,
      ids,
      domains,
      (d) => ringAfter.owner(d),
      '4-pod placement',
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
    await waitPlaced(a!.frontier.inspector, ids, domains, a!.membership.ownerOf, 'placement');
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
    await waitPlaced(a!.frontier.inspector, ids, domains, (x) => ring.owner(x), '3-pod placement');
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
    expect(await new MembershipReader(fl.connect(), `${fl.prefix}x`).ringParams()).toBeUndefined();
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
}
