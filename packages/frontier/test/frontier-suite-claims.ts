/**
 * Claims, leases and politeness in the frontier's integration suite (see frontier-suite.ts):
 * priority order, concurrent claimers keeping each host's concurrency and delay, claimers
 * that vanish, heartbeats, leases without a timeout, pause, crawl and adaptive delays.
 */

import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { type Lease, LeaseLostError } from '../src/index.js';
import { type FrontierSuite, sleep, twoPods } from './frontier-suite-context.js';

export function registerClaimTests({
  connect,
  make,
  keysOf,
  claimLoop,
  claimNext,
}: FrontierSuite): void {
  it('claims by priority, FIFO among equal priorities', async () => {
    const f = make();
    await f.enqueue([
      { url: 'https://p.example/low1', priority: -1 },
      { url: 'https://p.example/mid1' },
      { url: 'https://p.example/high1', priority: 7 },
      { url: 'https://p.example/mid2' },
      { url: 'https://p.example/high2', priority: 7 },
      { url: 'https://p.example/mid3' },
    ]);
    const order: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { leases } = await f.claim({ pod: 'pod-a' });
      expect(leases).toHaveLength(1);
      order.push(new URL(leases[0]!.url).pathname);
      await f.complete(leases[0]!);
    }
    expect(order).toEqual(['/high1', '/high2', '/mid1', '/mid2', '/mid3', '/low1']);
    expect((await f.claim({ pod: 'pod-a' })).leases).toEqual([]);
  });

  it('8 concurrent claimers on 50 domains × 200 URLs: each URL once, concurrency and delay kept', async () => {
    const prefix = `t${randomUUID().slice(0, 8)}`;
    const options = { defaultDelayMs: 8, leaseTimeoutMs: 30_000, ownerOf: twoPods, pinMs: 200 };
    const seeder = make(options, prefix);
    const domains = Array.from({ length: 50 }, (_, d) => `site${d}.test`);
    // Half the hosts allow two requests at once (still 8 ms between starts).
    for (const d of domains.slice(25))
      await seeder.setHostPolicy(d, { concurrency: 2, delayMs: 4 });
    const urls: string[] = [];
    for (let i = 0; i < 200; i++) for (const d of domains) urls.push(`http://${d}/page/${i}`);
    for (let i = 0; i < urls.length; i += 2000) {
      const r = await seeder.enqueue(urls.slice(i, i + 2000));
      expect(r.queued).toBe(Math.min(2000, urls.length - i));
    }
    const log: { url: string; host: string; at: number; pod: string }[] = [];
    const inFlight = new Map<string, number>();
    const maxInFlight = new Map<string, number>();
    const claimers = Array.from({ length: 8 }, (_, k) => ({
      f: make(options, prefix),
      pod: k % 2 === 0 ? 'pod-a' : 'pod-b',
    }));
    const done = () => log.length >= urls.length;
    await Promise.all(
      claimers.map(({ f, pod }) =>
        claimLoop(
          f,
          pod,
          async (lease) => {
            log.push({ url: lease.url, host: lease.host, at: lease.claimedAtMs, pod });
            const n = (inFlight.get(lease.host) ?? 0) + 1;
            inFlight.set(lease.host, n);
            maxInFlight.set(lease.host, Math.max(n, maxInFlight.get(lease.host) ?? 0));
            await sleep(Math.random() * 3);
            inFlight.set(lease.host, inFlight.get(lease.host)! - 1);
            await f.complete(lease, { bytes: 100, durationMs: 1 });
          },
          done,
        ),
      ),
    );
    // Exactly once each.
    expect(log).toHaveLength(urls.length);
    expect(new Set(log.map((l) => l.url)).size).toBe(urls.length);
    expect(new Set(log.map((l) => l.url))).toEqual(new Set(urls));
    // Every claim came from the pod owning the domain.
    for (const l of log) expect(l.pod).toBe(twoPods(l.host));
    // Per host: in flight never above its concurrency; starts at least the delay apart.
    for (const [i, d] of domains.entries()) {
      expect(maxInFlight.get(d)).toBeLessThanOrEqual(i < 25 ? 1 : 2);
      const times = log
        .filter((l) => l.host === d)
        .map((l) => l.at)
        .sort((a, b) => a - b);
      const delay = i < 25 ? 8 : 4;
      for (let k = 1; k < times.length; k++) {
        expect(times[k]! - times[k - 1]!).toBeGreaterThanOrEqual(delay);
      }
    }
    // Redis agrees: nothing queued or in flight, nothing left in the due indexes.
    const redis = connect();
    for (const d of domains) {
      expect(await seeder.inspector.domainStats(d)).toMatchObject({
        queued: 0,
        inFlight: 0,
        fetched: 200,
        repeats: 0,
      });
    }
    // Emptied hosts stay pinned in their due index for pinMs after their last change,
    // then one visit parks them: the indexes end empty.
    await sleep(250);
    for (const pod of ['pod-a', 'pod-b']) {
      expect((await claimers[0]!.f.claim({ pod, max: 100 })).leases).toEqual([]);
      expect(await redis.zcard(keysOf(seeder).due(pod))).toBe(0);
    }
  }, 120_000);

  it('a claimer that vanishes mid-lease: its URLs come back after the deadline, exactly once', async () => {
    const prefix = `t${randomUUID().slice(0, 8)}`;
    const options = { leaseTimeoutMs: 400 };
    const a = make(options, prefix);
    const b = make(options, prefix);
    const urls = Array.from({ length: 20 }, (_, i) => `https://v${i % 5}.example/${i}`);
    await a.enqueue(urls);
    const vanished = (await a.claim({ pod: 'pod-a', max: 5 })).leases;
    expect(vanished).toHaveLength(5);
    const got: Lease[] = [];
    await claimLoop(
      b,
      'pod-a',
      async (lease) => {
        got.push(lease);
        await b.complete(lease);
      },
      () => got.length >= 20,
    );
    expect(got.map((l) => l.url).sort()).toEqual([...urls].sort());
    const byUrl = new Map(vanished.map((l) => [l.url, l]));
    for (const l of got.filter((x) => byUrl.has(x.url))) {
      expect(l.claimedAtMs).toBeGreaterThanOrEqual(byUrl.get(l.url)!.deadlineMs);
      expect(l.attempt).toBe(2);
    }
    let repeats = 0;
    for (let d = 0; d < 5; d++) repeats += (await b.inspector.domainStats(`v${d}.example`)).repeats;
    expect(repeats).toBe(5);
    // The vanished pod's late completion is refused: its URL was already requeued.
    await expect(a.complete(vanished[0]!)).rejects.toBeInstanceOf(LeaseLostError);
    expect(await b.claim({ pod: 'pod-a', max: 10 })).toMatchObject({ leases: [] });
  });

  it('heartbeatMany extends a batch and reports lost and foreign leases per item', async () => {
    const f = make({ leaseTimeoutMs: 3000 });
    const redis = connect();
    const urls = ['https://hm1.example/1', 'https://hm2.example/1', 'https://hm3.example/1'];
    urls.push('https://hm4.example/1');
    await f.enqueue(urls);
    const { leases } = await f.claim({ pod: 'pod-a', max: 4 });
    expect(leases).toHaveLength(4);
    const byHost = new Map(leases.map((l) => [l.host, l]));
    const [a, b, c, d] = ['hm1', 'hm2', 'hm3', 'hm4'].map((h) => byHost.get(`${h}.example`)!);
    await f.complete(b!); // gone
    expect(await f.heartbeatMany([])).toEqual([]);
    // Heartbeats a second in: a and d then outlive c by that second, a margin no stall of a
    // loaded machine between the checks below eats.
    await sleep(1000);
    const out = await f.heartbeatMany([a!, b!, { id: c!.id, pod: 'pod-x' }, d!]);
    expect(out[1]).toBeInstanceOf(LeaseLostError);
    expect(out[2]).toMatchObject({ code: 'SHARDLINE_ERR_FRONTIER_LEASE_NOT_HELD' });
    for (const [k, lease] of [
      [0, a!],
      [3, d!],
    ] as const) {
      const deadline = out[k] as number;
      expect(deadline).toBeGreaterThanOrEqual(lease.deadlineMs + 1000);
      // What Redis holds: the deadline index moved too.
      const member = lease.id.slice(lease.domain.length + 1);
      expect(
        Number(await redis.zscore(keysOf(f).hostLeaseDeadlines(lease.domain, lease.host), member)),
      ).toBe(deadline);
    }
    // The foreign heartbeat changed nothing: c keeps its old deadline and expires (reaped
    // once Redis time is past it, not after a guessed sleep).
    for (;;) {
      const [sec, usec] = await redis.time();
      if (Number(sec) * 1000 + Number(usec) / 1000 > c!.deadlineMs) break;
      await sleep(50);
    }
    expect(await f.reap({ pod: 'pod-a' })).toBe(1);
    // a and d survived past their original deadline thanks to the batch.
    await expect(f.complete(a!)).resolves.toBeUndefined();
    await expect(f.complete(d!)).resolves.toBeUndefined();
    await expect(f.heartbeatMany([c!])).resolves.toEqual([expect.any(LeaseLostError)]);
  });

  it('heartbeats keep a lease alive past its timeout', async () => {
    const f = make({ leaseTimeoutMs: 300 });
    await f.enqueue(['https://hb.example/1']);
    const [lease] = (await f.claim({ pod: 'pod-a' })).leases;
    for (let i = 0; i < 5; i++) {
      await sleep(120);
      expect(await f.heartbeat(lease!)).toBeGreaterThan(lease!.deadlineMs);
    }
    expect((await f.claim({ pod: 'pod-a' })).leases).toEqual([]);
    await f.complete(lease!);
    await expect(f.heartbeat(lease!)).rejects.toMatchObject({
      code: 'SHARDLINE_ERR_FRONTIER_LEASE_LOST',
    });
    await expect(f.complete({ ...lease!, pod: 'pod-b' })).rejects.toMatchObject({
      code: 'SHARDLINE_ERR_FRONTIER_LEASE_LOST',
    });
  });

  it('lease timeout 0: a slow worker keeps its URLs; only reclaimPod gives them back, once', async () => {
    const prefix = `t${randomUUID().slice(0, 8)}`;
    const options = { leaseTimeoutMs: 0 };
    const a = make(options, prefix);
    const b = make(options, prefix);
    const urls = Array.from({ length: 12 }, (_, i) => `https://z${i % 4}.example/${i}`);
    await a.enqueue(urls);
    const held = (await a.claim({ pod: 'pod-a', max: 4 })).leases;
    expect(held).toHaveLength(4);
    expect(held.every((l) => l.deadlineMs === 0)).toBe(true);
    await sleep(300);
    // Every host has concurrency 1 and a lease out: nothing to claim, however long we wait.
    const early = await b.claim({ pod: 'pod-a', max: 10 });
    expect(early.leases).toEqual([]);
    expect(early.nextDueAtMs).toBe(Number.POSITIVE_INFINITY);
    expect(await b.reclaimPod('pod-a')).toEqual({ requeued: 4, deadLettered: 0 });
    expect(await b.reclaimPod('pod-a')).toEqual({ requeued: 0, deadLettered: 0 });
    const got: string[] = [];
    await claimLoop(
      b,
      'pod-a',
      async (lease) => {
        got.push(lease.url);
        await b.complete(lease);
      },
      () => got.length >= 12,
    );
    expect(got.sort()).toEqual([...urls].sort());
    await expect(a.complete(held[0]!)).rejects.toBeInstanceOf(LeaseLostError);
  });

  it('pause stops claims from a domain; resume brings them back', async () => {
    const f = make();
    await f.enqueue(['https://pz.example/1', 'https://other.example/1']);
    await f.pause('pz.example');
    const { leases } = await f.claim({ pod: 'pod-a', max: 5 });
    expect(leases.map((l) => l.host)).toEqual(['other.example']);
    expect((await f.inspector.domainStats('pz.example')).paused).toBe(true);
    await f.resume('pz.example');
    expect((await f.claim({ pod: 'pod-a', max: 5 })).leases.map((l) => l.host)).toEqual([
      'pz.example',
    ]);
  });

  it('a robots crawl-delay set by setHostPolicy spaces request starts', async () => {
    const f = make();
    await f.enqueue(['https://cd.example/1', 'https://cd.example/2', 'https://cd.example/3']);
    await f.setHostPolicy('cd.example', { crawlDelayMs: 150 });
    const times: number[] = [];
    await claimLoop(
      f,
      'pod-a',
      async (l) => {
        times.push(l.claimedAtMs);
        await f.complete(l);
      },
      () => times.length >= 3,
    );
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(150);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(150);
  });

  it('adaptive delay follows the response time', async () => {
    const f = make({ adaptiveDelayFactor: 2 });
    await f.enqueue(['https://ad.example/1', 'https://ad.example/2']);
    const [first] = (await f.claim({ pod: 'pod-a' })).leases;
    const [sec, usec] = await connect().time();
    const completedAt = Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
    await f.complete(first!, { durationMs: 100 });
    const second = await claimNext(f);
    expect(second.claimedAtMs - completedAt).toBeGreaterThanOrEqual(200);
  });
}
