/**
 * The URLFrontier methods through a real grpc-js client against three nodes on one
 * redis-server: seed (PutURLs to any node), stream (GetURLs from each owner), ack
 * (KnownURLItem to any node), leases that lapse after delay_requestable, refetch dates,
 * blocks, delays, stats, the active switch, and the explicit refusals. Asserts on what the
 * client received and on what Redis holds (through the frontier's inspector).
 */
import { status } from '@grpc/grpc-js';
import { describe, expect, it, vi } from 'vitest';
import type { UrlFrontierNode } from '../src/index.js';
import type { URLInfo, URLItem } from '../src/proto.js';
import { clusterFixture, discovered, type FrontierClient, known } from './cluster-fixture.js';

const hostsOf = (n: number) => Array.from({ length: n }, (_, i) => `site${i}.test`);
const urlsOf = (hosts: string[], perHost: number) =>
  hosts.flatMap((h) => Array.from({ length: perHost }, (_, j) => `http://${h}/p${j}`));

describe('URLFrontier methods on three nodes', () => {
  const fixture = clusterFixture();

  async function cluster(prefix: string, count = 3) {
    const nodes: UrlFrontierNode[] = [];
    for (let i = 0; i < count; i++) nodes.push(await fixture.startNode(`${prefix}-n${i}`, prefix));
    // Every node sees every member before the test starts.
    await vi.waitFor(() => {
      for (const n of nodes) expect(n.membership.members()).toHaveLength(count);
    });
    return { nodes, clients: nodes.map((n) => fixture.client(n)) };
  }

  /** GetURLs on every node until `want` URLs came back (each node serves what it owns). */
  async function drain(clients: FrontierClient[], want: number, params = {}) {
    const got: { node: number; info: URLInfo }[] = [];
    await vi.waitFor(
      async () => {
        for (const [node, c] of clients.entries()) {
          for (const info of await c.getUrls({ delay_requestable: 30, ...params }))
            got.push({ node, info });
        }
        expect(got.length).toBeGreaterThanOrEqual(want);
      },
      { timeout: 15_000, interval: 100 },
    );
    return got;
  }

  it('seeds through one node, streams each URL once from its owner, acks through another', async () => {
    const { nodes, clients } = await cluster('m1');
    const urls = urlsOf(hostsOf(12), 3);
    const acks = await clients[0]!.putUrls(urls.map((u) => discovered(u)));
    expect(acks.map((a) => a.status)).toEqual(urls.map(() => 'OK'));
    expect(acks.map((a) => a.ID).sort()).toEqual([...urls].sort());
    // A second discovery of the same URLs is acked but not queued again (dedup).
    expect(
      (await clients[1]!.putUrls(urls.slice(0, 5).map((u) => discovered(u)))).every(
        (a) => a.status === 'OK',
      ),
    ).toBe(true);

    const got = await drain(clients, urls.length);
    expect(got.map((g) => g.info.url).sort()).toEqual([...urls].sort());
    for (const { node, info } of got) {
      // Each URL came from the node that owns its domain, keyed by its host.
      expect(nodes[node]!.membership.ownerOf(info.key)).toBe(nodes[node]!.podId);
      expect(info.key).toBe(new URL(info.url).host);
      expect(info.crawlID).toBe('DEFAULT');
    }
    const inspector = nodes[0]!.frontier.inspector;
    expect(await clients[2]!.call('CountURLs', { key: '', crawlID: '' })).toEqual({
      value: urls.length,
    });
    // Leased: nothing more to hand out anywhere.
    for (const c of clients) expect(await c.getUrls({ delay_requestable: 30 })).toEqual([]);

    // Acks to a node other than the one that handed the URL out.
    const ackAcks = await clients[1]!.putUrls(got.map((g) => known(g.info.url)));
    expect(ackAcks.every((a) => a.status === 'OK')).toBe(true);
    await vi.waitFor(async () => expect((await inspector.stats()).fetched).toBe(urls.length));
    for (const h of hostsOf(12)) {
      expect(await inspector.domainStats(h)).toMatchObject({
        queued: 0,
        inFlight: 0,
        fetched: 3,
        repeats: 0,
      });
    }
    expect(await clients[0]!.call('CountURLs', { key: '', crawlID: '' })).toEqual({ value: 0 });
  });

  it('hands a URL out again once delay_requestable lapsed without an ack', async () => {
    const { nodes, clients } = await cluster('m2', 1);
    await clients[0]!.putUrls([discovered('http://lapse.test/a')]);
    const first = await drain(clients, 1, { delay_requestable: 1 });
    expect(first.map((g) => g.info.url)).toEqual(['http://lapse.test/a']);
    expect(await clients[0]!.getUrls({ delay_requestable: 1 })).toEqual([]);
    const again = await drain(clients, 1, { delay_requestable: 1 });
    expect(again.map((g) => g.info.url)).toEqual(['http://lapse.test/a']);
    expect((await nodes[0]!.frontier.inspector.domainStats('lapse.test')).repeats).toBe(1);
  });

  it('refetchable_from_date schedules the URL again at that date; 0 means done', async () => {
    const { nodes, clients } = await cluster('m3', 1);
    await clients[0]!.putUrls([
      discovered('http://again.test/a'),
      discovered('http://again.test/b'),
    ]);
    const got = await drain(clients, 2);
    const soon = Math.ceil(Date.now() / 1000) + 1;
    await clients[0]!.putUrls([
      known('http://again.test/a', soon),
      known('http://again.test/b', 0),
    ]);
    const inspector = nodes[0]!.frontier.inspector;
    expect(await inspector.domainStats('again.test')).toMatchObject({
      queued: 1,
      scheduled: 1,
      fetched: 2,
    });
    expect(got).toHaveLength(2);
    expect(await clients[0]!.getUrls({})).toEqual([]);
    const refetched = await drain(clients, 1);
    expect(refetched.map((g) => g.info.url)).toEqual(['http://again.test/a']);
    expect(Date.now()).toBeGreaterThanOrEqual(soon * 1000);
  });

  it('GetURLs honours max_queues and max_urls_per_queue; metadata travels with the URL', async () => {
    const { clients } = await cluster('m4', 1);
    const urls = urlsOf(['q1.test', 'q2.test', 'q3.test'], 4);
    await clients[0]!.putUrls(
      urls.map((url) => ({
        discovered: { info: { url, key: '', metadata: { depth: { values: ['2'] } }, crawlID: '' } },
        ID: url,
      })),
    );
    const got = await clients[0]!.getUrls({
      max_queues: 2,
      max_urls_per_queue: 3,
      delay_requestable: 30,
    });
    const perHost = new Map<string, number>();
    for (const g of got) perHost.set(g.key, (perHost.get(g.key) ?? 0) + 1);
    expect([...perHost.values()]).toEqual([3, 3]);
    expect(got[0]!.metadata).toEqual({ depth: { values: ['2'] } });
    // What was claimed past the limits went back: the rest is still handed out, nothing lost.
    const rest = await clients[0]!.getUrls({ delay_requestable: 30 });
    expect([...got, ...rest].map((g) => g.url).sort()).toEqual([...urls].sort());
  });

  it('BlockQueueUntil holds a queue back until its time; SetDelay spaces its URLs, in Redis', async () => {
    const { nodes, clients } = await cluster('m5', 1);
    const c = clients[0]!;
    await c.putUrls(urlsOf(['blocked.test', 'slow.test'], 2).map((u) => discovered(u)));
    const until = Math.ceil(Date.now() / 1000) + 2;
    await c.call('BlockQueueUntil', { key: 'blocked.test', time: until, crawlID: '' });
    await c.call('SetDelay', { key: 'slow.test', delay_requestable: 1, crawlID: '' });
    const inspector = nodes[0]!.frontier.inspector;
    expect((await inspector.hostState('blocked.test', 'blocked.test')).blockedUntilMs).toBe(
      until * 1000,
    );
    expect((await inspector.hostState('slow.test', 'slow.test')).delayMs).toBe(1000);
    const first = await c.getUrls({ delay_requestable: 30 });
    expect(first.map((u) => u.key)).toEqual(['slow.test']);
    const all = [...first, ...(await drain(clients, 3)).map((g) => g.info)];
    expect(Date.now()).toBeGreaterThanOrEqual(until * 1000);
    expect(all.map((u) => u.url).sort()).toEqual(urlsOf(['blocked.test', 'slow.test'], 2).sort());
    expect(await c.call('GetStats', { key: 'blocked.test', crawlID: '' })).toMatchObject({
      inProcess: 2,
      size: 0,
    });
  });

  it('aggregates stats and queues over the cluster, or one node with local', async () => {
    const { nodes, clients } = await cluster('m6');
    const hosts = hostsOf(9).map((h) => `a${h}`);
    await clients[0]!.putUrls(urlsOf(hosts, 2).map((u) => discovered(u)));
    const stats = await clients[1]!.call<{
      size: number;
      numberOfQueues: number;
      counts: Record<string, number>;
    }>('GetStats', { key: '', crawlID: '' });
    expect(stats).toMatchObject({ size: 18, inProcess: 0, numberOfQueues: 9, crawlID: 'DEFAULT' });
    expect(stats.counts.enqueued).toBe(18);
    const queues = await clients[2]!.call<{ values: string[]; total: number }>('ListQueues', {
      size: 5,
      start: 0,
      crawlID: '',
      include_inactive: true,
    });
    expect(queues.total).toBe(9);
    expect(queues.values).toEqual([...hosts].sort().slice(0, 5));
    let local = 0;
    for (const [i, c] of clients.entries()) {
      const mine = hosts.filter((h) => nodes[i]!.membership.ownerOf(h) === nodes[i]!.podId);
      const s = await c.call<{ size: number }>('GetStats', { key: '', crawlID: '', local: true });
      expect(s.size).toBe(mine.length * 2);
      local += s.size;
    }
    expect(local).toBe(18);
    const listed = await clients[0]!.call<{ values: string[] }>('ListNodes', {});
    expect(listed.values.sort()).toEqual(nodes.map((n) => n.address).sort());
    expect(await clients[0]!.call('ListCrawls', {})).toEqual({ values: ['DEFAULT'] });
  });

  it('SetActive(false) stops every node handing out URLs; PutURLs still accepts them', async () => {
    const { clients } = await cluster('m7', 2);
    await clients[0]!.call('SetActive', { state: false, local: false });
    expect(await clients[1]!.call('GetActive', { local: false })).toEqual({ state: false });
    await clients[1]!.putUrls([discovered('http://idle.test/a')]);
    for (const c of clients) expect(await c.getUrls({})).toEqual([]);
    await clients[1]!.call('SetActive', { state: true, local: false });
    expect((await drain(clients, 1)).map((g) => g.info.url)).toEqual(['http://idle.test/a']);
  });

  it('refuses what it cannot honour, saying why: foreign keys, other crawls, unimplemented methods', async () => {
    const { clients } = await cluster('m8', 1);
    const c = clients[0]!;
    const acks = await c.putUrls([
      discovered('http://www.keyed.co.uk/a', { key: 'keyed.co.uk' }),
      discovered('http://www.keyed.co.uk/b', { key: 'elsewhere.co.uk' }),
      discovered('not a url'),
      discovered('http://keyed.test/c', { crawlID: 'Not A Crawl' }),
    ]);
    expect(acks.map((a) => a.status)).toEqual(['OK', 'SKIPPED', 'SKIPPED', 'SKIPPED']);
    await expect(c.getUrls({ crawlID: 'Not A Crawl' })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: expect.stringContaining('crawl id "Not A Crawl" is not a shardline crawl id'),
    });
    await expect(c.getUrls({ key: 'bad key/x' })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    for (const [method, request] of [
      ['DeleteCrawl', { value: 'DEFAULT' }],
      ['DeleteCrawl', { value: '' }],
      ['PurgeURLs', { days: 1 }],
    ] as const) {
      await expect(c.call(method, request)).rejects.toMatchObject({
        code: status.UNIMPLEMENTED,
        details: expect.stringContaining(`${method}: `),
      });
    }
    await expect(c.call('BlockQueueUntil', { key: 'bad key/x', time: 1 })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
  });

  it('a local count over more domains than maxLocalDomains is refused, naming the cluster-wide form', async () => {
    const node = await fixture.startNode('m13-n0', 'm13', { maxLocalDomains: 3 });
    const c = fixture.client(node);
    await c.putUrls(urlsOf(hostsOf(3), 2).map((u) => discovered(u)));
    // At the bound: the exact sum over the node's domains.
    expect(await c.call('CountURLs', { key: '', crawlID: '', local: true })).toEqual({ value: 6 });
    expect(await c.call('GetStats', { key: '', crawlID: '', local: true })).toMatchObject({
      size: 6,
    });
    await c.putUrls([discovered('http://site3.test/p0')]);
    for (const method of ['CountURLs', 'GetStats']) {
      await expect(c.call(method, { key: '', crawlID: '', local: true })).rejects.toMatchObject({
        code: status.FAILED_PRECONDITION,
        details: expect.stringMatching(
          new RegExp(`^${method}: this node owns more than 3 domains .*local: false`),
        ),
      });
    }
    // The cluster-wide form still answers, from the counters.
    expect(await c.call('CountURLs', { key: '', crawlID: '' })).toEqual({ value: 7 });
  });

  it('GetURLs with a key serves that queue alone, from its owner only', async () => {
    const { nodes, clients } = await cluster('m12');
    const urls = [
      ...urlsOf(['k1.test', 'k2.test'], 3),
      'http://www.kd.co.uk/a',
      'http://shop.kd.co.uk/b',
    ];
    await clients[0]!.putUrls(urls.map((u) => discovered(u)));
    const ownerOf = (domain: string) =>
      nodes.findIndex((n) => n.membership.ownerOf(domain) === n.podId);
    const k1 = ownerOf('k1.test');
    // Another node's queue: nothing (not a duplicate, not an error).
    const other = clients[(k1 + 1) % 3]!;
    expect(await other.getUrls({ key: 'k1.test', delay_requestable: 30 })).toEqual([]);
    const got = await clients[k1]!.getUrls({ key: 'k1.test', delay_requestable: 30 });
    expect(got.map((u) => u.url).sort()).toEqual(urlsOf(['k1.test'], 3));
    expect(await clients[k1]!.call('GetStats', { key: 'k2.test', crawlID: '' })).toMatchObject({
      size: 3,
      inProcess: 0,
    });
    // A registrable-domain key (StormCrawler's byDomain): the domain's hosts.
    const byDomain = await clients[ownerOf('kd.co.uk')]!.getUrls({
      key: 'kd.co.uk',
      delay_requestable: 30,
    });
    expect(byDomain.map((u) => u.key).sort()).toEqual(['shop.kd.co.uk', 'www.kd.co.uk']);
  });

  it('keeps crawls apart: same URL in two crawls, per-crawl streams, anyCrawlID, DeleteCrawl', async () => {
    const { nodes, clients } = await cluster('m9', 2);
    const [a, b] = clients as [FrontierClient, FrontierClient];
    const urls = urlsOf(['c1.test', 'c2.test'], 2);
    const acks = await a.putUrls([
      ...urls.map((u) => discovered(u)),
      ...urls.map((u) => ({ ...discovered(u, { crawlID: 'news' }), ID: `news:${u}` })),
    ]);
    expect(acks.every((x) => x.status === 'OK')).toBe(true);
    expect((await b.call<{ values: string[] }>('ListCrawls', {})).values).toEqual([
      'DEFAULT',
      'news',
    ]);
    expect(await b.call('CountURLs', { key: '', crawlID: 'news' })).toEqual({ value: 4 });
    const news: URLInfo[] = [];
    for (const c of clients)
      news.push(...(await c.getUrls({ crawlID: 'news', delay_requestable: 30 })));
    expect(news.map((u) => [u.crawlID, u.url]).sort()).toEqual(urls.map((u) => ['news', u]).sort());
    const any: URLInfo[] = [];
    for (const c of clients)
      any.push(...(await c.getUrls({ anyCrawlID: {}, delay_requestable: 30 })));
    expect(any.map((u) => [u.crawlID, u.url]).sort()).toEqual(
      urls.map((u) => ['DEFAULT', u]).sort(),
    );
    // A news URL acked in its crawl; the same URL's default-crawl lease is untouched.
    await b.putUrls([
      {
        ...known(urls[0]!),
        known: {
          ...known(urls[0]!).known,
          info: { ...known(urls[0]!).known.info, crawlID: 'news' },
        },
      },
    ]);
    const newsFrontier = nodes[0]!.frontierOf('news');
    await vi.waitFor(async () => expect((await newsFrontier.inspector.stats()).fetched).toBe(1));
    expect((await nodes[0]!.frontier.inspector.stats()).fetched ?? 0).toBe(0);
    expect(await a.call('DeleteCrawl', { value: 'news' })).toEqual({ value: 3 });
    expect((await b.call<{ values: string[] }>('ListCrawls', {})).values).toEqual(['DEFAULT']);
    expect(await newsFrontier.inspector.domainStats('c1.test')).toMatchObject({
      queued: 0,
      inFlight: 0,
    });
    expect(await a.call('CountURLs', { key: '', crawlID: '' })).toEqual({ value: 4 });
  });

  it('DeleteQueue empties one queue everywhere; its leases finish; the URLs stay seen', async () => {
    const { nodes, clients } = await cluster('m10', 2);
    const urls = urlsOf(['gone.test', 'kept.test'], 3);
    await clients[0]!.putUrls(urls.map((u) => discovered(u)));
    const one = (await drain(clients, 1, { max_queues: 1, max_urls_per_queue: 1 }))[0]!.info;
    const host = one.key;
    expect(await clients[1]!.call('DeleteQueue', { key: host, crawlID: '' })).toEqual({ value: 2 });
    const inspector = nodes[0]!.frontier.inspector;
    expect(await inspector.domainStats(host)).toMatchObject({ queued: 0, inFlight: 1 });
    // Nothing more of that queue is handed out; rediscovery does not bring it back.
    await clients[0]!.putUrls(urls.map((u) => discovered(u)));
    const rest = await drain(clients, 3);
    expect(rest.map((g) => g.info.key)).not.toContain(host);
    await clients[0]!.putUrls([known(one.url)]);
    await vi.waitFor(async () => expect((await inspector.domainStats(host)).fetched).toBe(1));
  });

  it('ListURLs streams a queue (leased, then waiting in hand-out order), pages and filters', async () => {
    const { clients } = await cluster('m11', 1);
    const c = clients[0]!;
    await c.putUrls(urlsOf(['list.test', 'other.test'], 3).map((u) => discovered(u)));
    const [out] = await c.getUrls({ max_queues: 1, max_urls_per_queue: 1, delay_requestable: 60 });
    const items = await c.collect<URLItem>('ListURLs', { key: out!.key, crawlID: '' });
    expect(items.map((i) => i.item)).toEqual(['known', 'discovered', 'discovered']);
    expect(items[0]!.known!.info!.url).toBe(out!.url);
    expect(items[0]!.known!.refetchable_from_date).toBeGreaterThan(Date.now() / 1000 + 50);
    const all = await c.collect<URLItem>('ListURLs', { crawlID: '', size: 4, start: 1 });
    expect(all).toHaveLength(4);
    const filtered = await c.collect<URLItem>('ListURLs', {
      crawlID: '',
      filter: 'OTHER.TEST/P2',
      ignoreCase: true,
    });
    expect(filtered.map((i) => (i.discovered ?? i.known)!.info!.url)).toEqual([
      'http://other.test/p2',
    ]);
  });
});
