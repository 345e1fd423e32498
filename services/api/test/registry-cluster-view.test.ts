/**
 * The API over the real pod registry: pods joined through `Membership` in this process,
 * the API started by `startApi` with its default view (`RegistryClusterView`), real HTTP.
 */
import { RedisFrontier } from '@shardline/frontier';
import { Membership, MembershipReader } from '@shardline/membership';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { RegistryClusterView } from '../src/cluster-view.js';
import { loadApiConfig } from '../src/config.js';
import { type RunningApi, startApi } from '../src/main.js';
import { podsResponse, ringResponse, statsResponse } from '../src/schemas-cluster.js';
import { call, TOKEN } from './fixture.js';
import { expectSchema } from './schemas.js';

const PREFIX = 'reg';
// Not the API's defaults (8192 / 0): the ring must use what the registry stores.
const VNODES = 256;
const SEED = 7;

let server: RedisServer;
let redis: Redis;
let api: RunningApi;
const pods: Membership[] = [];

function join(podId: string, weight: number, prefix = PREFIX): Promise<Membership> {
  const m = new Membership({ redis, podId, prefix, weight, vnodes: VNODES, seed: SEED });
  m.on('error', () => {
    // Background heartbeat failures are retried; the test asserts through the API.
  });
  pods.push(m);
  return m.start().then(() => m);
}

/** Redis time in ms. */
async function redisNowMs(): Promise<number> {
  const [s, us] = (await redis.time()) as unknown as [string, string];
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/** Polls `GET path` until `done(body)` holds (the API re-reads membership every second). */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are arbitrary JSON checked by schema
async function until(path: string, done: (body: any) => boolean): Promise<any> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { status, body } = await call(api.url, path);
    expect(status).toBe(200);
    if (done(body)) return body;
    if (Date.now() > deadline) throw new Error(`${path} never matched: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  await join('pod-a', 1);
  await join('pod-b', 2);
  api = await startApi(
    loadApiConfig({
      REDIS_URL: server.url,
      KEY_PREFIX: PREFIX,
      API_PORT: '0',
      API_TOKEN: TOKEN,
      LOG_LEVEL: 'silent',
    }),
  );
});

afterAll(async () => {
  await api?.close();
  await Promise.all(pods.map((m) => m.stop({ graceful: false }).catch(() => undefined)));
  redis?.disconnect();
  await server?.stop();
});

describe('RegistryClusterView', () => {
  it('reads members, weights, sessions, epoch and ring parameters from the registry', async () => {
    const state = await new RegistryClusterView(redis, PREFIX).read();
    const registry = new MembershipReader(redis, PREFIX);
    expect(state.source).toBe('registry');
    expect(state.epoch).toBe(await registry.epoch());
    expect(state.epoch).toBeGreaterThan(0);
    expect(state.params).toEqual({ vnodes: VNODES, seed: SEED });
    const now = await redisNowMs();
    expect(state.members.map((m) => [m.id, m.weight, m.alive])).toEqual([
      ['pod-a', 1, true],
      ['pod-b', 2, true],
    ]);
    for (const m of state.members) expect(m.sessionExpiresAtMs).toBeGreaterThan(now);
  });

  it('falls back to the pods seen in the frontier while no pod ever joined the registry', async () => {
    const prefix = 'never-joined';
    // A pod that claims without membership (a single `shardline crawl`) is recorded as seen.
    const frontier = new RedisFrontier({ redis, prefix, ownerOf: () => 'solo' });
    await frontier.claim({ pod: 'solo' });
    const state = await new RegistryClusterView(redis, prefix).read();
    expect(state).toEqual({
      members: [{ id: 'solo', weight: 1, alive: true }],
      epoch: 0,
      source: 'frontier-pods',
    });
  });
});

describe('startApi over the registry', () => {
  it('/v1/pods shows each pod alive with its weight, tokens and session expiry', async () => {
    const body = await until('/v1/pods', (b) => b.pods.length === 2);
    expectSchema(podsResponse, body);
    expect(body.membership).toBe('registry');
    expect(body.epoch).toBe(await new MembershipReader(redis, PREFIX).epoch());
    const now = await redisNowMs();
    const a = pods[0]!;
    for (const [i, id] of ['pod-a', 'pod-b'].entries()) {
      const pod = body.pods[i];
      expect(pod).toMatchObject({ id, member: true, alive: true, weight: i + 1 });
      expect(pod.tokens).toBe(VNODES * (i + 1));
      expect(pod.keyspaceShare).toBeCloseTo(a.ring!.shares().get(id)!, 12);
      // Within one heartbeat of now plus the session timeout (10 s by default).
      expect(pod.sessionExpiresAtMs).toBeGreaterThan(now);
      expect(pod.sessionExpiresAtMs).toBeLessThanOrEqual(now + 10_000);
    }
    const stats = (await call(api.url, '/v1/stats')).body;
    expectSchema(statsResponse, stats);
    expect(stats).toMatchObject({ membership: 'registry', pods: 2, livePods: 2 });
  });

  it("/v1/ring is the pods' own ring: the registry's vnodes and seed, the same fingerprint", async () => {
    const { status, body } = await call(api.url, '/v1/ring');
    expect(status).toBe(200);
    expectSchema(ringResponse, body);
    expect(body).toMatchObject({ membership: 'registry', vnodes: VNODES, seed: SEED });
    for (const m of pods) {
      expect(body.fingerprint).toBe(m.ring!.fingerprint);
      expect(body.epoch).toBe(m.epoch);
    }
  });

  it('POST /v1/seeds puts each domain in the due index of the pod that membership names', async () => {
    const domains = Array.from({ length: 40 }, (_, i) => `seeded${i}.test`);
    const { status, body } = await call(api.url, '/v1/seeds', {
      token: TOKEN,
      body: { urls: domains.map((d) => `https://${d}/`) },
    });
    expect(status).toBe(200);
    expect(body.queued).toBe(domains.length);
    const frontier = new RedisFrontier({ redis, prefix: PREFIX, ownerOf: () => 'unused' });
    const placed = new Map<string, string>();
    for (const pod of ['pod-a', 'pod-b']) {
      for (const d of await frontier.inspector.queuedDomainsOf(pod)) placed.set(d, pod);
    }
    const owners = new Set<string>();
    for (const d of domains) {
      owners.add(pods[0]!.ownerOf(d));
      expect([d, placed.get(d)]).toEqual([d, pods[0]!.ownerOf(d)]);
    }
    expect(owners.size).toBe(2); // both pods own some: the weights were applied
  });

  it('a graceful stop removes the pod from /v1/pods and /v1/ring and bumps the epoch', async () => {
    const before = (await call(api.url, '/v1/pods')).body.epoch;
    const [a, b] = pods as [Membership, Membership];
    // pod-b has worked: the frontier knows it (pods set, its counters).
    const frontier = new RedisFrontier({ redis, prefix: PREFIX, ownerOf: () => 'pod-b' });
    await frontier.enqueue(['https://worked-by-b.test/']);
    const { leases } = await frontier.claim({ pod: 'pod-b' });
    await frontier.complete(leases[0]!, { status: 200, bytes: 1, durationMs: 1, links: 0 });
    const metricsBefore = (await call(api.url, '/metrics')).body as string;
    expect(metricsBefore).toMatch(/shardline_pod_urls_fetched_total\{pod="pod-b"\} 1/);
    await b.stop({ graceful: true });
    const body = await until('/v1/pods', (p) => p.epoch > before);
    // Listed as departed (until forgotten), and no longer exported per pod in /metrics.
    expect(body.pods.map((p: { id: string; state: string }) => [p.id, p.state])).toEqual([
      ['pod-a', 'alive'],
      ['pod-b', 'departed'],
    ]);
    const metrics = (await call(api.url, '/metrics')).body as string;
    expect(metrics).not.toContain('pod="pod-b"');
    expect(metrics).toMatch(/shardline_pod_keyspace_share\{pod="pod-a"\} (1|0\.9999\d*)\n/);
    expect(metrics).toContain('shardline_pods{state="departed"} 1');
    // The domain page's owner history: each recorded epoch's owner, newest first.
    await vi.waitFor(
      async () => {
        const page = await call(api.url, '/v1/domains/worked-by-b.test/inspect');
        expect(page.status).toBe(200);
        expect(page.body.ownerHistory[0]).toEqual({ epoch: body.epoch, owner: 'pod-a' });
        expect(page.body.ownerHistory.length).toBeGreaterThanOrEqual(2);
      },
      { timeout: 15_000 },
    );
    expectSchema(podsResponse, body);
    expect(body.epoch).toBe(await new MembershipReader(redis, PREFIX).epoch());
    expect(
      body.pods.filter((p: { member: boolean }) => p.member).map((p: { id: string }) => p.id),
    ).toEqual(['pod-a']);
    expect(body.pods.find((p: { id: string }) => p.id === 'pod-b')?.alive ?? false).toBe(false);
    const ring = await until('/v1/ring', (r) => r.epoch === body.epoch);
    expect(ring.members.map((m: { id: string }) => m.id)).toEqual(['pod-a']);
    // The surviving pod rebuilt the same ring.
    await vi.waitFor(() => expect(a.epoch).toBe(body.epoch), { timeout: 15_000 });
    expect(ring.fingerprint).toBe(a.ring!.fingerprint);
  });

  it('once every pod has left, shows no pods (not the stale frontier pods) and refuses seeds', async () => {
    // Make a pod "seen" in the frontier: the fallback must not bring it back.
    await new RedisFrontier({ redis, prefix: PREFIX, ownerOf: () => 'pod-a' }).claim({
      pod: 'pod-a',
    });
    await pods[0]!.stop({ graceful: true });
    const body = await until('/v1/pods', (p) => !p.pods.some((x: { alive: boolean }) => x.alive));
    expect(body.membership).toBe('registry');
    expect(body.pods.every((p: { member: boolean }) => !p.member)).toBe(true);
    const seeds = await call(api.url, '/v1/seeds', {
      token: TOKEN,
      body: { urls: ['https://orphan.test/'] },
    });
    expect(seeds.status).toBe(503);
    expect(seeds.body.code).toBe('SHARDLINE_ERR_API_NO_PODS');
  });
});
