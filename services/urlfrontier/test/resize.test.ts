/**
 * A resize while a client streams: three nodes, a fourth joins, then two leave, while a
 * URLFrontier client keeps calling GetURLs on every live node and acking what it got (to a
 * node picked at random, often not the one that handed the URL out). Nothing is lost, nothing
 * is handed out twice while leased (leases outlast the test), one URL per host is out at a
 * time across all nodes (the host's concurrency, kept in Redis), and a moved queue is served
 * by its new owner within one heartbeat while its old owner hands out nothing from it.
 */
import { describe, expect, it, vi } from 'vitest';
import type { UrlFrontierNode } from '../src/index.js';
import type { URLInfo } from '../src/proto.js';
import { clusterFixture, discovered, type FrontierClient, known } from './cluster-fixture.js';

const HOSTS = 40;
const PER_HOST = 10;
/** Session timeout of the nodes; their heartbeat is a third of it. */
const SESSION_MS = 1500;
const HEARTBEAT_MS = SESSION_MS / 3;

interface Handout {
  url: string;
  host: string;
  node: string;
  atMs: number;
  ackedAtMs?: number;
}

describe('resize 3 → 4 → 2 while a client streams', () => {
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
    const acks = await live.get('n1')!.client.putUrls(urls.map((u) => discovered(u)));
    expect(acks.filter((a) => a.status === 'OK')).toHaveLength(urls.length);

    const handouts: Handout[] = [];
    const outstanding = new Map<string, Handout>();
    let stopLoop = false;
    // While set, the client keeps what it got unacked (a crawler still fetching).
    let holdAcks = false;
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
          .GetURLs({ max_urls_per_queue: 2, delay_requestable: 120 });
        stream.on('data', (info: URLInfo) => {
          const h: Handout = { url: info.url, host: info.key, node: id, atMs: Date.now() };
          handouts.push(h);
          outstanding.set(info.url, h);
        });
        stream.on('error', () => resolve());
        stream.on('end', () => resolve());
      });
    context.onTestFinished(() => {
      stopLoop = true;
    });
    const crawler = (async () => {
      while (!stopLoop) {
        await Promise.all([...live.entries()].map(([id, { client }]) => pull(id, client)));
        // Ack what is out (to any live node), except one URL in five, acked a round later.
        const batch = [...outstanding.values()].filter(
          (h) => !holdAcks && (h.url.length % 5 !== 0 || h.atMs < Date.now() - 200),
        );
        for (const h of batch) {
          h.ackedAtMs = Date.now();
          outstanding.delete(h.url);
        }
        // A node that is going away refuses the call: the client tries another, as any would.
        for (let attempt = 0; batch.length > 0; attempt++) {
          try {
            const replies = await pick().putUrls(batch.map((h) => known(h.url)));
            expect(replies.map((a) => a.status)).toEqual(batch.map(() => 'OK'));
            break;
          } catch (error) {
            if (attempt >= 5) throw error;
          }
        }
        await new Promise((r) => setTimeout(r, 60));
      }
    })();
    const handedOut = () => new Set(handouts.map((h) => h.url)).size;
    await vi.waitFor(() => expect(handedOut()).toBeGreaterThan(urls.length / 5), {
      timeout: 20_000,
    });

    // Scale up: n3 joins mid-stream.
    expect(handedOut()).toBeLessThan(urls.length / 2);
    const ownersBefore = new Map(hosts.map((h) => [h, live.get('n0')!.node.membership.ownerOf(h)]));
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
    await vi.waitFor(() => expect(handedOut()).toBeGreaterThan((urls.length * 3) / 5), {
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
    expect(handedOut()).toBeLessThan(urls.length);
    const leasedByLeaving = byLeaving();
    const leaving = ['n0', 'n1'].map((id) => live.get(id)!.node);
    for (const node of leaving) live.delete(node.podId);
    await Promise.all(leaving.map((node) => node.stop()));
    await settled(2);
    // Their leases outlived them: none of those URLs is handed out again while acks are held.
    await new Promise((r) => setTimeout(r, 3 * HEARTBEAT_MS));
    for (const lease of leasedByLeaving) {
      expect(handouts.filter((h) => h.url === lease.url)).toHaveLength(1);
    }
    holdAcks = false;

    await vi.waitFor(() => expect(handedOut()).toBe(urls.length), {
      timeout: 60_000,
      interval: 100,
    });
    await vi.waitFor(() => expect(outstanding.size).toBe(0), { timeout: 10_000 });
    stopLoop = true;
    await crawler;
    // Nothing handed out twice (no lease lapsed: 120 s), nothing lost.
    expect(handouts).toHaveLength(urls.length);
    expect(new Set(handouts.map((h) => h.url)).size).toBe(urls.length);
    // One URL per host out at a time, across every node.
    for (const host of hosts) {
      const mine = handouts.filter((h) => h.host === host).sort((a, b) => a.atMs - b.atMs);
      for (let i = 1; i < mine.length; i++)
        expect(mine[i]!.atMs).toBeGreaterThanOrEqual(mine[i - 1]!.ackedAtMs!);
    }
    const inspector = live.get('n2')!.node.frontier.inspector;
    await vi.waitFor(async () => expect((await inspector.stats()).fetched).toBe(urls.length));
    for (const host of hosts) {
      expect(await inspector.domainStats(host)).toMatchObject({
        queued: 0,
        inFlight: 0,
        fetched: PER_HOST,
        repeats: 0,
        late: 0,
      });
    }
  }, 180_000);
});
