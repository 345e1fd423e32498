/**
 * Crawls (namespaces) in one frontier: each crawl has its own seen-set, queues, counters,
 * pause and due indexes, while a host's politeness (next-allowed time, delays, blocks) is
 * shared by every crawl; deleting a crawl removes exactly its keys, in batches, and can be
 * finished after a crash. Judged by what Redis holds and what claims hand out.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { CrawlDeletingError, CrawlRegistry } from '../src/index.js';
import { frontierFixture, LIVE_LAYOUT } from './frontier-fixture.js';

describe('crawls', () => {
  const { connect, make } = frontierFixture('c', [], LIVE_LAYOUT);

  const allKeys = async (redis: Redis, prefix: string) => {
    const out: string[] = [];
    let cursor = '0';
    do {
      const [next, page] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      out.push(...page);
      cursor = next;
    } while (cursor !== '0');
    return out.sort();
  };

  it('keeps a seen-set per crawl: the same URL is queued and handed out once in each', async () => {
    const { frontier: a, prefix } = make({ crawlId: 'crawl-a' });
    const { frontier: b } = make({ crawlId: 'crawl-b' }, prefix);
    const url = 'https://same.example/page';
    expect((await a.enqueue([url])).queued).toBe(1);
    expect((await b.enqueue([url])).queued).toBe(1);
    expect((await a.enqueue([url])).duplicates).toBe(1);
    const [la] = (await a.claim({ pod: 'pod-a', max: 5 })).leases;
    expect(la?.url).toBe(url);
    await a.complete(la!);
    expect((await a.inspector.domainStats('same.example')).fetched).toBe(1);
    expect((await b.inspector.domainStats('same.example')).fetched).toBe(0);
    expect((await b.inspector.domainStats('same.example')).queued).toBe(1);
    const [lb] = (await b.claim({ pod: 'pod-a', max: 5 })).leases;
    expect(lb?.url).toBe(url);
  });

  it('shares a host delay across crawls: the second crawl waits, re-scored to the shared time', async () => {
    const redis = connect();
    const { frontier: a, keys: ka, prefix } = make({ crawlId: 'a', defaultDelayMs: 400 });
    const { frontier: b, keys: kb } = make({ crawlId: 'b', defaultDelayMs: 400 }, prefix);
    await a.enqueue(['https://gap.example/1']);
    await b.enqueue(['https://gap.example/2']);
    const [first] = (await a.claim({ pod: 'pod-a' })).leases;
    expect(first).toBeDefined();
    await a.complete(first!);
    // B's host was due at once (its own enqueue) but the host's shared gate is closed.
    expect((await b.claim({ pod: 'pod-a' })).leases).toEqual([]);
    const shared = Number(await redis.hget(ka.hostPoliteness('gap.example', 'gap.example'), 'n'));
    expect(shared).toBeGreaterThanOrEqual(first!.claimedAtMs + 400);
    expect(Number(await redis.zscore(kb.due('pod-a'), 'gap.example/gap.example'))).toBe(shared);
    // The shared fields live under the default crawl's root only.
    expect(await redis.hget(kb.hostState('gap.example', 'gap.example'), 'n')).toBeNull();
    expect((await b.inspector.hostState('gap.example', 'gap.example')).nextAllowedAtMs).toBe(
      shared,
    );
    await new Promise((r) => setTimeout(r, shared - first!.claimedAtMs + 30));
    const [second] = (await b.claim({ pod: 'pod-a' })).leases;
    expect(second?.claimedAtMs).toBeGreaterThanOrEqual(first!.claimedAtMs + 400);
  });

  it('counts requests in flight across crawls against the host concurrency', async () => {
    const redis = connect();
    const { frontier: a, prefix } = make({ crawlId: 'a' });
    const { frontier: b, keys: kb } = make({ crawlId: 'b' }, prefix);
    await a.enqueue(['https://conc.example/1']);
    await b.enqueue(['https://conc.example/2', 'https://conc.example/3']);
    const [held] = (await a.claim({ pod: 'pod-a' })).leases;
    expect(held).toBeDefined();
    // Concurrency 1, no delay: crawl B waits while A's request is out, and looks again soon.
    const { leases, nowMs } = await b.claim({ pod: 'pod-a' });
    expect(leases).toEqual([]);
    const again = Number(await redis.zscore(kb.due('pod-a'), 'conc.example/conc.example'));
    expect(again).toBeGreaterThan(nowMs);
    expect(again).toBeLessThanOrEqual(nowMs + 1000);
    await a.complete(held!);
    await new Promise((r) => setTimeout(r, again - nowMs + 30));
    const [next] = (await b.claim({ pod: 'pod-a', max: 5 })).leases.map((l) => l.url);
    expect(next).toBe('https://conc.example/2');
  });

  it("a run-time delay and a block are the host's in every crawl; a pause is one crawl's", async () => {
    const redis = connect();
    const { frontier: a, prefix } = make({ crawlId: 'a' });
    const { frontier: b } = make({ crawlId: 'b' }, prefix);
    await a.enqueue(['https://ctl.example/1', 'https://other.example/1']);
    await b.enqueue(['https://ctl.example/2', 'https://other.example/2']);
    await a.setHostPolicy('ctl.example', { delayMs: 60_000 });
    expect((await b.inspector.hostState('ctl.example', 'ctl.example')).delayMs).toBe(60_000);
    const [sec] = await redis.time();
    await a.blockUntil({ domain: 'other.example' }, Number(sec) * 1000 + 60_000);
    expect((await b.inspector.domainStats('other.example')).blockedUntilMs).toBeGreaterThan(0);
    // A's claim closes the host's gate for 60 s in both crawls; the block holds in both.
    expect((await a.claim({ pod: 'pod-a', max: 10 })).leases.map((l) => l.url)).toEqual([
      'https://ctl.example/1',
    ]);
    expect((await b.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);
    await a.blockUntil({ domain: 'other.example' }, 0);

    await a.pause('other.example');
    expect((await a.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);
    expect((await b.inspector.domainStats('other.example')).paused).toBe(false);
    expect((await b.claim({ pod: 'pod-a', max: 10 })).leases.map((l) => l.url)).toEqual([
      'https://other.example/2',
    ]);
  });

  it("keeps counters and due indexes per crawl and the default crawl's layout unchanged", async () => {
    const redis = connect();
    const { frontier: plain, keys: kd, prefix } = make();
    const { frontier: x, keys: kx } = make({ crawlId: 'x' }, prefix);
    await plain.enqueue(['https://lay.example/1']);
    await x.enqueue(['https://lay.example/2', 'https://lay.example/3']);
    expect(kd.root('lay.example')).toBe(`${prefix}:{d:lay.example}:`);
    expect(kx.root('lay.example')).toBe(`${prefix}:{d:lay.example}:c:x:`);
    expect(await redis.zcard(kd.due('pod-a'))).toBe(1);
    expect(kx.due('pod-a')).toBe(`${prefix}:c:x:pod:{p:pod-a}:due`);
    expect(await redis.zcard(kx.due('pod-a'))).toBe(1);
    expect((await plain.inspector.domainStats('lay.example')).queued).toBe(1);
    expect((await x.inspector.domainStats('lay.example')).queued).toBe(2);
    // The registry lists the named crawl; the default one is never written to it.
    const crawls = await new CrawlRegistry({ redis, prefix }).list();
    expect(crawls.map((c) => [c.crawlId, c.state])).toEqual([
      ['default', 'active'],
      ['x', 'active'],
    ]);
  });

  it("a handoff inside a crawl moves the crawl's due entries and keeps its state", async () => {
    const redis = connect();
    let owner = 'pod-a';
    const { frontier, keys } = make({ crawlId: 'h', ownerOf: () => owner, pinMs: 50 });
    await frontier.enqueue(['https://ho.example/1', 'https://ho.example/2']);
    const [l1] = (await frontier.claim({ pod: 'pod-a' })).leases;
    await frontier.complete(l1!);
    owner = 'pod-b';
    await new Promise((r) => setTimeout(r, 80));
    await frontier.reindex('ho.example');
    expect(await redis.zscore(keys.due('pod-a'), 'ho.example/ho.example')).toBeNull();
    expect(await redis.zscore(keys.due('pod-b'), 'ho.example/ho.example')).not.toBeNull();
    const [l2] = (await frontier.claim({ pod: 'pod-b' })).leases;
    expect(l2?.url).toBe('https://ho.example/2');
    expect((await frontier.enqueue(['https://ho.example/1'])).duplicates).toBe(1);
    expect((await frontier.inspector.domainStats('ho.example')).fetched).toBe(1);
  });

  it("deletes exactly one crawl's keys in batches, resumable, never the politeness keys", async () => {
    const redis = connect();
    const { frontier: keep, prefix } = make({ crawlId: 'keep' });
    const { frontier: gone } = make({ crawlId: 'gone', leaseTimeoutMs: 60_000 }, prefix);
    const { frontier: plain } = make({}, prefix);
    const urls = Array.from({ length: 120 }, (_, i) => `https://d${i}.example/p`);
    await keep.enqueue(urls);
    await plain.enqueue(urls.slice(0, 10));
    const before = await allKeys(redis, prefix);
    await gone.enqueue([...urls, ...urls.map((u) => `${u}2`)]);
    // State of every kind in the doomed crawl: leases, a fetch, a dead letter, a refetch.
    const { leases } = await gone.claim({ pod: 'pod-a', max: 40 });
    await gone.complete(leases[0]!);
    await gone.fail(leases[1]!, { retryable: false, reason: 'test' });
    await gone.setHostPolicy('d5.example', { delayMs: 1234 });
    await gone.pause('d7.example');

    const registry = new CrawlRegistry({ redis, prefix });
    const boom = new Error('crash after one batch');
    await expect(
      registry.delete('gone', {
        batchDomains: 25,
        onBatch: () => {
          throw boom;
        },
      }),
    ).rejects.toBe(boom);
    expect((await registry.get('gone'))?.state).toBe('deleting');
    await expect(gone.enqueue(['https://new.example/'])).rejects.toBeInstanceOf(CrawlDeletingError);

    const batches: number[] = [];
    const done = await registry.delete('gone', {
      batchDomains: 25,
      onBatch: (p) => batches.push(p.domains),
    });
    expect(batches.length).toBeGreaterThanOrEqual(4);
    expect(done.domains).toBe(95);
    const after = await allKeys(redis, prefix);
    expect(after.filter((k) => k.includes(':c:gone:'))).toEqual([]);
    // Exactly what existed before the doomed crawl, plus the shared politeness it wrote
    // (next-allowed times and the run-time delay under the default crawl's root).
    const added = after.filter((k) => !before.includes(k));
    expect(added.every((k) => /^[^:]+:\{d:d\d+\.example\}:h:d\d+\.example:s$/.test(k))).toBe(true);
    expect(before.every((k) => after.includes(k))).toBe(true);
    expect(await redis.hget(`${prefix}:{d:d5.example}:h:d5.example:s`, 'dl')).toBe('1234');
    // The doomed crawl's leases no longer count as requests in flight to their hosts.
    for (let i = 0; i < 120; i++) {
      const fx = await redis.hget(`${prefix}:{d:d${i}.example}:h:d${i}.example:s`, 'fx');
      expect(Number(fx ?? 0), `d${i}.example`).toBe(0);
    }
    expect((await registry.list()).map((c) => c.crawlId)).toEqual(['default', 'keep']);
    expect((await keep.inspector.domainStats('d3.example')).queued).toBe(1);
    // The id is free again: a new crawl starts empty.
    expect((await gone.enqueue([urls[0]!])).queued).toBe(1);
    await expect(registry.delete('default')).rejects.toThrow(/other than "default"/);
  });
});
