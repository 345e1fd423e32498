/**
 * The per-pod due index and domain ownership in the frontier's integration suite (see
 * frontier-suite.ts): races and crashes between a script and its index update, closed gates,
 * moving domains between pods (reindex, handOff, forwarding), pod registration and wake-ups.
 */

import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { expect, it, vi } from 'vitest';
import { parseLeaseId } from '../src/index.js';
import { type FrontierSuite, sleep } from './frontier-suite-context.js';

export function registerDueIndexTests({
  connect,
  make,
  keysOf,
  claimLoop,
  claimNext,
}: FrontierSuite): void {
  it('due index survives racing enqueue-into-empty and claim-to-empty (seq scheme)', async () => {
    const prefix = `t${randomUUID().slice(0, 8)}`;
    const writer = make({}, prefix);
    const writer2 = make({}, prefix);
    const reader = make({}, prefix);
    const reader2 = make({}, prefix);
    const redis = connect();
    const hosts = Array.from({ length: 20 }, (_, i) => `race${i}.example`);
    let enqueued = 0;
    let claimed = 0;
    for (let round = 0; round < 25; round++) {
      await Promise.all([
        writer.enqueue(hosts.map((h) => `https://${h}/${round}`)).then((r) => {
          enqueued += r.queued;
        }),
        writer2.enqueue(hosts.map((h) => `https://${h}/${round}/b`)).then((r) => {
          enqueued += r.queued;
        }),
        ...[reader, reader2].map(async (r) => {
          for (let k = 0; k < 2; k++) {
            const { leases } = await r.claim({ pod: 'pod-a', max: 20 });
            claimed += leases.length;
            await Promise.all(leases.map((l) => r.complete(l)));
          }
        }),
      ]);
      // Invariant after every round: a host with queued URLs is in its owner's due index.
      for (const h of hosts) {
        const q = Number((await redis.hget(keysOf(writer).hostState(h, h), 'q')) ?? 0);
        if (q > 0)
          expect(await redis.zscore(keysOf(writer).due('pod-a'), `${h}/${h}`)).not.toBeNull();
      }
    }
    await claimLoop(
      reader,
      'pod-a',
      async (l) => {
        claimed++;
        await reader.complete(l);
      },
      () => claimed >= enqueued,
      20,
    );
    expect(claimed).toBe(enqueued);
    expect(enqueued).toBe(25 * 20 * 2);
  });

  it('a pinned host survives a stale park when its enqueuer dies before the index update', async () => {
    // The frontier defines its scripts on this connection; the test calls them directly.
    const redis = connect() as Redis;
    const f = make({ pinMs: 300 }, undefined, redis);
    const d = 'crash.example';
    const due = keysOf(f).due('pod-a');
    const meta = keysOf(f).dueMeta('pod-a');
    const backlog = keysOf(f).backlog('pod-a');
    // A claimer decided "park" (host empty) at seq s but has not applied it yet...
    const [seq] = (await redis.slv3Schedule(keysOf(f).domain(d), keysOf(f).root(d), d, 1)) as [
      number,
      string,
    ];
    // ...meanwhile an enqueuer pins the host, runs its domain script, and dies.
    await redis.slv3IndexUpdate(due, meta, backlog, '', 300, `${d}/${d}`, -1, '');
    await redis.slv3Enqueue(
      keysOf(f).domain(d),
      keysOf(f).hosts(d),
      keysOf(f).root(d),
      0,
      1,
      0,
      0,
      '',
      200,
      63,
      0,
      d,
      '12345',
      0,
      `0,0,0,https://${d}/lost`,
    );
    // The stale park lands: the pin keeps the member, moved to the pin's end.
    await redis.slv3IndexUpdate(due, meta, backlog, '', 300, `${d}/${d}`, seq, 'park');
    expect(await redis.zscore(due, `${d}/${d}`)).not.toBeNull();
    const lease = await claimNext(f, 5000, 50);
    expect(lease.url).toBe(`https://${d}/lost`);
  });

  it('a lease operation pins a busy host at the pin end, so no claim visits it before the operation ran', async () => {
    const redis = connect() as Redis;
    const f = make({ pinMs: 400, leaseTimeoutMs: 0 }, undefined, redis);
    const d = 'busy.example';
    const due = keysOf(f).due('pod-a');
    const meta = keysOf(f).dueMeta('pod-a');
    const backlog = keysOf(f).backlog('pod-a');
    await f.enqueue([`https://${d}/1`, `https://${d}/2`]);
    const [lease] = (await f.claim({ pod: 'pod-a' })).leases;
    // Lease out, no deadline: the host sits at +inf until the lease ends.
    expect(await redis.zscore(due, `${d}/${d}`)).toBe('inf');
    // A completer pins the host (seq 0: lease operation) and has not run complete-2 yet...
    const [sec, usec] = await redis.time();
    const pinnedAt = Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
    await redis.slv3IndexUpdate(due, meta, backlog, '', 400, `${d}/${d}`, 0, '');
    expect(Number(await redis.zscore(due, `${d}/${d}`))).toBeGreaterThanOrEqual(pinnedAt + 400);
    // ...so a claim now does not visit the busy host (its seq, bumped by every visit, stays).
    const state = keysOf(f).hostState(d, d);
    const seq = await redis.hget(state, 'seq');
    expect((await f.claim({ pod: 'pod-a' })).leases).toEqual([]);
    expect(await redis.hget(state, 'seq')).toBe(seq);
    // A completer that dies there leaves the host due at the pin's end: it is claimed then.
    await redis.slv3Complete(
      keysOf(f).domain(d),
      keysOf(f).root(d),
      d,
      parseLeaseId(lease!.id).field,
      'pod-a',
      0,
      0,
      0,
      0,
      1000,
      0,
      1,
      0,
      '0',
      0,
      0,
      '',
      '',
      0,
      '',
    );
    const next = await claimNext(f, 5000, 50);
    expect(next.url).toBe(`https://${d}/2`);
    expect(next.claimedAtMs).toBeGreaterThanOrEqual(pinnedAt + 400);
  });

  it('a host whose gate is closed waits in the due index at next_allowed_at, not polled', async () => {
    const f = make({ defaultDelayMs: 500 });
    await f.enqueue(['https://gate.example/1', 'https://gate.example/2']);
    const first = await f.claim({ pod: 'pod-a' });
    const lease = first.leases[0]!;
    await f.complete(lease);
    const redis = connect();
    const next = Number(await redis.hget(keysOf(f).hostState('gate.example', 'gate.example'), 'n'));
    expect(next).toBeGreaterThanOrEqual(lease.claimedAtMs + 500);
    // The complete's own index update scored the host at next_allowed_at.
    const visit = await f.claim({ pod: 'pod-a' });
    expect(visit.leases).toEqual([]);
    expect(visit.nextDueAtMs).toBe(next);
    expect(await f.inspector.dueHosts('pod-a')).toEqual([
      { domain: 'gate.example', host: 'gate.example', dueAtMs: next },
    ]);
    // Further claims before then do not visit the host at all: its script never runs,
    // so its seq (bumped by every visit) stays put.
    const stateKey = keysOf(f).hostState('gate.example', 'gate.example');
    const seqBefore = await redis.hget(stateKey, 'seq');
    for (let i = 0; i < 5; i++) {
      expect(await f.claim({ pod: 'pod-a' })).toMatchObject({
        leases: [],
        nextDueAtMs: next,
        reaped: 0,
      });
    }
    expect(await redis.hget(stateKey, 'seq')).toBe(seqBefore);
  });

  it('reindex moves a domain to its new owner and out of the old due index', async () => {
    let owner = 'pod-a';
    const f = make({ ownerOf: () => owner, pinMs: 100 });
    const redis = connect();
    await f.enqueue(['https://mv.example/1']);
    expect(await f.inspector.queuedDomainsOf('pod-a')).toEqual(['mv.example']);
    owner = 'pod-b';
    // Past the enqueue's pin (a pinned entry outlives a move until its pin ends).
    await sleep(150);
    await f.reindex('mv.example');
    expect(await f.inspector.queuedDomainsOf('pod-a')).toEqual([]);
    expect(await f.inspector.queuedDomainsOf('pod-b')).toEqual(['mv.example']);
    expect(await redis.zcard(keysOf(f).due('pod-a'))).toBe(0);
    const { leases } = await f.claim({ pod: 'pod-b' });
    expect(leases[0]?.url).toBe('https://mv.example/1');
  });

  it('handOff moves the domains of a leaving pod to their new owners', async () => {
    let gone = false;
    const f = make({
      ownerOf: (d) => (gone ? 'pod-b' : d.startsWith('x') ? 'pod-a' : 'pod-b'),
      pinMs: 50,
    });
    await f.enqueue(['https://x1.example/1', 'https://x2.example/1', 'https://y1.example/1']);
    expect(await f.inspector.queuedDomainsOf('pod-a')).toEqual(['x1.example', 'x2.example']);
    gone = true;
    await sleep(80);
    expect(await f.handOff('pod-a')).toBe(2);
    expect(await f.inspector.queuedDomainsOf('pod-a')).toEqual([]);
    expect(await f.inspector.queuedDomainsOf('pod-b')).toEqual([
      'x1.example',
      'x2.example',
      'y1.example',
    ]);
  });

  it('claim from a pod that no longer owns a host hands it to the owner', async () => {
    let owner = 'pod-a';
    const f = make({ ownerOf: () => owner });
    await f.enqueue(['https://ho.example/1']);
    owner = 'pod-b';
    expect((await f.claim({ pod: 'pod-a' })).leases).toEqual([]);
    await f.forwarded();
    expect((await f.claim({ pod: 'pod-b' })).leases.map((l) => l.url)).toEqual([
      'https://ho.example/1',
    ]);
  });

  it('a claim hands back its own leases without waiting for foreign hosts, even when moving them fails', async () => {
    let moved = false;
    const reported: [string, Error][] = [];
    const f = make({
      ownerOf: (d) => (d === 'own.example' || !moved ? 'pod-a' : 'pod-b'),
      claimHoldMs: 100,
      // No pin: the forwarded host then leaves pod-a's index at once (see reindex).
      pinMs: 0,
      onBackgroundError: (error, operation) => reported.push([operation, error]),
    });
    const redis = connect();
    await f.enqueue(['https://own.example/1', 'https://away.example/1']);
    moved = true;
    // The move of away.example (a reindex) fails: the pods set it reads has the wrong type.
    const pods = (await redis.smembers(keysOf(f).pods())) as string[];
    expect(pods).toContain('pod-a');
    await redis.del(keysOf(f).pods());
    await redis.set(keysOf(f).pods(), 'not a set');
    const { leases } = await f.claim({ pod: 'pod-a', max: 2 });
    expect(leases.map((l) => l.url)).toEqual(['https://own.example/1']);
    await f.forwarded();
    // The failed move is counted and reported, not dropped.
    expect(f.backgroundErrors).toEqual({ 'register-pod': 0, forward: 1, 'load-functions': 0 });
    expect(reported.map(([operation]) => operation)).toEqual(['forward']);
    expect(reported[0]![1].message).toMatch(/WRONGTYPE/);
    // The failed move left the host held in pod-a's index; once the pods set is sound
    // again, the next claim after the hold moves it.
    expect((await f.inspector.dueHosts('pod-a')).map((h) => h.host)).toContain('away.example');
    await redis.del(keysOf(f).pods());
    await redis.sadd(keysOf(f).pods(), ...pods);
    await sleep(150);
    expect((await f.claim({ pod: 'pod-a' })).leases).toEqual([]);
    await f.forwarded();
    expect((await f.inspector.dueHosts('pod-a')).map((h) => h.host)).not.toContain('away.example');
    expect((await f.claim({ pod: 'pod-b' })).leases.map((l) => l.url)).toEqual([
      'https://away.example/1',
    ]);
    expect(f.backgroundErrors.forward).toBe(1);
  });

  it('counts and reports a pod registration Redis refuses, and registers the pod on a later call', async () => {
    const reported: [string, Error][] = [];
    const f = make({
      onBackgroundError: (error, operation) => reported.push([operation, error]),
    });
    const redis = connect();
    await redis.set(keysOf(f).pods(), 'not a set');
    // A pod's first call registers it in the background: here the SADD fails.
    expect(await f.reap({ pod: 'pod-z' })).toBe(0);
    await vi.waitFor(() => expect(f.backgroundErrors['register-pod']).toBe(1));
    expect(reported.map(([operation]) => operation)).toEqual(['register-pod']);
    expect(reported[0]![1].message).toMatch(/WRONGTYPE/);
    await redis.del(keysOf(f).pods());
    // The failed pod was forgotten, so its next call registers it again.
    await f.reap({ pod: 'pod-z' });
    await vi.waitFor(async () => expect(await f.inspector.pods()).toEqual(['pod-z']));
    expect(f.backgroundErrors).toEqual({ 'register-pod': 1, forward: 0, 'load-functions': 0 });
  });

  it('publishes the new earliest due time on the pod wake channel', async () => {
    const f = make();
    const sub = connect();
    const got: string[] = [];
    sub.on('message', (_channel: string, message: string) => got.push(message));
    await sub.subscribe(f.wakeChannel('pod-a'));
    const report = await f.enqueue(['https://wake.example/1']);
    expect(report.wokenPods).toEqual(['pod-a']);
    await vi.waitFor(() => expect(got.length).toBeGreaterThan(0), {
      timeout: 2000,
      interval: 10,
    });
    expect(Number(got[0])).toEqual(expect.any(Number));
  });
}
