/**
 * Test harness: pods made of a Membership and a RedisFrontier, each on its own Redis
 * connection, sharing one key prefix; and readers of what Redis holds.
 */
import { randomUUID } from 'node:crypto';
import { type FrontierOptions, RedisFrontier } from '@shardline/frontier';
import type { Cluster, Redis } from 'ioredis';
import { Membership, type MembershipOptions, type ReclaimReport } from '../src/index.js';

export type Client = Redis | Cluster;

export interface Pod {
  id: string;
  membership: Membership;
  frontier: RedisFrontier;
  redis: Client;
  reclaims: ReclaimReport[];
  errors: Error[];
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it returns true; fails with `what` after `timeoutMs`. */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

export class Fleet {
  readonly prefix = `t${randomUUID().slice(0, 8)}`;
  readonly pods: Pod[] = [];
  readonly #connect: () => Client;
  readonly #clients: Client[] = [];
  readonly #defaults: Partial<MembershipOptions>;
  readonly #frontierDefaults: Partial<FrontierOptions>;

  constructor(
    connect: () => Client,
    defaults: Partial<MembershipOptions> = {},
    frontierDefaults: Partial<FrontierOptions> = {},
  ) {
    this.#connect = connect;
    this.#defaults = defaults;
    this.#frontierDefaults = frontierDefaults;
  }

  connect(): Client {
    const c = this.#connect();
    this.#clients.push(c);
    return c;
  }

  /** A pod (not started). */
  pod(id: string, options: Partial<MembershipOptions> = {}): Pod {
    const redis = this.connect();
    const frontier: RedisFrontier = new RedisFrontier({
      redis,
      prefix: this.prefix,
      ownerOf: (d) => membership.ownerOf(d),
      defaultDelayMs: 0,
      pinMs: 0,
      leaseTimeoutMs: 0,
      ...this.#frontierDefaults,
    });
    const membership: Membership = new Membership({
      redis,
      podId: id,
      prefix: this.prefix,
      frontier,
      sessionTimeoutMs: 1500,
      heartbeatMs: 250,
      vnodes: 256,
      sweepIntervalMs: 0,
      ...this.#defaults,
      ...options,
    });
    const pod: Pod = { id, membership, frontier, redis, reclaims: [], errors: [] };
    membership.on('reclaimed', (r) => pod.reclaims.push(r));
    membership.on('error', (e) => pod.errors.push(e));
    this.pods.push(pod);
    return pod;
  }

  async start(...ids: string[]): Promise<Pod[]> {
    const pods = ids.map((id) => this.pod(id));
    await Promise.all(pods.map((p) => p.membership.start()));
    // Pods started together learn of each other's joins a moment later; tests that want
    // stale rings build them on purpose.
    await until('every pod on the stored epoch', () => this.converged());
    return pods;
  }

  live(): Pod[] {
    return this.pods.filter((p) => p.membership.ready);
  }

  /** Every live pod on the same, newest epoch. */
  async converged(): Promise<boolean> {
    const live = this.live();
    const stored = Number((await live[0]!.redis.get(live[0]!.membership.keys.epoch())) ?? 0);
    return live.every((p) => p.membership.epoch === stored);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.pods.map((p) => p.membership.stop({ graceful: false })));
    for (const c of this.#clients) c.disconnect();
  }
}

/** Where each due-index member sits: member → { pod, meta } for every pod in `pods`. */
export async function dueLocations(
  frontier: RedisFrontier,
  redis: Client,
  pods: string[],
): Promise<Map<string, { pod: string; meta: string }[]>> {
  const out = new Map<string, { pod: string; meta: string }[]>();
  for (const pod of pods) {
    const meta = (await redis.hgetall(frontier.keys.dueMeta(pod))) as Record<string, string>;
    const members = (await redis.zrange(frontier.keys.due(pod), 0, -1)) as string[];
    for (const m of members) {
      const list = out.get(m) ?? [];
      list.push({ pod, meta: meta[m] ?? '' });
      out.set(m, list);
    }
  }
  return out;
}

/** Whether every domain sits in its owner's due index and in no other. */
export async function placedExactly(
  frontier: RedisFrontier,
  redis: Client,
  pods: string[],
  domains: string[],
  ownerOf: (d: string) => string,
): Promise<boolean> {
  const where = await dueLocations(frontier, redis, pods);
  return domains.every((d) => {
    const at = where.get(`${d}/${d}`) ?? [];
    return at.length === 1 && at[0]!.pod === ownerOf(d);
  });
}
