/**
 * The API's view of cluster membership, behind one small interface so routes never know
 * where the member list comes from: the pod registry (`@shardline/membership`, the
 * default), a fixed list (`--pods`), or the pods the frontier has seen.
 */
import { DEFAULT_PREFIX, FrontierInspector } from '@shardline/frontier';
import { MembershipReader } from '@shardline/membership';
import type { Cluster, Redis } from 'ioredis';

/** One pod as the membership sees it. */
export interface ClusterMember {
  id: string;
  /** Capacity weight (ring tokens = vnodes × weight). */
  weight: number;
  /** Whether the pod's session is current (its expiry is ahead of Redis time). */
  alive: boolean;
  /** Redis time (ms) at which the pod's session expires unless renewed; registry only. */
  sessionExpiresAtMs?: number;
}

/** Ring parameters every pod uses; published by the membership registry. */
export interface RingParams {
  vnodes: number;
  seed: number;
}

/**
 * Where a member list came from: `registry` (the pods' own registry), `frontier-pods`
 * (no pod ever joined the registry, so the pods seen in the frontier counters stand in),
 * `static` (a fixed list).
 */
export type MembershipSource = 'registry' | 'frontier-pods' | 'static';

/** Membership at one moment. */
export interface ClusterState {
  /** Members of the current epoch, alive or not yet expired, any order. */
  members: ClusterMember[];
  /** Membership epoch; increases on every change (0 when the source has none). */
  epoch: number;
  /** Ring parameters the source publishes; `undefined` = the `ClusterRing`'s options. */
  params?: RingParams;
  source: MembershipSource;
}

/** One recorded epoch of the ring (see `@shardline/membership` history.ts). */
export interface RingHistoryEntry {
  epoch: number;
  vnodes: number;
  seed: number;
  members: { id: string; weight: number }[];
}

/** A snapshot source of cluster membership. */
export interface ClusterView {
  /** The membership now (one read; `ClusterRing` caches it). */
  read(): Promise<ClusterState>;
  /** Recorded epochs, newest first (sources without a history leave it out). */
  history?(limit: number): Promise<RingHistoryEntry[]>;
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

  async read(): Promise<ClusterState> {
    return {
      members: this.#members.map((m) => ({ ...m })),
      epoch: this.#epoch,
      source: 'static',
    };
  }
}

/**
 * The pods the frontier has seen (`FrontierInspector.pods()`, one SMEMBERS bounded by the
 * number of pods), weight 1 each. It knows no sessions, so every pod is reported alive and the
 * epoch is 0. Stands in for the registry while no pod has ever joined it (crawlers that
 * run without membership, e.g. a single `shardline crawl`).
 */
export class FrontierPodsClusterView implements ClusterView {
  readonly #frontier: FrontierInspector;

  constructor(frontier: FrontierInspector) {
    this.#frontier = frontier;
  }

  async read(): Promise<ClusterState> {
    const ids = await this.#frontier.pods();
    return {
      members: ids.map((id) => ({ id, weight: 1, alive: true })),
      epoch: 0,
      source: 'frontier-pods',
    };
  }
}

/**
 * The pod registry (`MembershipReader`): the member list of the current epoch with each
 * pod's weight, session expiry and liveness (Redis time), the epoch, and the stored ring
 * parameters — the same inputs every crawler builds its ring from.
 *
 * While the registry has never been used (epoch 0, no members) it falls back to
 * {@link FrontierPodsClusterView} and says so (`source: 'frontier-pods'`). Once any pod
 * has joined (epoch > 0), an empty registry means every pod left: the view then reports
 * no members rather than pods that may be long gone.
 */
export class RegistryClusterView implements ClusterView {
  readonly #reader: MembershipReader;
  readonly #fallback: FrontierPodsClusterView;

  /** @param prefix key prefix shared by the frontier and the registry. @default 'sl' */
  constructor(redis: Redis | Cluster, prefix = DEFAULT_PREFIX) {
    this.#reader = new MembershipReader(redis, prefix);
    this.#fallback = new FrontierPodsClusterView(new FrontierInspector({ redis, prefix }));
  }

  history(limit: number): Promise<RingHistoryEntry[]> {
    return this.#reader.ringHistory(limit);
  }

  async read(): Promise<ClusterState> {
    const [members, epoch, params] = await Promise.all([
      this.#reader.members(),
      this.#reader.epoch(),
      this.#reader.ringParams(),
    ]);
    if (members.length === 0 && epoch === 0) return this.#fallback.read();
    return {
      members: members.map((m) => ({
        id: m.id,
        weight: m.weight,
        alive: m.alive,
        sessionExpiresAtMs: m.sessionExpiresAtMs,
      })),
      epoch,
      params,
      source: 'registry',
    };
  }
}
