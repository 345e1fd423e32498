/**
 * A node killed without leaving (it stops heartbeating, as after kill -9): its domains go to
 * the survivor once its session expires, the URLs it had handed out and that were never acked
 * come back (requeued by the survivors' reclaim, or at their lease deadline) and are counted
 * as repeats, and every URL ends fetched — nothing lost. Asserted on what the client received
 * and on the frontier's counters in Redis.
 */
import { describe, expect, it, vi } from 'vitest';
import type { URLInfo } from '../src/proto.js';
import { clusterFixture, discovered, known } from './cluster-fixture.js';

describe('a node that dies mid-stream', () => {
  const fixture = clusterFixture();

  it('loses nothing: its unacked URLs come back through the survivor, counted as repeats', async () => {
    const prefix = 'cr';
    const dying = await fixture.startNode('c0', prefix);
    const survivor = await fixture.startNode('c1', prefix);
    await vi.waitFor(() => expect(survivor.membership.members()).toHaveLength(2));
    const hosts = Array.from({ length: 20 }, (_, i) => `k${i}.test`);
    const urls = hosts.flatMap((h) => [`http://${h}/a`, `http://${h}/b`]);
    const a = fixture.client(dying);
    const b = fixture.client(survivor);
    expect((await b.putUrls(urls.map((u) => discovered(u)))).every((x) => x.status === 'OK')).toBe(
      true,
    );

    // The dying node hands out what it owns; the client never acks those.
    const lost = await a.getUrls({ delay_requestable: 5 });
    expect(lost.length).toBeGreaterThan(0);
    for (const info of lost) expect(dying.membership.ownerOf(info.key)).toBe('c0');
    await dying.stop({ graceful: false });

    const acked = new Map<string, number>();
    await vi.waitFor(
      async () => {
        const got: URLInfo[] = await b.getUrls({ delay_requestable: 30 });
        if (got.length > 0) {
          const acks = await b.putUrls(got.map((info) => known(info.url)));
          expect(acks.every((x) => x.status === 'OK')).toBe(true);
          for (const info of got) acked.set(info.url, (acked.get(info.url) ?? 0) + 1);
        }
        expect(acked.size).toBe(urls.length);
      },
      { timeout: 30_000, interval: 100 },
    );
    // Each URL settled once by the survivor; the dead node's unacked hand-outs are the repeats.
    expect([...acked.values()].every((n) => n === 1)).toBe(true);
    const inspector = survivor.frontier.inspector;
    await vi.waitFor(async () => expect((await inspector.stats()).fetched).toBe(urls.length));
    let repeats = 0;
    for (const h of hosts) {
      const s = await inspector.domainStats(h);
      expect(s).toMatchObject({ queued: 0, inFlight: 0, fetched: 2 });
      repeats += s.repeats;
    }
    expect(repeats).toBe(lost.length);
  }, 60_000);
});
