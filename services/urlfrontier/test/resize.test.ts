/**
 * A resize while a client streams: three nodes, a fourth joins, then two leave, while a
 * URLFrontier client keeps calling GetURLs on every live node and acking what it got (to a
 * node picked at random, often not the one that handed the URL out). Nothing is lost, nothing
 * is handed out twice while leased (leases outlast the test), one URL per host is out at a
 * time across all nodes (the host's concurrency, kept in Redis), and a moved queue is served
 * by its new owner within one heartbeat while its old owner hands out nothing from it.
 * Controls set before the resize (SetCrawlLimit, BlockQueueUntil, SetDelay, through nodes other
 * than the owners) hold on whichever node owns their queue through both steps: a limited queue
 * hands out exactly its limit, a blocked one nothing until the block is lifted after the
 * resize, a delayed one never two URLs closer than its delay.
 */
import { describe, expect, it, vi } from 'vitest';
import type { UrlFrontierNode } from '../src/index.js';
import type { URLInfo } from '../src/proto.js';
import { clusterFixture, discovered, type FrontierClient, known } from './cluster-fixture.js';

const knownIn = (crawlID: string, url: string) => {
  const item = known(url);
  return { ...item, known: { ...item.known, info: { ...item.known.info, crawlID } } };
};

const HOSTS = 40;
const PER_HOST = 10;
/** Session timeout of the nodes; their heartbeat is a third of it. */
const SESSION_MS = 1500;
const HEARTBEAT_MS = SESSION_MS / 3;

/** Queues under a crawl limit, URLs each, and the limit. */
const LIMITED = 8;
const PER_LIMITED = 6;
const LIMIT = 3;
/** Queues blocked until after the resize, and URLs each. */
const BLOCKED = 4;
const PER_BLOCKED = 3;
/** Queues with a 1 s delay, and URLs each (they span the scale-up). */
const DELAYED = 3;
const PER_DELAYED = 10;

/** The second crawl, streamed with the default one through anyCrawlID. */
const CRAWL = 'rz2';

interface Handout {
  /** `<crawl> <url>`. */
  id: string;
  crawl: string;
  url: string;
  host: string;
  node: string;
  atMs: number;
  ackedAtMs?: number;
}

describe('resize 3 → 4 → 2 while a client streams, then a crawl deleted', () => {
  const fixture = clusterFixture();

  it('loses nothing, hands nothing out twice while leased, and moves queues within a heartbeat', async (context) => {
    const prefix = 'rz';
    const live = new Map<string, { node: UrlFrontierNode; client: FrontierClient }>();
    const start = async (id: string) => {
      const node = await fixture.startNode(id, prefix, { perHostConcurrency: 1 });
      live.set(id, { node, client: fixture.client(node) });
      return node;
    };
    for (const id of ['n0', 'n1', 'n2']) await start(id);
    const settled = (count: number) =>
      vi.waitFor(
        () => {
          for (const { node } of live.values())
            expect(node.membership.members()).toHaveLength(count);
        },
        { timeout: 10_000, interval: 20 },
      );
    await settled(3);
    const hosts = Array.from({ length: HOSTS }, (_, i) => `h${i}.test`);
    const urls = hosts.flatMap((h) =>
      Array.from({ length: PER_HOST }, (_, j) => `http://${h}/${j}`),
    );
    const acks = await live
      .get('n1')!
      .client.putUrls([
        ...urls.map((u) => discovered(u)),
        ...urls.map((u) => ({ ...discovered(u, { crawlID: CRAWL }), ID: `${CRAWL} ${u}` })),
      ]);
    expect(acks.filter((a) => a.status === 'OK')).toHaveLength(2 * urls.length);
    // The controlled queues, seeded and set through nodes that mostly do not own them.
    const limited = Array.from({ length: LIMITED }, (_, i) => `lim${i}.test`);
    const blocked = Array.from({ length: BLOCKED }, (_, i) => `blk${i}.test`);
    const delayed = Array.from({ length: DELAYED }, (_, i) => `dly${i}.test`);
    const urlsOf = (host: string, n: number) =>
      Array.from({ length: n }, (_, j) => `http://${host}/${j}`);
    const controlled = [
      ...limited.flatMap((h) => urlsOf(h, PER_LIMITED)),
      ...blocked.flatMap((h) => urlsOf(h, PER_BLOCKED)),
      ...delayed.flatMap((h) => urlsOf(h, PER_DELAYED)),
    ];
    const control = live.get('n2')!.client;
    expect(
      (await live.get('n0')!.client.putUrls(controlled.map((u) => discovered(u)))).every(
        (a) => a.status === 'OK',
      ),
    ).toBe(true);
    const farAway = Math.ceil(Date.now() / 1000) + 3600;
    for (const key of limited)
      await control.call('SetCrawlLimit', { key, limit: LIMIT, crawlID: '' });
    for (const key of blocked)
      await control.call('BlockQueueUntil', { key, time: farAway, crawlID: '' });
    for (const key of delayed)
      await control.call('SetDelay', { key, delay_requestable: 1, crawlID: '' });
    const ownerAtStart = new Map(
      [...limited, ...blocked, ...delayed].map((h) => [
        h,
        live.get('n0')!.node.membership.ownerOf(h),
      ]),
    );
    const handedControlled = LIMITED * LIMIT + BLOCKED * PER_BLOCKED + DELAYED * PER_DELAYED;
    const all = 2 * urls.length + 12 + handedControlled;

    const handouts: Handout[] = [];
    const outstanding = new Map<string, Handout>();
    let stopLoop = false;
    // While set, the client keeps what it got unacked (a crawler still fetching).
    let holdAcks = false;
    // While set, the client asks for nothing (so what is queued stays in the due indexes).
    let holdPulls = false;
    const pick = () => {
      const nodes = [...live.values()];
      return nodes[Math.floor(Math.random() * nodes.length)]!.client;
    };
    /** One GetURLs on one node; whatever arrived before a node went away still counts. */
    const pull = (id: string, client: FrontierClient) =>
      new Promise<void>((resolve) => {
        // biome-ignore lint/suspicious/noExplicitAny: the generated client is untyped.
        const stream = (client as any)
          .raw()
          .GetURLs({ max_urls_per_queue: 2, delay_requestable: 120, anyCrawlID: {} });
        stream.on('data', (info: URLInfo) => {
          const h: Handout = {
            id: `${info.crawlID} ${info.url}`,
            crawl: info.crawlID,
            url: info.url,
            host: info.key,
            node: id,
            atMs: Date.now(),
          };
          handouts.push(h);
          outstanding.set(h.id, h);
        });
        stream.on('error', () => resolve());
        stream.on('end', () => resolve());
      });
    context.onTestFinished(() => {
      stopLoop = true;
    });
    const crawler = (async () => {
      while (!stopLoop) {
        if (!holdPulls) {
          await Promise.all([...live.entries()].map(([id, { client }]) => pull(id, client)));
        }
        // Ack what is out (to any live node), except one URL in five, acked a round later.
        const batch = [...outstanding.values()].filter(
          (h) => !holdAcks && (h.url.length % 5 !== 0 || h.atMs < Date.now() - 200),
        );
        for (const h of batch) {
          h.ackedAtMs = Date.now();
          outstanding.delete(h.id);
        }
        // A node that is going away refuses the call: the client tries another, as any would.
        for (let attempt = 0; batch.length > 0; attempt++) {
          try {
            const replies = await pick().putUrls(batch.map((h) => knownIn(h.crawl, h.url)));
            expect(replies.map((a) => a.status)).toEqual(batch.map(() => 'OK'));
            break;
          } catch (error) {
            if (attempt >= 5) throw error;
          }
        }
        await new Promise((r) => setTimeout(r, 60));
      }
    })();
    const handedOut = () => new Set(handouts.map((h) => h.id)).size;
    await vi.waitFor(() => expect(handedOut()).toBeGreaterThan(all / 5), {
      timeout: 20_000,
    });

    // Scale up: n3 joins mid-stream.
    expect(handedOut()).toBeLessThan(all / 2);
    const ownersBefore = new Map(hosts.map((h) => [h, live.get('n0')!.node.membership.ownerOf(h)]));
    const scaleUpAtMs = Date.now();
    await start('n3');
    await settled(4);
    const n3 = live.get('n3')!.node;
    const moved = hosts.filter((h) => n3.membership.ownerOf(h) === 'n3');
    expect(moved.length).toBeGreaterThan(0);
    // Within one heartbeat (plus a claim round) n3 serves a moved queue that still has URLs.
    const t0 = Date.now();
    await vi.waitFor(
      () => expect(handouts.some((h) => h.node === 'n3' && moved.includes(h.host))).toBe(true),
      { timeout: 10_000, interval: 10 },
    );
    expect(Date.now() - t0).toBeLessThan(HEARTBEAT_MS + 1500);
    // From now on, no old owner hands out a URL of a moved queue.
    const afterUp = handouts.length;
    await vi.waitFor(() => expect(handedOut()).toBeGreaterThan((all * 3) / 5), {
      timeout: 30_000,
    });
    const strays = handouts
      .slice(afterUp)
      .filter(
        (h) => moved.includes(h.host) && h.node !== 'n3' && h.node === ownersBefore.get(h.host),
      );
    expect(strays).toEqual([]);

    // Scale down: n0 and n1 leave gracefully, mid-stream; their leases stay with the client.
    holdAcks = true;
    const byLeaving = () =>
      [...outstanding.values()].filter((h) => h.node === 'n0' || h.node === 'n1');
    await vi.waitFor(() => expect(byLeaving().length).toBeGreaterThan(0), { timeout: 10_000 });
    expect(handedOut()).toBeLessThan(all);
    const leasedByLeaving = byLeaving();
    // Fresh queues of the second crawl, queued while nobody pulls: those the leaving nodes own
    // wait in their due indexes of that crawl and must be handed off with the default crawl's.
    holdPulls = true;
    await new Promise((r) => setTimeout(r, 200));
    const fresh = Array.from({ length: 12 }, (_, i) => `http://fresh${i}.test/x`);
    const freshAcks = await live
      .get('n2')!
      .client.putUrls(fresh.map((u) => discovered(u, { crawlID: CRAWL })));
    expect(freshAcks.every((a) => a.status === 'OK')).toBe(true);
    const freshOfLeaving = fresh.filter((u) =>
      ['n0', 'n1'].includes(live.get('n2')!.node.membership.ownerOf(new URL(u).host)),
    );
    expect(freshOfLeaving.length).toBeGreaterThan(0);
    const leaving = ['n0', 'n1'].map((id) => live.get(id)!.node);
    for (const node of leaving) live.delete(node.podId);
    await Promise.all(leaving.map((node) => node.stop()));
    await settled(2);
    // Their leases outlived them: none of those URLs is handed out again while acks are held.
    await new Promise((r) => setTimeout(r, 3 * HEARTBEAT_MS));
    for (const lease of leasedByLeaving) {
      expect(handouts.filter((h) => h.id === lease.id)).toHaveLength(1);
    }
    // The blocks held through both steps; lifted now through a surviving node.
    const liftedAtMs = Date.now();
    expect(handouts.filter((h) => blocked.includes(h.host))).toEqual([]);
    for (const key of blocked)
      await live.get('n3')!.client.call('BlockQueueUntil', { key, time: 0, crawlID: '' });
    holdAcks = false;
    holdPulls = false;

    await vi.waitFor(() => expect(handedOut()).toBe(all), {
      timeout: 60_000,
      interval: 100,
    });
    await vi.waitFor(() => expect(outstanding.size).toBe(0), { timeout: 10_000 });
    stopLoop = true;
    await crawler;
    // Nothing handed out twice (no lease lapsed: 120 s), nothing lost.
    expect(handouts).toHaveLength(all);
    expect(handedOut()).toBe(all);
    // One URL per host and crawl out at a time, across every node.
    for (const [host, crawl] of hosts.flatMap((h) => [
      [h, 'DEFAULT'] as const,
      [h, CRAWL] as const,
    ])) {
      const mine = handouts
        .filter((h) => h.host === host && h.crawl === crawl)
        .sort((a, b) => a.atMs - b.atMs);
      expect(mine).toHaveLength(PER_HOST);
      for (let i = 1; i < mine.length; i++)
        expect(mine[i]!.atMs).toBeGreaterThanOrEqual(mine[i - 1]!.ackedAtMs!);
    }
    // Each control held on every owner its queue had.
    const finalOwner = (h: string) => live.get('n2')!.node.membership.ownerOf(h);
    expect([...ownerAtStart].filter(([h, o]) => finalOwner(h) !== o).length).toBeGreaterThan(0);
    const inspector = live.get('n2')!.node.frontier.inspector;
    for (const host of limited) {
      expect(handouts.filter((h) => h.host === host)).toHaveLength(LIMIT);
      expect(await inspector.hostState(host, host)).toMatchObject({
        crawlLimit: LIMIT,
        fetched: LIMIT,
        queued: PER_LIMITED - LIMIT,
        inFlight: 0,
      });
    }
    for (const host of blocked) {
      const mine = handouts.filter((h) => h.host === host);
      expect(mine).toHaveLength(PER_BLOCKED);
      for (const h of mine) expect(h.atMs).toBeGreaterThanOrEqual(liftedAtMs);
    }
    const delayedTimes = handouts.filter((h) => delayed.includes(h.host)).map((h) => h.atMs);
    expect(Math.min(...delayedTimes)).toBeLessThan(scaleUpAtMs);
    expect(Math.max(...delayedTimes)).toBeGreaterThan(scaleUpAtMs + HEARTBEAT_MS);
    for (const host of delayed) {
      const times = handouts
        .filter((h) => h.host === host)
        .map((h) => h.atMs)
        .sort((a, b) => a - b);
      expect(times).toHaveLength(PER_DELAYED);
      // 1 s start to start in Redis time; received by the client up to a few hundred ms late.
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThan(700);
    }
    for (const crawl of ['DEFAULT', CRAWL]) {
      const inspector = live.get('n2')!.node.frontierOf(crawl).inspector;
      const fetched = urls.length + (crawl === CRAWL ? 12 : handedControlled);
      await vi.waitFor(async () => expect((await inspector.stats()).fetched).toBe(fetched));
      for (const host of hosts) {
        expect(await inspector.domainStats(host)).toMatchObject({
          queued: 0,
          inFlight: 0,
          fetched: PER_HOST,
          repeats: 0,
          late: 0,
        });
      }
    }
    // The second crawl deleted through one of the two nodes left: gone from every node, its
    // keys too (per domain and global); the default crawl keeps its limited queues' URLs.
    const [one, other] = [...live.values()];
    if (!one || !other) throw new Error('two nodes should be left');
    const redis = fixture.redis();
    const crawlKeys = async () => {
      const found: string[] = [];
      for (const match of [`${prefix}:{d:*}:c:${CRAWL}:*`, `${prefix}:c:${CRAWL}:*`]) {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
          found.push(...keys);
          cursor = next;
        } while (cursor !== '0');
      }
      return found;
    };
    expect((await crawlKeys()).length).toBeGreaterThan(HOSTS);
    expect(await one.client.call('DeleteCrawl', { value: CRAWL })).toEqual({ value: 0 });
    expect((await other.client.call<{ values: string[] }>('ListCrawls', {})).values).toEqual([
      'DEFAULT',
    ]);
    expect(await crawlKeys()).toEqual([]);
    expect(await other.client.call('CountURLs', { key: '', crawlID: '' })).toEqual({
      value: LIMITED * (PER_LIMITED - LIMIT),
    });
  }, 180_000);
});
