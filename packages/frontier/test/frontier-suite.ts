/**
 * The frontier's integration suite, run once against a single redis-server and once
 * against a three-master Redis Cluster (see redis-frontier*.test.ts). Every test uses its
 * own key prefix and several connections; assertions read what Redis holds or what the
 * test itself logged, not the frontier's own counters (except where counters are the
 * subject).
 */

import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type FrontierOptions,
  type Lease,
  LeaseLostError,
  parseLeaseId,
  RedisFrontier,
} from '../src/index.js';
import { FrontierKeys } from '../src/keys.js';
import { LIVE_LAYOUT } from './frontier-fixture.js';
import { skewGlobalCounter } from './layout.js';

export type Client = Redis | Cluster;

export interface SuiteBackend {
  /** A new connection (the suite closes it). */
  connect(): Client;
  stop(): Promise<void>;
}

/**
 * Starts the backend before the enclosing describe's tests and stops it after them, closing
 * every connection handed out; call inside `describe`. Returns the connection factory.
 */
export function suiteConnections(start: () => Promise<SuiteBackend>): () => Client {
  let backend: SuiteBackend;
  const clients: Client[] = [];
  beforeAll(async () => {
    backend = await start();
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await backend?.stop();
  });
  return () => {
    const c = backend.connect();
    clients.push(c);
    return c;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Deterministic owner: pod-a or pod-b by a cheap hash of the domain. */
function twoPods(domain: string): string {
  let h = 0;
  for (const c of domain) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h % 2 === 0 ? 'pod-a' : 'pod-b';
}

export function describeFrontier(name: string, start: () => Promise<SuiteBackend>): void {
  describe(`RedisFrontier on ${name}`, () => {
    const connect = suiteConnections(start);
    // The key names of each frontier the suite made, to check what Redis holds.
    const keys = new WeakMap<RedisFrontier, FrontierKeys>();
    const keysOf = (f: RedisFrontier) => keys.get(f)!;
    /** A frontier on a fresh connection, with a fresh prefix unless one is given. */
    const make = (options: Partial<FrontierOptions> = {}, prefix?: string, redis?: Client) => {
      const p = prefix ?? `t${randomUUID().slice(0, 8)}`;
      const f = new RedisFrontier({
        redis: redis ?? connect(),
        ownerOf: () => 'pod-a',
        prefix: p,
        defaultDelayMs: 0,
        ...LIVE_LAYOUT,
        ...options,
      });
      keys.set(f, new FrontierKeys(options.prefix ?? p));
      return f;
    };

    /** Claims until `done()`, sleeping until the next due time when idle. */
    async function claimLoop(
      f: RedisFrontier,
      pod: string,
      onLease: (lease: Lease) => Promise<void>,
      done: () => boolean,
      max = 4,
      deadline = Date.now() + 100_000,
    ) {
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`claimer ${pod} timed out`);
        const { leases, nextDueAtMs, nowMs } = await f.claim({ pod, max });
        await Promise.all(leases.map(onLease));
        if (leases.length === 0) {
          const wait = nextDueAtMs === null ? 20 : Math.min(20, Math.max(1, nextDueAtMs - nowMs));
          await sleep(wait);
        }
      }
    }

    /** The next lease `pod` claims, claiming again until a host's gate lets one out. */
    const claimNext = (f: RedisFrontier, timeout = 5000, interval = 10) =>
      vi.waitFor(
        async () => {
          const [lease] = (await f.claim({ pod: 'pod-a' })).leases;
          expect(lease).toBeDefined();
          return lease!;
        },
        { timeout, interval },
      );

    it('enqueues 50,000 distinct hosts in one call (index updates are chunked, not one spread call)', async () => {
      const f = make();
      const urls = Array.from({ length: 50_000 }, (_, i) => `http://h${i}.wide.test/`);
      const report = await f.enqueue(urls);
      expect(report.queued).toBe(50_000);
      const redis = connect();
      const k = keysOf(f);
      expect(await redis.zcard(k.due('pod-a'))).toBe(50_000);
      // 30 s on a 2-core machine running six other test suites; ~2 s quiet.
    }, 180_000);

    it('enqueues with per-item results and dedups canonical variants within and across batches', async () => {
      const f = make();
      const first = await f.enqueue([
        'https://www.example.com/a?b=1',
        'HTTPS://WWW.EXAMPLE.COM:443/a?b=1#frag',
        'https://example.com/b',
        { url: 'c', base: 'https://example.com/x/' },
      ]);
      expect(first.results.map((r) => r.status)).toEqual([
        'queued',
        'duplicate',
        'queued',
        'queued',
      ]);
      expect(first.results[3]?.url).toBe('https://example.com/x/c');
      const second = await f.enqueue([
        'https://www.example.com/./a?b=1',
        'https://example.com/b',
        'https://example.com/new',
      ]);
      expect(second.results.map((r) => r.status)).toEqual(['duplicate', 'duplicate', 'queued']);
      const stats = await f.inspector.domainStats('example.com');
      expect(stats.seen).toBe(4);
      expect(stats.queued).toBe(4);
      expect(stats.duplicates).toBe(3);
      expect(stats.hosts).toEqual(['example.com', 'www.example.com']);
      // What the queues hold: 4 entries over the two hosts.
      const queues = await Promise.all([
        f.inspector.hostQueue('example.com', 'example.com'),
        f.inspector.hostQueue('example.com', 'www.example.com'),
      ]);
      expect(queues.flat().map((e) => e.url)).toEqual([
        'https://example.com/b',
        'https://example.com/x/c',
        'https://example.com/new',
        'https://www.example.com/a?b=1',
      ]);
    });

    it('rejects bad input per item and loses nothing else', async () => {
      const f = make({ maxDepth: 3 });
      const empty = await f.enqueue([]);
      expect(empty).toMatchObject({ results: [], queued: 0, rejected: 0 });
      const huge = `https://example.org/${'a'.repeat(10 * 1024)}`;
      const items = [
        'not a url',
        '',
        huge,
        'javascript:alert(1)',
        'https://ok.example.org/1',
        { url: 'https://ok.example.org/2', depth: 4 },
        { url: 'https://ok.example.org/3', priority: 1.5 },
        { url: 'https://ok.example.org/4', meta: 'x'.repeat(10_000) },
        42 as unknown as string,
        'ftp://example.org/file',
        'https://ok.example.org/5',
      ];
      const report = await f.enqueue(items);
      const codes = report.results.map((r) => (r.status === 'rejected' ? r.code : r.status));
      expect(codes).toEqual([
        'SHARDLINE_ERR_URL_INVALID',
        'SHARDLINE_ERR_URL_INVALID',
        'SHARDLINE_ERR_URL_TOO_LONG',
        'SHARDLINE_ERR_URL_SCHEME',
        'queued',
        'SHARDLINE_ERR_FRONTIER_DEPTH',
        'SHARDLINE_ERR_FRONTIER_PRIORITY',
        'SHARDLINE_ERR_FRONTIER_META',
        'SHARDLINE_ERR_FRONTIER_INPUT',
        'SHARDLINE_ERR_URL_SCHEME',
        'queued',
      ]);
      for (const r of report.results.filter((x) => x.status === 'rejected')) {
        expect(r.reason).toEqual(expect.any(String));
      }
      expect(report).toMatchObject({ queued: 2, rejected: 9 });
      expect((await f.inspector.domainStats('example.org')).queued).toBe(2);
    });

    it('takes a batch of 100,000 with one result per item', async () => {
      const f = make();
      const items: string[] = [];
      for (let i = 0; i < 100_000; i++) {
        items.push(i % 1000 === 999 ? 'mailto:x@y.z' : `https://d${i % 50}.example/p/${i}`);
      }
      items.push('https://d1.example/p/1'); // duplicate of an earlier item
      const report = await f.enqueue(items);
      expect(report.results).toHaveLength(100_001);
      expect(report).toMatchObject({ queued: 99_900, rejected: 100, duplicates: 1 });
      let total = 0;
      for (let d = 0; d < 50; d++) total += (await f.inspector.domainStats(`d${d}.example`)).queued;
      expect(total).toBe(99_900);
    }, 120_000);

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

    it('counts URLs over the per-domain cap and does not mark them seen', async () => {
      const f = make({ maxQueuedPerDomain: 3 });
      const report = await f.enqueue([1, 2, 3, 4, 5].map((i) => `https://cap.example/${i}`));
      expect(report.results.map((r) => r.status)).toEqual([
        'queued',
        'queued',
        'queued',
        'over-cap',
        'over-cap',
      ]);
      const { leases } = await f.claim({ pod: 'pod-a' });
      await f.complete(leases[0]!);
      const again = await f.enqueue(['https://cap.example/4', 'https://cap.example/5']);
      expect(again.results.map((r) => r.status)).toEqual(['queued', 'over-cap']);
      expect(await f.inspector.domainStats('cap.example')).toMatchObject({
        overCap: 3,
        seen: 4,
        queued: 3,
      });
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
      for (let d = 0; d < 5; d++)
        repeats += (await b.inspector.domainStats(`v${d}.example`)).repeats;
      expect(repeats).toBe(5);
      // The vanished pod's late completion is refused: its URL was already requeued.
      await expect(a.complete(vanished[0]!)).rejects.toBeInstanceOf(LeaseLostError);
      expect(await b.claim({ pod: 'pod-a', max: 10 })).toMatchObject({ leases: [] });
    });

    it('maxAcceptedPerDomain holds exactly under 6 concurrent enqueuers on separate connections', async () => {
      const prefix = `t${randomUUID().slice(0, 8)}`;
      const cap = 137;
      // Small chunks: each enqueuer makes many script calls, so calls of different
      // enqueuers interleave on the server.
      const enqueuers = Array.from({ length: 6 }, () =>
        make({ maxAcceptedPerDomain: cap, enqueueChunk: 7 }, prefix),
      );
      // 6 × 120 distinct URLs over 3 hosts of one domain, plus 20 URLs of another domain.
      const reports = await Promise.all(
        enqueuers.map((f, e) =>
          f.enqueue([
            ...Array.from({ length: 120 }, (_, i) => `https://h${i % 3}.acap.com/${e}/${i}`),
            ...Array.from({ length: 20 }, (_, i) => `https://other.com/${e}/${i}`),
          ]),
        ),
      );
      const results = reports.flatMap((r) => r.results);
      const acap = results.filter((r) => r.domain === 'acap.com');
      expect(acap.filter((r) => r.status === 'queued')).toHaveLength(cap);
      const over = acap.filter((r) => r.status === 'over-cap');
      expect(over).toHaveLength(720 - cap);
      expect(over.every((r) => r.code === 'SHARDLINE_ERR_FRONTIER_ACCEPT_CAP')).toBe(true);
      expect(results.filter((r) => r.domain === 'other.com' && r.status === 'queued')).toHaveLength(
        120,
      );
      // What the queues hold: exactly `cap` entries over the domain's hosts.
      const f = enqueuers[0]!;
      let listed = 0;
      for (const h of ['h0', 'h1', 'h2']) {
        listed += (await f.inspector.hostQueue('acap.com', `${h}.acap.com`, { limit: 1000 }))
          .length;
      }
      expect(listed).toBe(cap);
      expect(await f.inspector.domainStats('acap.com')).toMatchObject({
        enqueued: cap,
        queued: cap,
        seen: cap,
        overCap: 720 - cap,
      });
      // The cap counts accepted URLs, not queued ones: fetching some frees no room.
      const { leases } = await f.claim({ pod: 'pod-a', max: 3 });
      await f.completeMany(leases.map((lease) => ({ lease })));
      const later = await f.enqueue(['https://h0.acap.com/later']);
      expect(later.results[0]).toMatchObject({
        status: 'over-cap',
        code: 'SHARDLINE_ERR_FRONTIER_ACCEPT_CAP',
      });
    });

    it('fail with sent: false leaves the host next_allowed_at, backoff and failure count untouched', async () => {
      const f = make({ defaultDelayMs: 400, backoffBaseMs: 5000, maxRetries: 5 });
      const redis = connect();
      await f.enqueue(['https://unsent.example/1', 'https://unsent.example/2']);
      const [lease] = (await f.claim({ pod: 'pod-a' })).leases;
      const state = keysOf(f).hostState('unsent.example', 'unsent.example');
      const before = await redis.hmget(state, 'n', 'bo', 'fc');
      expect(Number(before[0])).toBeGreaterThan(0);
      await sleep(30);
      expect(
        await f.fail(lease!, { retryable: true, reason: 'SHARDLINE_ERR_FETCH_DNS', sent: false }),
      ).toEqual({ outcome: 'retry', attempt: 1 });
      expect(await redis.hmget(state, 'n', 'bo', 'fc')).toEqual(before);
      // The next claim comes at the claim's own slot (400 ms), not after a 2.5-5 s backoff.
      const next = await claimNext(f, 3000, 20);
      expect(next!.claimedAtMs).toBeLessThan(Number(before[0]) + 1000);
      // A non-retryable unsent refusal (robots) dead-letters and leaves the slot alone too.
      const nAfterClaim = await redis.hget(state, 'n');
      expect(
        await f.fail(next!, { retryable: false, reason: 'robots', sent: false }),
      ).toMatchObject({ outcome: 'dead' });
      expect(await redis.hget(state, 'n')).toBe(nAfterClaim);
      // Contrast: a sent failure pushes next_allowed_at and starts the backoff.
      const [third] = (
        await (async () => {
          for (;;) {
            const r = await f.claim({ pod: 'pod-a' });
            if (r.leases.length > 0) return r;
            await sleep(20);
          }
        })()
      ).leases;
      const n0 = Number(await redis.hget(state, 'n'));
      await f.fail(third!, { retryable: true, reason: 'timeout' });
      const after = await redis.hmget(state, 'n', 'bo', 'fc');
      expect(Number(after[0])).toBeGreaterThanOrEqual(n0 + 2000);
      expect(Number(after[1])).toBeGreaterThanOrEqual(2500);
      expect(after[2]).toBe('1');
      await expect(
        f.fail(third!, { retryable: true, reason: 'x', sent: 'no' as unknown as boolean }),
      ).rejects.toMatchObject({ code: 'SHARDLINE_ERR_FRONTIER_ARGUMENT' });
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
          Number(
            await redis.zscore(keysOf(f).hostLeaseDeadlines(lease.domain, lease.host), member),
          ),
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

    it('complete ends a failure streak: backoff and failure count cleared, delay back to the configured one', async () => {
      const f = make({ defaultDelayMs: 100, backoffBaseMs: 400, backoffMaxMs: 400, maxRetries: 5 });
      const redis = connect();
      const state = keysOf(f).hostState('s.example', 's.example');
      await f.enqueue(['https://s.example/a', 'https://s.example/b']);
      const [a] = (await f.claim({ pod: 'pod-a' })).leases;
      await f.fail(a!, { retryable: true, reason: 'timeout' });
      expect((await redis.hmget(state, 'bo', 'fc'))[1]).toBe('1');
      const retried = await claimNext(f, 5000, 20);
      await f.completeMany([{ lease: retried }]);
      expect(await redis.hmget(state, 'bo', 'fc')).toEqual([null, null]);
      // The next claim reserves the configured 100 ms, not the 400 ms backoff.
      const b = await claimNext(f, 5000, 20);
      expect(Number(await redis.hget(state, 'n'))).toBe(b.claimedAtMs + 100);
      // A success with no streak leaves no failure fields behind either.
      await f.completeMany([{ lease: b }]);
      expect(await redis.hmget(state, 'bo', 'fc')).toEqual([null, null]);
    });

    it('fail: backs off, honours Retry-After, retries up to maxRetries, then dead-letters with the reason', async () => {
      const f = make({ maxRetries: 2, backoffBaseMs: 50, backoffMaxMs: 1000 });
      const redis = connect();
      await f.enqueue([{ url: 'https://f.example/x', meta: 'ref=seed' }, 'https://g.example/404']);
      const leases = (await f.claim({ pod: 'pod-a', max: 2 })).leases;
      const x = leases.find((l) => l.host === 'f.example')!;
      const nf = leases.find((l) => l.host === 'g.example')!;
      expect(await f.fail(nf, { retryable: false, reason: 'http-404', status: 404 })).toEqual({
        outcome: 'dead',
        attempt: 1,
      });
      // Redis time read before the fail: the fail's own "now" is not earlier.
      const [sec, usec] = await redis.time();
      const failedAt = Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
      expect(
        await f.fail(x, { retryable: true, reason: 'http-503', status: 503, retryAfterMs: 400 }),
      ).toEqual({
        outcome: 'retry',
        attempt: 1,
      });
      const next = await claimNext(f, 5000, 20);
      expect(next.claimedAtMs).toBeGreaterThanOrEqual(failedAt + 400);
      expect(next.attempt).toBe(2);
      expect(next.meta).toBe('ref=seed');
      expect((await f.fail(next, { retryable: true, reason: 'timeout' })).outcome).toBe('retry');
      const third = await claimNext(f);
      expect(third.attempt).toBe(3);
      expect(await f.fail(third, { retryable: true, reason: 'timeout' })).toEqual({
        outcome: 'dead',
        attempt: 3,
      });
      const dead = await f.inspector.deadLetters('f.example');
      expect(dead).toHaveLength(1);
      expect(dead[0]).toMatchObject({
        url: 'https://f.example/x',
        reason: 'timeout',
        attempt: 3,
        meta: 'ref=seed',
      });
      expect((await f.inspector.deadLetters('g.example'))[0]).toMatchObject({
        reason: 'http-404',
        status: 404,
      });
      expect(await f.inspector.domainStats('f.example')).toMatchObject({
        failed: 3,
        dead: 1,
        queued: 0,
        inFlight: 0,
      });
      // Backoff state: the host's state hash records the consecutive failures.
      expect(await redis.hget(keysOf(f).hostState('f.example', 'f.example'), 'fc')).toBe('3');
      // Requeue the dead letter: it comes back with attempt 1.
      expect(await f.requeueDeadLetters('f.example')).toBe(1);
      const again = await claimNext(f, 5000, 20);
      expect(again).toMatchObject({ url: 'https://f.example/x', attempt: 1 });
    });

    it('settled() answers from the domains themselves when the global counters are off', async () => {
      const f = make();
      const redis = connect();
      expect(await f.settled()).toBe(true);
      await f.enqueue(['https://s1.example/a', 'https://s2.example/b']);
      expect(await f.settled()).toBe(false);
      const leases: Lease[] = [];
      await vi.waitFor(
        async () => {
          leases.push(...(await f.claim({ pod: 'pod-a', max: 10 })).leases);
          expect(leases.length).toBeGreaterThanOrEqual(2);
        },
        { timeout: 5000, interval: 20 },
      );
      await f.complete(leases[0]!);
      // One lease still out: not settled, though nothing is queued.
      expect(await f.settled()).toBe(false);
      await f.complete(leases[1]!);
      // A pod killed between a script and its counter update leaves the sums off for good.
      await skewGlobalCounter(redis, keysOf(f).prefix, 'inFlight', 1);
      expect((await f.stats()).inFlight).toBe(1);
      expect(await f.settled()).toBe(true);
    });

    it('release gives a URL back untouched, at the front', async () => {
      const f = make();
      await f.enqueue(['https://r.example/1', 'https://r.example/2']);
      const [first] = (await f.claim({ pod: 'pod-a' })).leases;
      await f.release(first!);
      const [again] = (await f.claim({ pod: 'pod-a' })).leases;
      expect(again).toMatchObject({ url: 'https://r.example/1', attempt: 1 });
      expect(await f.inspector.domainStats('r.example')).toMatchObject({
        released: 1,
        repeats: 0,
        inFlight: 1,
      });
    });

    it('release with holdMs keeps the host unclaimed until then, other hosts are not held', async () => {
      const f = make();
      const redis = connect();
      await f.enqueue([
        'https://held.example/1',
        'https://held.example/2',
        'https://free.example/1',
      ]);
      const { leases } = await f.claim({ pod: 'pod-a', max: 10 });
      const held = leases.find((l) => l.host === 'held.example');
      const free = leases.find((l) => l.host === 'free.example');
      await f.complete(free!);
      await f.enqueue(['https://free.example/2']);
      const [sec = 0, micro = 0] = await redis.time();
      const before = Number(sec) * 1000 + Math.floor(Number(micro) / 1000);
      await f.release(held!, { holdMs: 60_000 });
      // The host's due time is the hold's end, by Redis time.
      const score = Number(await redis.zscore(keysOf(f).due('pod-a'), 'held.example/held.example'));
      expect(score).toBeGreaterThanOrEqual(before + 60_000);
      expect(score).toBeLessThan(before + 70_000);
      // Other hosts stay claimable; the held one is not handed out.
      let got: Lease[] = [];
      for (let i = 0; i < 100 && got.length === 0; i++) {
        got = (await f.claim({ pod: 'pod-a', max: 10 })).leases;
        if (got.length === 0) await sleep(20);
      }
      expect(got.map((l) => l.url)).toEqual(['https://free.example/2']);
      expect(await f.inspector.domainStats('held.example')).toMatchObject({
        queued: 2,
        inFlight: 0,
        released: 1,
      });
      // A held release is still a release: the attempt count is unchanged.
      const [head] = await f.inspector.hostQueue('held.example', 'held.example');
      expect(head).toMatchObject({ depth: 0, attempt: 0 });
      await expect(f.release(got[0]!, { holdMs: -1 })).rejects.toMatchObject({
        code: 'SHARDLINE_ERR_FRONTIER_ARGUMENT',
      });
    });

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
      const next = Number(
        await redis.hget(keysOf(f).hostState('gate.example', 'gate.example'), 'n'),
      );
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

    it('completeMany completes a batch and reports a lost lease per item', async () => {
      const f = make();
      await f.enqueue(['https://m1.example/1', 'https://m2.example/1', 'https://m3.example/1']);
      const { leases } = await f.claim({ pod: 'pod-a', max: 3 });
      expect(leases).toHaveLength(3);
      await f.complete(leases[0]!);
      const outcomes = await f.completeMany(
        leases.map((lease) => ({ lease, result: { bytes: 5 } })),
      );
      expect(outcomes[0]).toBeInstanceOf(LeaseLostError);
      expect(outcomes.slice(1)).toEqual([null, null]);
      for (const d of ['m1.example', 'm2.example', 'm3.example']) {
        expect(await f.inspector.domainStats(d)).toMatchObject({
          fetched: 1,
          inFlight: 0,
          queued: 0,
        });
      }
      expect((await f.inspector.domainStats('m1.example')).late).toBe(1);
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
      expect((await f.inspector.dueHosts('pod-a')).map((h) => h.host)).not.toContain(
        'away.example',
      );
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

    it('keeps the seen-set in intset buckets that split as a domain grows, still exact', async () => {
      const f = make();
      const redis = connect();
      const urls = Array.from({ length: 3000 }, (_, i) => `https://big.example/${i}`);
      expect((await f.enqueue(urls)).queued).toBe(3000);
      expect((await f.enqueue(urls)).duplicates).toBe(3000);
      const state = await redis.hmget(keysOf(f).domain('big.example'), 'sL', 'sS', 'seen');
      const buckets = 2 ** Number(state[0]) + Number(state[1]);
      expect(buckets).toBeGreaterThan(1);
      let total = 0;
      for (let b = 0; b < buckets; b++) {
        const key = keysOf(f).seenBucket('big.example', b);
        expect(await redis.call('object', 'encoding', key)).toBe('intset');
        total += await redis.scard(key);
      }
      expect(total).toBe(3000);
      expect(state[2]).toBe('3000');
      expect(
        await redis.call(
          'object',
          'encoding',
          keysOf(f).hostQueue('big.example', 'big.example', 0),
        ),
      ).toBe('quicklist');
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

    it('keeps global and per-pod counters without a scan', async () => {
      const f = make({ ownerOf: twoPods });
      await f.enqueue(['https://c1.example/1', 'https://c1.example/1', 'bad']);
      const pod = twoPods('c1.example');
      const [lease] = (await f.claim({ pod })).leases;
      await f.complete(lease!, { bytes: 42 });
      expect(await f.stats()).toMatchObject({
        enqueued: 1,
        duplicates: 1,
        rejected: 1,
        claimed: 1,
        fetched: 1,
        bytes: 42,
        queued: 0,
        inFlight: 0,
      });
      expect(await f.inspector.podStats(pod)).toMatchObject({
        claimed: 1,
        fetched: 1,
        inFlight: 0,
      });
      expect(await f.inspector.domains()).toEqual([{ domain: 'c1.example', count: 0 }]);
    });

    it('domain indexes by fetched, errors and dead letters match domainStats after complete/fail/dead/requeue', async () => {
      const f = make({ maxRetries: 1, backoffBaseMs: 1, backoffMaxMs: 1, leaseTimeoutMs: 300 });
      const redis = connect();
      const names = ['ix-a.example', 'ix-b.example', 'ix-c.example'];
      await f.enqueue([
        ...[1, 2, 3, 4].map((n) => `https://ix-a.example/${n}`),
        ...[1, 2, 3].map((n) => `https://ix-b.example/${n}`),
        ...[1, 2].map((n) => `https://ix-c.example/${n}`),
      ]);
      // What each URL does when claimed: a dead letter by a 404, one by retries running
      // out, a retry that then succeeds, and (ix-c/2) a lease left to expire twice.
      const plan: Record<string, 'ok' | 'gone' | 'flaky' | 'retry-ok' | 'abandon'> = {
        'https://ix-a.example/1': 'ok',
        'https://ix-a.example/2': 'ok',
        'https://ix-a.example/3': 'gone',
        'https://ix-a.example/4': 'flaky',
        'https://ix-b.example/1': 'ok',
        'https://ix-b.example/2': 'gone',
        'https://ix-b.example/3': 'retry-ok',
        'https://ix-c.example/1': 'ok',
        'https://ix-c.example/2': 'abandon',
      };
      const settled = new Set<string>();
      const deadline = Date.now() + 20_000;
      while (settled.size < 8 || (await f.inspector.domainStats('ix-c.example')).dead < 1) {
        if (Date.now() > deadline) throw new Error('mix did not settle');
        const { leases } = await f.claim({ pod: 'pod-a', max: 8 });
        for (const lease of leases) {
          const what = plan[lease.url]!;
          if (what === 'ok' || (what === 'retry-ok' && lease.attempt > 1)) {
            await f.complete(lease);
            settled.add(lease.url);
          } else if (what === 'gone') {
            await f.fail(lease, { retryable: false, reason: 'http-404', status: 404 });
            settled.add(lease.url);
          } else if (what !== 'abandon') {
            const { outcome } = await f.fail(lease, { retryable: true, reason: 'timeout' });
            if (outcome === 'dead') settled.add(lease.url);
          }
        }
        if (leases.length === 0) await sleep(20);
      }
      expect(await f.requeueDeadLetters('ix-b.example')).toBe(1);
      expect(await f.requeueDeadLetters('ix-a.example', 1)).toBe(1);

      const stats = await Promise.all(names.map((d) => f.inspector.domainStats(d)));
      const score = async (key: string, d: string) => Number((await redis.zscore(key, d)) ?? 0);
      for (const s of stats) {
        expect(await score(keysOf(f).domainsByFetched(), s.domain)).toBe(s.fetched);
        expect(await score(keysOf(f).domainsByErrors(), s.domain)).toBe(s.failed + s.dead);
        expect(await score(keysOf(f).domains(), s.domain)).toBe(s.queued);
      }
      // The mix reached every path: fetches, failures, dead letters, one domain emptied.
      expect(stats.map((s) => s.fetched).every((n) => n > 0)).toBe(true);
      expect(stats.find((s) => s.domain === 'ix-b.example')!.dead).toBe(0);
      expect(stats.filter((s) => s.dead > 0).length).toBe(2);

      const byCount = (pick: (s: (typeof stats)[number]) => number) =>
        stats
          .map((s) => ({ domain: s.domain, count: pick(s) }))
          .sort((x, y) => y.count - x.count || (x.domain < y.domain ? 1 : -1));
      expect(await f.inspector.domains({ sort: 'fetched' })).toEqual(byCount((s) => s.fetched));
      expect(await f.inspector.domains({ sort: 'errors' })).toEqual(
        byCount((s) => s.failed + s.dead),
      );
      const held = byCount((s) => s.dead).filter((d) => d.count > 0);
      expect(await f.inspector.deadLetterDomains()).toEqual(held);
      // The domain whose dead letters were all requeued left the index (not kept at 0).
      expect(await redis.zscore(keysOf(f).deadLetterDomains(), 'ix-b.example')).toBeNull();
      expect(await f.inspector.deadLetterDomains({ offset: 1, limit: 1 })).toEqual(
        held.slice(1, 2),
      );
      for (const d of held) {
        expect(await f.inspector.deadLetters(d.domain)).toHaveLength(d.count);
      }
    });
  });
}
