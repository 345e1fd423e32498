/**
 * SetCrawlLimit and GetURLStatus through a real grpc-js client against three nodes on one
 * redis-server: a limit set through any node holds on the queue's owner, survives the owner's
 * restart and is lifted by 0; GetURLStatus answers for any URL from any node. Asserts on what
 * the client received and what Redis holds.
 */
import { status } from '@grpc/grpc-js';
import { describe, expect, it, vi } from 'vitest';
import type { UrlFrontierNode } from '../src/index.js';
import type { URLInfo, URLItem } from '../src/proto.js';
import { clusterFixture, discovered, type FrontierClient, known } from './cluster-fixture.js';

describe('SetCrawlLimit and GetURLStatus on three nodes', () => {
  const fixture = clusterFixture();

  async function cluster(prefix: string) {
    const nodes: UrlFrontierNode[] = [];
    for (let i = 0; i < 3; i++) nodes.push(await fixture.startNode(`${prefix}-n${i}`, prefix));
    await vi.waitFor(() => {
      for (const n of nodes) expect(n.membership.members()).toHaveLength(3);
    });
    return { nodes, clients: nodes.map((n) => fixture.client(n)) };
  }

  /** One GetURLs round on every node: what each handed out. */
  async function round(clients: FrontierClient[]): Promise<URLInfo[]> {
    const out: URLInfo[] = [];
    for (const c of clients) out.push(...(await c.getUrls({ delay_requestable: 60 })));
    return out;
  }

  it('SetCrawlLimit caps a queue on every node, survives its owner’s restart, 0 lifts it', async () => {
    const prefix = 'lim';
    const { nodes, clients } = await cluster(prefix);
    const urls = ['capped.test', 'free.test'].flatMap((h) =>
      Array.from({ length: 6 }, (_, i) => `http://${h}/${i}`),
    );
    await clients[0]!.putUrls(urls.map((u) => discovered(u)));
    const owner = nodes.findIndex((n) => n.membership.ownerOf('capped.test') === n.podId);
    // Set through a node that does not own the queue.
    const other = (owner + 1) % 3;
    await clients[other]!.call('SetCrawlLimit', { key: 'capped.test', limit: 2, crawlID: '' });
    const redis = fixture.redis();
    const skey = `${prefix}:{d:capped.test}:h:capped.test:s`;
    expect(await redis.hget(skey, 'lim')).toBe('2');

    const got: URLInfo[] = [];
    await vi.waitFor(
      async () => {
        got.push(...(await round(clients)));
        expect(got.filter((u) => u.key === 'free.test')).toHaveLength(6);
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(got.filter((u) => u.key === 'capped.test')).toHaveLength(2);
    const stats = await clients[other]!.call<{
      size: number;
      inProcess: number;
      counts: Record<string, number>;
    }>('GetStats', { key: 'capped.test', crawlID: '' });
    expect(stats).toMatchObject({ size: 4, inProcess: 2 });
    expect(stats.counts).toMatchObject({ crawlLimit: 2, fetched: 0 });
    // Held by its limit: not due, so listed only with include_inactive.
    const listed = async (include_inactive: boolean) =>
      (
        await clients[0]!.call<{ values: string[] }>('ListQueues', {
          crawlID: '',
          include_inactive,
        })
      ).values;
    expect(await listed(false)).not.toContain('capped.test');
    expect(await listed(true)).toContain('capped.test');

    // Acked: fetched counts against the limit, so nothing more comes out.
    await clients[2]!.putUrls(got.map((u) => known(u.url)));
    await vi.waitFor(async () => expect(await redis.hget(skey, 'dn')).toBe('2'));
    expect(await round(clients)).toEqual([]);

    // The owner restarts (a crash, then the same id again): the limit is in Redis.
    await nodes[owner]!.stop({ graceful: false });
    nodes[owner] = await fixture.startNode(`${prefix}-n${owner}`, prefix);
    clients[owner] = fixture.client(nodes[owner]!);
    expect(await redis.hmget(skey, 'lim', 'dn', 'q')).toEqual(['2', '2', '4']);
    await new Promise((r) => setTimeout(r, 500));
    expect(await round(clients)).toEqual([]);

    // 0 lifts the limit (as in the reference service): the rest comes out.
    await clients[owner]!.call('SetCrawlLimit', { key: 'capped.test', limit: 0, crawlID: '' });
    expect(await redis.hexists(skey, 'lim')).toBe(0);
    const rest: URLInfo[] = [];
    await vi.waitFor(
      async () => {
        rest.push(...(await round(clients)));
        expect(rest).toHaveLength(4);
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(rest.every((u) => u.key === 'capped.test')).toBe(true);
    await expect(
      clients[0]!.call('SetCrawlLimit', { key: '', limit: 1, crawlID: '' }),
    ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
  });

  it('GetURLStatus: unseen, queued, leased, refetch-scheduled and done URLs, from any node', async () => {
    const { clients } = await cluster('st');
    const urls = Array.from({ length: 4 }, (_, i) => `http://status.test/${i}`);
    await clients[0]!.putUrls([
      ...urls.slice(0, 3).map((u) => discovered(u)),
      {
        discovered: {
          info: { url: urls[3]!, key: '', metadata: { from: { values: ['seed'] } }, crawlID: '' },
        },
        ID: urls[3]!,
      },
    ]);
    const status_ = (c: FrontierClient, url: string) =>
      c.call<URLItem>('GetURLStatus', { url, key: '', crawlID: '' });
    await expect(status_(clients[1]!, 'http://status.test/never')).rejects.toMatchObject({
      code: status.NOT_FOUND,
      details: expect.stringContaining('GetURLStatus: http://status.test/never was never put'),
    });
    const queued = await status_(clients[2]!, urls[3]!);
    expect(queued.item).toBe('discovered');
    expect(queued.discovered!.info).toMatchObject({
      url: urls[3],
      key: 'status.test',
      metadata: { from: { values: ['seed'] } },
      crawlID: 'DEFAULT',
    });

    const out: URLInfo[] = [];
    await vi.waitFor(
      async () => {
        for (const c of clients)
          out.push(...(await c.getUrls({ max_urls_per_queue: 3, delay_requestable: 60 })));
        expect(out.length).toBeGreaterThanOrEqual(3);
      },
      { timeout: 10_000, interval: 50 },
    );
    const [leased, scheduled, done] = out.map((u) => u.url);
    const leasedStatus = await status_(clients[0]!, leased!);
    expect(leasedStatus.item).toBe('known');
    expect(leasedStatus.known!.refetchable_from_date).toBeGreaterThan(Date.now() / 1000 + 50);

    const refetchAt = Math.ceil(Date.now() / 1000) + 3600;
    await clients[1]!.putUrls([known(scheduled!, refetchAt), known(done!, 0)]);
    const scheduledStatus = await status_(clients[2]!, scheduled!);
    expect(scheduledStatus.item).toBe('known');
    // The refetch schedule files a URL in a bucket at most 1.6 % of its interval later.
    const refetchDate = scheduledStatus.known!.refetchable_from_date;
    expect(refetchDate).toBeGreaterThanOrEqual(refetchAt - 1);
    expect(refetchDate).toBeLessThanOrEqual(refetchAt + 60);
    const doneStatus = await status_(clients[0]!, done!);
    expect(doneStatus.item).toBe('known');
    expect(doneStatus.known!.refetchable_from_date).toBe(0);
    await expect(
      clients[0]!.call('GetURLStatus', { url: done!, key: 'elsewhere.test', crawlID: '' }),
    ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
  });
});
