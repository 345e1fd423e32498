/**
 * Enqueue and dedup in the frontier's integration suite (see frontier-suite.ts): per-item
 * results and rejections, canonical dedup, the per-domain caps under concurrent enqueuers,
 * batches of 50,000 hosts and 100,000 items, and the seen-set's buckets.
 */

import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { FrontierSuite } from './frontier-suite-context.js';

export function registerEnqueueTests({ connect, make, keysOf }: FrontierSuite): void {
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
    expect(first.results.map((r) => r.status)).toEqual(['queued', 'duplicate', 'queued', 'queued']);
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
      listed += (await f.inspector.hostQueue('acap.com', `${h}.acap.com`, { limit: 1000 })).length;
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
      await redis.call('object', 'encoding', keysOf(f).hostQueue('big.example', 'big.example', 0)),
    ).toBe('quicklist');
  });
}
