import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podsResponse, ringResponse, statsResponse } from '../src/schemas-cluster.js';
import { call, type Fixture, PODS, startFixture } from './fixture.js';
import { expectSchema } from './schemas.js';

let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture();
  await fx.fetchSome(3);
});
afterAll(async () => fx?.close());

describe('GET /v1/stats', () => {
  it('reports the frontier counters and the seeded totals', async () => {
    const { status, body } = await call(fx.base, '/v1/stats');
    expect(status).toBe(200);
    expectSchema(statsResponse, body);
    const counters = await fx.frontier.stats();
    expect(body.counters).toEqual(counters);
    const queued = fx.domains.reduce((n, d) => n + d.urls, 0);
    const fetched = [...fx.fetchedBy.values()].reduce((a, b) => a + b, 0);
    expect(fetched).toBeGreaterThan(0);
    expect(body.queued).toBe(queued);
    expect(body.fetched).toBe(fetched);
    expect(body.inFlight).toBe(0);
    expect(body.domains).toBe(fx.domains.length);
    expect(body.pods).toBe(2);
    expect(body.livePods).toBe(2);
  });

  it('moves when URLs are fetched', async () => {
    const before = (await call(fx.base, '/v1/stats')).body;
    const n = await fx.fetchSome(2);
    const after = (await call(fx.base, '/v1/stats')).body;
    expect(after.fetched - before.fetched).toBe(n);
    expect(before.queued - after.queued).toBe(n);
  });
});

describe('GET /v1/pods', () => {
  it('lists both pods with their counters, due hosts and owned domains', async () => {
    const { status, body } = await call(fx.base, '/v1/pods');
    expect(status).toBe(200);
    expectSchema(podsResponse, body);
    expect(body.pods.map((p: { id: string }) => p.id)).toEqual(PODS);
    expect(body.membership).toBe('static');
    expect(body.sample.exact).toBe(true);
    for (const pod of body.pods) {
      expect(pod.counters.fetched ?? 0).toBe(fx.fetchedBy.get(pod.id));
      // What Redis holds: the pod's due index, read as a list.
      const due = await fx.frontier.inspector.dueHosts(pod.id, { limit: 100_000 });
      expect(pod.dueHosts).toBe(due.length);
      const owned = fx.domains.filter((d) => d.owner === pod.id && d.urls > 0).length;
      expect(pod.ownedDomains).toBe(owned);
      expect(pod.keyspaceShare).toBeCloseTo(fx.ring.shares().get(pod.id)!, 12);
      expect(pod.tokens).toBe(8192);
      expect(pod.sessionExpiresAtMs).toBeNull(); // a fixed list has no sessions
    }
  });
});

describe('GET /v1/ring', () => {
  it('describes members and draws arcs covering the circle in keyspace proportions', async () => {
    const { status, body } = await call(fx.base, '/v1/ring?resolution=720');
    expect(status).toBe(200);
    expectSchema(ringResponse, body);
    expect(body.fingerprint).toBe(fx.ring.fingerprint);
    expect(body.tokenCount).toBe(fx.ring.tokenCount);
    expect(body.members.map((m: { id: string }) => m.id)).toEqual(PODS);
    let at = 0;
    const drawn = new Map<string, number>();
    for (const arc of body.arcs) {
      expect(arc.start).toBeCloseTo(at, 12);
      expect(arc.end).toBeGreaterThan(arc.start);
      drawn.set(arc.pod, (drawn.get(arc.pod) ?? 0) + arc.end - arc.start);
      at = arc.end;
    }
    expect(at).toBeCloseTo(1, 12);
    for (const m of body.members) {
      // Folding splits buckets in proportion, so drawn shares equal keyspace shares.
      expect(drawn.get(m.id)).toBeCloseTo(m.keyspaceShare, 9);
      const live = fx.domains.filter((d) => d.owner === m.id && d.urls > 0).length;
      expect(m.liveDomains).toBe(live);
    }
  });

  it('refuses a resolution out of range with a JSON 400', async () => {
    const { status, body } = await call(fx.base, '/v1/ring?resolution=5');
    expect(status).toBe(400);
    expect(body.code).toBe('SHARDLINE_ERR_API_VALIDATION');
    expect(body.details[0].path).toBe('querystring/resolution');
  });
});
