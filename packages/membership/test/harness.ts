/**
 * Test harness: pods made of a Membership and a RedisFrontier, each on its own Redis
 * connection, sharing one key prefix; and readers of what Redis holds.
 */
import { randomUUID } from 'node:crypto';
import { type FrontierInspector, type FrontierOptions, RedisFrontier } from '@shardline/frontier';
import type { Cluster, Redis } from 'ioredis';
import { expect, vi } from 'vitest';
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

/** `vi.waitFor` options for membership changes: a few heartbeats and session timeouts. */
export const SETTLE = { timeout: 15_000, interval: 25 };

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
    await vi.waitFor(async () => expect(await this.converged(), 'same epoch').toBe(true), SETTLE);
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

/** Where a host sits in a due index, with the entry's update bookkeeping. */
export interface DueLocation {
  pod: string;
  seq: number;
  pinnedUntilMs: number;
}

/**
 * Where each host of the due indexes sits: `<domain> <host>` → its entries, for every pod
 * in `pods` (read through the frontier's inspector).
 */
export async function dueLocations(
  inspector: FrontierInspector,
  pods: string[],
): Promise<Map<string, DueLocation[]>> {
  const out = new Map<string, DueLocation[]>();
  for (const pod of pods) {
    for (const e of await inspector.dueEntries(pod, { limit: 1_000_000 })) {
      const at = hostAt(e.domain, e.host);
      const list = out.get(at) ?? [];
      list.push({ pod, seq: e.seq, pinnedUntilMs: e.pinnedUntilMs });
      out.set(at, list);
    }
  }
  return out;
}

/** The key of {@link dueLocations} for a host. */
export const hostAt = (domain: string, host: string) => `${domain} ${host}`;

/** Whether every domain (one host each, the domain itself) sits in its owner's due index and in no other. */
export async function placedExactly(
  inspector: FrontierInspector,
  pods: string[],
  domains: string[],
  ownerOf: (d: string) => string,
): Promise<boolean> {
  const where = await dueLocations(inspector, pods);
  return domains.every((d) => {
    const at = where.get(hostAt(d, d)) ?? [];
    return at.length === 1 && at[0]!.pod === ownerOf(d);
  });
}

/** Waits (SETTLE) until {@link placedExactly} holds; `label` names the placement when it never does. */
export async function waitPlaced(
  inspector: FrontierInspector,
  pods: string[],
  domains: string[],
  ownerOf: (d: string) => string,
  label: string,
): Promise<void> {
  await vi.waitFor(
    async () => expect(await placedExactly(inspector, pods, domains, ownerOf), label).toBe(true),
    SETTLE,
  );
}
