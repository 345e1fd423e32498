/**
 * The API's view of cluster membership, behind one small interface so the real pod
 * registry (`@shardline/membership`) can replace the interim view without touching routes.
 */
import type { FrontierKeys } from '@shardline/frontier';
import type { Cluster, Redis } from 'ioredis';

/** One pod as the membership sees it. */
export interface ClusterMember {
  id: string;
  /** Capacity weight (ring tokens = vnodes × weight). */
  weight: number;
  /** Whether the pod's heartbeat is current. */
  alive: boolean;
  /** Redis time (ms) of the pod's last heartbeat, when the view knows it. */
  lastHeartbeatMs?: number;
}

/** Ring parameters every pod uses; published by the membership registry. */
export interface RingParams {
  vnodes: number;
  seed: number;
}

/** A snapshot source of cluster membership. */
export interface ClusterView {
  /** Current members (alive or not yet expired), any order. */
  members(): Promise<ClusterMember[]>;
  /** Membership epoch; increases on every change. */
  epoch(): Promise<number>;
  /** Ring parameters, when the view knows them (else the server's `ringOptions` apply). */
  ringParams?(): Promise<RingParams>;
}

/** A fixed membership (tests, single-pod setups, `shardline api --pods a,b`). */
export class StaticClusterView implements ClusterView {
  readonly #members: ClusterMember[];
  readonly #epoch: number;

  constructor(members: readonly (string | { id: string; weight?: number })[], epoch = 0) {
    this.#members = members.map((m) =>
      typeof m === 'string'
        ? { id: m, weight: 1, alive: true }
        : { id: m.id, weight: m.weight ?? 1, alive: true },
    );
    this.#epoch = epoch;
  }

  async members(): Promise<ClusterMember[]> {
    return this.#members.map((m) => ({ ...m }));
  }

  async epoch(): Promise<number> {
    return this.#epoch;
  }
}

/**
 * Interim view until the membership registry exists: the pods the frontier has seen
 * (`<prefix>:pods`, one SMEMBERS bounded by the number of pods), weight 1 each. It knows
 * no heartbeats, so every pod is reported alive and the epoch is 0.
 */
export class FrontierPodsClusterView implements ClusterView {
  readonly #redis: Redis | Cluster;
  readonly #keys: FrontierKeys;

  constructor(redis: Redis | Cluster, keys: FrontierKeys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  async members(): Promise<ClusterMember[]> {
    const ids = (await this.#redis.smembers(this.#keys.pods())) as string[];
    return ids.sort().map((id) => ({ id, weight: 1, alive: true }));
  }

  async epoch(): Promise<number> {
    return 0;
  }
}
