/**
 * The ring the API reasons with, rebuilt from the {@link ClusterView} when membership
 * changes, and its drawing: token ranges folded into a fixed number of arcs.
 */
import { DEFAULT_VNODES, diffRings, HashRing } from '@shardline/ring';
import type { ClusterMember, ClusterView, MembershipSource, RingParams } from './cluster-view.js';
import { ApiErrorCode, ApiOptionsError, HttpError } from './errors.js';

/** Options of {@link ClusterRing}. */
export interface ClusterRingOptions {
  /** Tokens per unit weight when the view publishes no ring parameters. @default 8192 */
  vnodes?: number;
  /** Token seed when the view publishes no ring parameters. @default 0 */
  seed?: number;
  /** How long a membership snapshot is reused before the view is asked again. @default 1000 */
  refreshMs?: number;
  /** The crawl whose pods form this ring, named when none is live. @default the default crawl */
  crawlId?: string;
}

/** Membership and the ring built from it, at one moment. */
export interface ClusterSnapshot {
  members: ClusterMember[];
  epoch: number;
  params: RingParams;
  /** Where the member list came from (see {@link MembershipSource}). */
  source: MembershipSource;
  /** Ring of the alive members (possibly empty). */
  ring: HashRing;
  /** `Date.now()` when the snapshot was taken. */
  takenAtMs: number;
}

/** A run of the circle drawn in one pod's colour; `start`/`end` are fractions of 2⁶⁴. */
export interface RingArc {
  pod: string;
  start: number;
  end: number;
}

const TWO_64 = 2 ** 64;

/** Caches membership snapshots and ring drawings; `ownerOf` feeds the frontier. */
export class ClusterRing {
  readonly #view: ClusterView;
  readonly #defaults: RingParams;
  readonly #refreshMs: number;
  readonly #noPods: string;
  #snapshot: ClusterSnapshot | undefined;
  // One refresh at a time: concurrent requests share it instead of stampeding the view.
  #pending: Promise<ClusterSnapshot> | undefined;
  // Arcs depend only on the ring's tokens: keyed by fingerprint and resolution.
  readonly #arcs = new Map<string, RingArc[]>();
  // Rings of recorded epochs (owner history), oldest evicted first.
  readonly #history = new Map<string, HashRing>();

  constructor(view: ClusterView, options: ClusterRingOptions = {}) {
    if (typeof view?.read !== 'function') {
      throw new ApiOptionsError('cluster', view, 'a ClusterView (read())');
    }
    const vnodes = options.vnodes ?? DEFAULT_VNODES;
    const seed = options.seed ?? 0;
    const refreshMs = options.refreshMs ?? 1000;
    if (!Number.isSafeInteger(vnodes) || vnodes < 1) {
      throw new ApiOptionsError('ringOptions.vnodes', vnodes, 'a positive integer');
    }
    if (!Number.isSafeInteger(seed) || seed < 0) {
      throw new ApiOptionsError('ringOptions.seed', seed, 'a non-negative integer');
    }
    if (!Number.isFinite(refreshMs) || refreshMs < 0) {
      throw new ApiOptionsError('ringOptions.refreshMs', refreshMs, 'a number ≥ 0');
    }
    this.#view = view;
    this.#defaults = { vnodes, seed };
    this.#refreshMs = refreshMs;
    const crawl = options.crawlId;
    this.#noPods =
      crawl === undefined
        ? 'no live pods in the cluster: URLs cannot be assigned to an owner yet'
        : `no live pods serve crawl ${JSON.stringify(crawl)}: its URLs cannot be assigned to an owner yet; start one (shardline crawl --crawl-id ${crawl})`;
  }

  /** The current snapshot, refreshed from the view when older than `refreshMs`. */
  async snapshot(): Promise<ClusterSnapshot> {
    const now = Date.now();
    if (this.#snapshot && now - this.#snapshot.takenAtMs < this.#refreshMs) return this.#snapshot;
    this.#pending ??= this.#load().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** Owner of a domain on the last snapshot's ring (call `snapshot()` first). */
  ownerOf = (domain: string): string => {
    const ring = this.#snapshot?.ring;
    if (!ring || ring.size === 0) {
      throw new HttpError(503, ApiErrorCode.NO_PODS, this.#noPods);
    }
    return ring.owner(domain);
  };

  /**
   * The ring folded into `resolution` equal buckets, each split among the pods owning
   * parts of it in proportion to those parts; adjacent runs of one pod merged. Thousands
   * of tokens per pod are far below a pixel each, so exact ranges would draw as noise;
   * the folding keeps each pod's share exact and its position to within one bucket.
   */
  arcs(ring: HashRing, resolution: number): RingArc[] {
    const key = `${ring.fingerprint}/${resolution}`;
    const cached = this.#arcs.get(key);
    if (cached) return cached;
    const arcs = foldArcs(ring, resolution);
    if (this.#arcs.size > 64) this.#arcs.clear();
    this.#arcs.set(key, arcs);
    return arcs;
  }

  /**
   * Who owned `domain` at each recorded epoch, newest first (empty when the view keeps no
   * history). Rings are rebuilt from the recorded members and cached by epoch.
   */
  async ownerHistory(
    domain: string,
    limit: number,
  ): Promise<{ epoch: number; owner: string | null }[]> {
    const entries = (await this.#view.history?.(limit)) ?? [];
    const out: { epoch: number; owner: string | null }[] = [];
    for (const e of entries) {
      const key = `${e.epoch}/${e.vnodes}/${e.seed}/${JSON.stringify(e.members)}`;
      let ring = this.#history.get(key);
      if (!ring) {
        ring = await HashRing.create(e.members, { vnodes: e.vnodes, seed: e.seed, epoch: e.epoch });
        if (this.#history.size >= 64) this.#history.delete(this.#history.keys().next().value!);
        this.#history.set(key, ring);
      }
      out.push({ epoch: e.epoch, owner: ring.size === 0 ? null : ring.owner(domain) });
    }
    return out;
  }

  async #load(): Promise<ClusterSnapshot> {
    const { members, epoch, params: published, source } = await this.#view.read();
    const params = published ?? this.#defaults;
    members.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const live = members.filter((m) => m.alive).map((m) => ({ id: m.id, weight: m.weight }));
    const previous = this.#snapshot;
    const same =
      previous &&
      previous.epoch === epoch &&
      previous.params.vnodes === params.vnodes &&
      previous.params.seed === params.seed &&
      JSON.stringify(previous.ring.members()) === JSON.stringify(live);
    const ring = same
      ? previous.ring
      : await HashRing.create(live, { vnodes: params.vnodes, seed: params.seed, epoch });
    this.#snapshot = { members, epoch, params, source, ring, takenAtMs: Date.now() };
    return this.#snapshot;
  }
}

function foldArcs(ring: HashRing, resolution: number): RingArc[] {
  if (ring.size === 0) return [];
  const ids = ring.ids();
  if (ids.length === 1) return [{ pod: ids[0]!, start: 0, end: 1 }];
  const index = new Map(ids.map((id, i) => [id, i]));
  const weight = new Float64Array(resolution * ids.length);
  const addSpan = (pod: number, a: number, b: number): void => {
    let bucket = Math.min(resolution - 1, Math.floor(a * resolution));
    while (a < b && bucket < resolution) {
      const edge = (bucket + 1) / resolution;
      const to = Math.min(b, edge);
      weight[bucket * ids.length + pod]! += to - a;
      a = to;
      bucket++;
    }
  };
  const empty = new HashRing([], { vnodes: ring.vnodes, seed: ring.seed });
  for (const range of diffRings(empty, ring).ranges) {
    const pod = index.get(range.to ?? '');
    if (pod === undefined) continue;
    const a = Number(range.start) / TWO_64;
    const b = Number(range.end) / TWO_64;
    if (a < b) addSpan(pod, a, b);
    else {
      addSpan(pod, a, 1);
      addSpan(pod, 0, b);
    }
  }
  // Each bucket is split among its owners in proportion to what they own inside it, so
  // every pod's drawn share equals its keyspace share; the pod that ended the previous
  // bucket goes first, so runs continue across buckets and merge.
  const arcs: RingArc[] = [];
  for (let bucket = 0; bucket < resolution; bucket++) {
    const row = weight.subarray(bucket * ids.length, (bucket + 1) * ids.length);
    const total = row.reduce((a, b) => a + b, 0);
    if (total === 0) continue;
    const last = arcs[arcs.length - 1];
    const lastIndex = last ? index.get(last.pod)! : -1;
    const order = [...ids.keys()].sort((a, b) =>
      a === lastIndex ? -1 : b === lastIndex ? 1 : a - b,
    );
    let at = bucket / resolution;
    for (const pod of order) {
      if (row[pod] === 0) continue;
      const end = at + row[pod]! / total / resolution;
      const tail = arcs[arcs.length - 1];
      if (tail && tail.pod === ids[pod]) tail.end = end;
      else arcs.push({ pod: ids[pod]!, start: at, end });
      at = end;
    }
    arcs[arcs.length - 1]!.end = (bucket + 1) / resolution;
  }
  return arcs;
}
