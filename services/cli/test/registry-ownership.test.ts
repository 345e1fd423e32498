/**
 * The CLI over the real pod registry: pods joined through `Membership` in this process,
 * the `shardline` binary run as a child. Seeds must land in the due index of the pod the
 * running pods agree owns each domain; `pods` and `ring show` show the registry's data.
 */
import { RedisFrontier } from '@shardline/frontier';
import { Membership, MembershipReader } from '@shardline/membership';
import { domainKey } from '@shardline/url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { runCliWith } from './run-cli-with.js';

const PREFIX = 'own';
// Not the CLI's defaults (8192 / 0): placement must use what the registry stores.
const VNODES = 512;
const SEED = 11;

let server: RedisServer;
let redis: Redis;
const started: Membership[] = [];
let a: Membership;
let b: Membership;

function join(podId: string, weight: number, prefix = PREFIX, sessionTimeoutMs?: number) {
  const m = new Membership({
    redis,
    podId,
    prefix,
    weight,
    vnodes: VNODES,
    seed: SEED,
    sessionTimeoutMs,
  });
  m.on('error', () => {
    // Background heartbeat failures are retried; the test asserts through the CLI.
  });
  started.push(m);
  return m.start().then(() => m);
}

function cli(args: string[], stdin?: string, prefix = PREFIX) {
  return runCliWith([...args, '--redis', server.url, '--prefix', prefix], { stdin });
}

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  a = await join('pod-a', 1);
  b = await join('pod-b', 3);
});

afterAll(async () => {
  await Promise.all(started.map((m) => m.stop({ graceful: false }).catch(() => undefined)));
  redis?.disconnect();
  await server?.stop();
});

describe('ownership from the registry', () => {
  it('seed puts every domain in the due index of the pod that membership.ownerOf names', async () => {
    const urls: string[] = [];
    for (let i = 0; i < 150; i++) {
      urls.push(`https://www.site${i}.com/page`, `https://news.paper${i}.co.uk/`);
    }
    const result = await cli(['seed', '--json'], `${urls.join('\n')}\n`);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ queued: urls.length, owners: 'registry' });

    const frontier = new RedisFrontier({ redis, prefix: PREFIX, ownerOf: () => 'unused' });
    const placed = new Map<string, string[]>();
    for (const pod of ['pod-a', 'pod-b']) {
      for (const d of await frontier.inspector.queuedDomainsOf(pod)) {
        placed.set(d, [...(placed.get(d) ?? []), pod]);
      }
    }
    const domains = [...new Set(urls.map((u) => domainKey(new URL(u).hostname)))];
    expect(domains).toHaveLength(300);
    const perPod = new Map<string, number>();
    for (const d of domains) {
      const owner = a.ownerOf(d);
      expect(b.ownerOf(d)).toBe(owner); // the pods agree
      expect([d, placed.get(d)]).toEqual([d, [owner]]);
      perPod.set(owner, (perPod.get(owner) ?? 0) + 1);
    }
    // Weight 3 against 1: pod-b owns about three quarters.
    expect(perPod.get('pod-b')! / domains.length).toBeGreaterThan(0.6);
    expect(perPod.get('pod-a')! / domains.length).toBeGreaterThan(0.1);
  });

  it('pods --json: the registry members, alive, with weights, session expiry and the epoch', async () => {
    const result = await cli(['pods', '--json']);
    expect(result.code).toBe(0);
    const view = JSON.parse(result.stdout);
    expect(view.membership).toBe('registry');
    expect(view.epoch).toBe(await new MembershipReader(redis, PREFIX).epoch());
    expect(view.epoch).toBe(a.epoch);
    const registry = await new MembershipReader(redis, PREFIX).members();
    expect(
      view.pods.map((p: { id: string; alive: boolean; weight: number; tokens: number }) => [
        p.id,
        p.alive,
        p.weight,
        p.tokens,
      ]),
    ).toEqual([
      ['pod-a', true, 1, VNODES],
      ['pod-b', true, 3, 3 * VNODES],
    ]);
    for (const [i, p] of view.pods.entries()) {
      // Heartbeats renew the session between the two reads; never backwards.
      expect(p.sessionExpiresAtMs).toBeGreaterThan(0);
      expect(p.sessionExpiresAtMs).toBeLessThanOrEqual(registry[i]!.sessionExpiresAtMs);
    }
  });

  it('pods and ring show print the registry: alive, weight, session expiry, epoch', async () => {
    const pods = await cli(['pods']);
    expect(pods.code).toBe(0);
    const [header, rowA, rowB] = pods.stdout.split('\n');
    expect(header).toMatch(/^pod\s+state\s+member\s+alive\s+weight\s+session expires\s+tokens/);
    expect(rowA).toMatch(/^pod-a\s+alive\s+yes\s+yes\s+1\s+in \d+(\.\d)? (ms|s)\s+512\b/);
    expect(rowB).toMatch(/^pod-b\s+alive\s+yes\s+yes\s+3\s+in \d+(\.\d)? (ms|s)\s+1,536\b/);
    expect(pods.stdout).toContain(`membership: registry (epoch ${a.epoch})`);

    const ring = await cli(['ring', 'show']);
    expect(ring.code).toBe(0);
    expect(ring.stdout).toMatch(/^pod\s+weight\s+session expires\s+tokens/);
    expect(ring.stdout).toContain(
      `epoch ${a.epoch}, vnodes ${VNODES}, seed ${SEED}, 2,048 tokens; membership: registry`,
    );
    const json = JSON.parse((await cli(['ring', 'show', '--json'])).stdout);
    expect(json).toMatchObject({ membership: 'registry', vnodes: VNODES, seed: SEED });
    expect(json.fingerprint).toBe(a.ring!.fingerprint);
    expect(json.members.map((m: { id: string; alive: boolean }) => [m.id, m.alive])).toEqual([
      ['pod-a', true],
      ['pod-b', true],
    ]);
    expect(json.offRing).toEqual([]);
  });

  it('a crashed pod whose session expired is off the ring; with no live pod, seed refuses', async () => {
    const prefix = 'crashed';
    const c = await join('pod-c', 1, prefix, 300);
    await c.stop({ graceful: false }); // stops heartbeating, as a crash would
    // Nobody else is alive to remove it: it stays listed with an expired session.
    const reader = new MembershipReader(redis, prefix);
    for (let i = 0; i < 100 && (await reader.members())[0]?.alive; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await reader.members()).map((m) => [m.id, m.alive])).toEqual([['pod-c', false]]);

    const ring = await cli(['ring', 'show'], undefined, prefix);
    expect(ring.code).toBe(0);
    expect(ring.stdout).toContain('empty ring: no live pod in the registry');
    expect(ring.stdout).toMatch(
      /not on the ring: pod-c \(weight 1\), session expired [\d.]+ (ms|s) ago/,
    );

    const seed = await cli(['seed', 'https://orphan.test/'], undefined, prefix);
    expect(seed.code).toBe(1);
    expect(seed.stderr).toMatch(
      /^error: no crawler pod is live in the registry: the session of every member \(pod-c\) has expired.*--pods/,
    );
    const frontier = new RedisFrontier({ redis, prefix, ownerOf: () => 'unused' });
    expect((await frontier.inspector.domainStats('orphan.test')).queued).toBe(0);
  });

  it('after every pod left gracefully, seed refuses (stale frontier pods do not stand in)', async () => {
    const prefix = 'left';
    const d = await join('pod-d', 1, prefix);
    // pod-d is "seen" by the frontier too; once the registry is in use that must not count.
    await new RedisFrontier({ redis, prefix, ownerOf: () => 'pod-d' }).claim({ pod: 'pod-d' });
    await d.stop({ graceful: true });
    // Listed as departed until forgotten (membership's departedRetentionMs).
    const pods = await cli(['pods'], undefined, prefix);
    expect(pods.stdout).toMatch(/^pod-d\s+departed\s+no\s+no\b/m);
    const seed = await cli(['seed', 'https://orphan.test/'], undefined, prefix);
    expect(seed.code).toBe(1);
    expect(seed.stderr).toMatch(
      /^error: no crawler pod is live in the registry \(epoch \d+: every pod has left\).*--pods/,
    );
    // --pods still overrides the registry.
    const fixed = await cli(['seed', '--pods', 'pod-x', 'https://orphan.test/'], undefined, prefix);
    // Commands that re-score a domain need an owner too, and say why, not "new URLs".
    for (const [args, consequence] of [
      [['pause', 'orphan.test'], 'so no pod owns orphan.test to re-score its hosts: start a pod'],
      [['delay', 'orphan.test', '500'], 'so no pod owns orphan.test to re-score it: start a pod'],
    ] as const) {
      const refused = await cli([...args], undefined, prefix);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`error: no crawler pod is live in the registry (epoch `);
      expect(refused.stderr).toContain(consequence);
    }
    expect(fixed.code).toBe(0);
    const frontier = new RedisFrontier({ redis, prefix, ownerOf: () => 'unused' });
    expect(await frontier.inspector.queuedDomainsOf('pod-x')).toEqual(['orphan.test']);
  });
});
