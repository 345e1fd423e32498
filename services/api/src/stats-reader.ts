/**
 * Everything the routes read, each a bounded number of Redis commands: counter hashes,
 * ZCARDs, one page of an index, one sample of the domains index. No KEYS, no SCAN.
 */
import type { DeadLetter, DomainStats, RedisFrontier } from '@shardline/frontier';
import type { Cluster, Redis } from 'ioredis';
import type { ClusterRing, ClusterSnapshot, RingArc } from './cluster-ring.js';
import type { MembershipSource } from './cluster-view.js';
import {
  decodeListCursor,
  decodeScoreCursor,
  encodeListCursor,
  encodeScoreCursor,
} from './cursor.js';
import { HttpError } from './errors.js';

/** Orders of `GET /v1/domains`. */
export type DomainSort = 'depth' | 'fetched' | 'errors';
export const DOMAIN_SORTS: readonly DomainSort[] = ['depth', 'fetched', 'errors'];

/** Domains sampled (ZRANDMEMBER) to split live domains by owner; exact below this many. */
export const DOMAIN_SAMPLE = 1000;
/** Hosts listed in a domain's detail (the count is always exact). */
export const MAX_HOSTS_LISTED = 1000;

export interface PodView {
  id: string;
  member: boolean;
  alive: boolean;
  weight: number;
  /** Redis time (ms) at which the pod's registry session expires; `null` outside the registry. */
  sessionExpiresAtMs: number | null;
  tokens: number;
  keyspaceShare: number;
  /** Hosts in the pod's due index (ZCARD, exact). */
  dueHosts: number;
  /** Domains with queued URLs that the ring gives this pod (estimated from a sample). */
  ownedDomains: number;
  counters: Record<string, number>;
}

export interface DomainRow {
  domain: string;
  owner: string | null;
  queued: number;
  inFlight: number;
  fetched: number;
  failed: number;
  dead: number;
  repeats: number;
  paused: boolean;
  hostCount: number;
}

/** How `ownedDomains` figures were obtained. */
export interface DomainSampleInfo {
  /** Domains in the index (ZCARD). */
  indexed: number;
  sampled: number;
  /** True when the sample was the whole index, so owned-domain counts are exact. */
  exact: boolean;
  /** Estimated domains with queued URLs. */
  live: number;
}

function num(stats: Record<string, number>, field: string): number {
  return stats[field] ?? 0;
}

function ringOwner(snapshot: ClusterSnapshot, domain: string): string | null {
  return snapshot.ring.size === 0 ? null : snapshot.ring.owner(domain);
}

function tokensOf(snapshot: ClusterSnapshot, id: string): number {
  const weight = snapshot.ring.weight(id);
  return weight === undefined ? 0 : Math.max(1, Math.round(snapshot.params.vnodes * weight));
}

export class StatsReader {
  readonly #redis: Redis | Cluster;
  readonly #frontier: RedisFrontier;
  readonly #cluster: ClusterRing;

  constructor(redis: Redis | Cluster, frontier: RedisFrontier, cluster: ClusterRing) {
    this.#redis = redis;
    this.#frontier = frontier;
    this.#cluster = cluster;
  }

  get cluster(): ClusterRing {
    return this.#cluster;
  }

  /** Global counters and cluster totals. */
  async stats() {
    const [counters, domains, snapshot] = await Promise.all([
      this.#frontier.stats(),
      this.#redis.zcard(this.#frontier.keys.domains()),
      this.#cluster.snapshot(),
    ]);
    return {
      timeMs: Date.now(),
      epoch: snapshot.epoch,
      membership: snapshot.source,
      pods: snapshot.members.length,
      livePods: snapshot.members.filter((m) => m.alive).length,
      domains,
      queued: num(counters, 'queued'),
      inFlight: num(counters, 'inFlight'),
      fetched: num(counters, 'fetched'),
      failed: num(counters, 'failed'),
      dead: num(counters, 'dead'),
      repeats: num(counters, 'repeats'),
      counters,
    };
  }

  /**
   * Live domains per owner from a random sample of the domains index (one ZRANDMEMBER of
   * at most {@link DOMAIN_SAMPLE} members). Exact when the index is no larger than that.
   */
  async ownedDomains(
    snapshot: ClusterSnapshot,
  ): Promise<{ owned: Map<string, number>; info: DomainSampleInfo }> {
    const key = this.#frontier.keys.domains();
    const [indexed, flat] = (await Promise.all([
      this.#redis.zcard(key),
      this.#redis.zrandmember(key, DOMAIN_SAMPLE, 'WITHSCORES'),
    ])) as [number, string[]];
    const sampled = flat.length / 2;
    const scale = sampled === 0 ? 0 : indexed / sampled;
    const counts = new Map<string, number>();
    let live = 0;
    for (let i = 0; i < flat.length; i += 2) {
      if (Number(flat[i + 1]) <= 0) continue;
      live++;
      const owner = ringOwner(snapshot, flat[i]!);
      if (owner !== null) counts.set(owner, (counts.get(owner) ?? 0) + 1);
    }
    const owned = new Map<string, number>();
    for (const [pod, n] of counts) owned.set(pod, Math.round(n * scale));
    const exact = sampled >= indexed;
    return { owned, info: { indexed, sampled, exact, live: Math.round(live * scale) } };
  }

  /** Members plus pods that have counters but left the membership. */
  async pods(): Promise<{
    epoch: number;
    membership: MembershipSource;
    pods: PodView[];
    sample: DomainSampleInfo;
  }> {
    const snapshot = await this.#cluster.snapshot();
    const keys = this.#frontier.keys;
    const known = (await this.#redis.smembers(keys.pods())) as string[];
    const members = new Map(snapshot.members.map((m) => [m.id, m]));
    const ids = [...new Set([...members.keys(), ...known])].sort();
    const shares = snapshot.ring.size === 0 ? new Map<string, number>() : snapshot.ring.shares();
    const [owned, perPod] = await Promise.all([
      this.ownedDomains(snapshot),
      Promise.all(
        ids.map((id) =>
          Promise.all([this.#frontier.podStats(id), this.#redis.zcard(keys.due(id))]),
        ),
      ),
    ]);
    const pods = ids.map((id, i): PodView => {
      const m = members.get(id);
      const [counters, dueHosts] = perPod[i]!;
      return {
        id,
        member: m !== undefined,
        alive: m?.alive ?? false,
        weight: m?.weight ?? 0,
        sessionExpiresAtMs: m?.sessionExpiresAtMs ?? null,
        tokens: tokensOf(snapshot, id),
        keyspaceShare: shares.get(id) ?? 0,
        dueHosts,
        ownedDomains: owned.owned.get(id) ?? 0,
        counters,
      };
    });
    return { epoch: snapshot.epoch, membership: snapshot.source, pods, sample: owned.info };
  }

  /** The ring: parameters, each member's tokens and shares, and arcs to draw. */
  async ring(resolution: number) {
    const snapshot = await this.#cluster.snapshot();
    const { ring } = snapshot;
    const shares = ring.size === 0 ? new Map<string, number>() : ring.shares();
    const { owned, info } = await this.ownedDomains(snapshot);
    const arcs: RingArc[] = this.#cluster.arcs(ring, resolution);
    return {
      epoch: snapshot.epoch,
      membership: snapshot.source,
      vnodes: snapshot.params.vnodes,
      seed: snapshot.params.seed,
      fingerprint: ring.fingerprint,
      tokenCount: ring.tokenCount,
      members: ring.members().map((m) => ({
        id: m.id,
        weight: m.weight ?? 1,
        tokens: tokensOf(snapshot, m.id),
        keyspaceShare: shares.get(m.id) ?? 0,
        liveDomains: owned.get(m.id) ?? 0,
        liveDomainShare: info.live === 0 ? 0 : (owned.get(m.id) ?? 0) / info.live,
      })),
      sample: info,
      resolution,
      arcs,
    };
  }

  /** One page of domains, deepest (or most fetched / most failing) first. */
  async domains(sort: DomainSort, limit: number, cursorText: string | undefined) {
    const key = sortIndexKey(this.#frontier, sort);
    if (key === undefined) {
      throw new HttpError(
        501,
        'SHARDLINE_ERR_API_SORT_UNSUPPORTED',
        `sort=${sort} needs a per-domain ${sort} index that the frontier does not keep yet; sort=depth works`,
      );
    }
    const cursor = cursorText === undefined ? undefined : decodeScoreCursor(cursorText, sort);
    const max = cursor === undefined ? '+inf' : String(cursor.score);
    const flat = (await this.#redis.zrevrangebyscore(
      key,
      max,
      '-inf',
      'WITHSCORES',
      'LIMIT',
      cursor?.skip ?? 0,
      limit + 1,
    )) as string[];
    const page: { domain: string; score: number }[] = [];
    for (let i = 0; i < flat.length && page.length < limit + 1; i += 2) {
      page.push({ domain: flat[i]!, score: Number(flat[i + 1]) });
    }
    const more = page.length > limit;
    if (more) page.length = limit;
    let next: string | null = null;
    const last = page[page.length - 1];
    if (more && last) {
      let ties = 0;
      for (let i = page.length - 1; i >= 0 && page[i]!.score === last.score; i--) ties++;
      // A page made entirely of one score continues the same tie run.
      const carried =
        cursor && cursor.score === last.score && ties === page.length ? cursor.skip : 0;
      next = encodeScoreCursor({ sort, score: last.score, skip: carried + ties });
    }
    const [snapshot, stats] = await Promise.all([
      this.#cluster.snapshot(),
      Promise.all(page.map((p) => this.#frontier.domainStats(p.domain))),
    ]);
    const items = stats.map((s) => toRow(s, ringOwner(snapshot, s.domain)));
    return { sort, items, nextCursor: next };
  }

  /** Exact counters of one domain; 404 when the frontier never saw it. */
  async domain(domain: string) {
    await this.requireDomain(domain);
    const keys = this.#frontier.keys;
    const [stats, snapshot, deadLetters] = await Promise.all([
      this.#frontier.domainStats(domain),
      this.#cluster.snapshot(),
      this.#redis.llen(keys.deadLetters(domain)),
    ]);
    const { hosts, ...rest } = stats;
    return {
      ...rest,
      owner: ringOwner(snapshot, domain),
      hostCount: hosts.length,
      hosts: hosts.slice(0, MAX_HOSTS_LISTED),
      deadLettersKept: deadLetters,
    };
  }

  /** A page of a domain's dead letters, newest first. */
  async deadLetters(domain: string, limit: number, cursorText: string | undefined) {
    await this.requireDomain(domain);
    const key = this.#frontier.keys.deadLetters(domain);
    const length = await this.#redis.llen(key);
    // Offsets in the cursor count from the head as it was at the first page; letters
    // pushed since then moved older ones down by the growth of the list.
    const start =
      cursorText === undefined
        ? { key: domain, offset: 0, length }
        : decodeListCursor(cursorText, domain);
    const offset = start.offset + Math.max(0, length - start.length);
    const items: DeadLetter[] = await this.#frontier.deadLetters(domain, { offset, limit });
    const nextCursor =
      items.length === limit && offset + items.length < length
        ? encodeListCursor({ ...start, offset: start.offset + items.length })
        : null;
    return { domain, total: length, items, nextCursor };
  }

  /** Throws a 404 `HttpError` unless the domain has a counter hash (one EXISTS). */
  async requireDomain(domain: string): Promise<void> {
    const exists = await this.#redis.exists(this.#frontier.keys.domain(domain));
    if (exists === 0) {
      throw new HttpError(404, 'SHARDLINE_ERR_API_UNKNOWN_DOMAIN', `unknown domain: ${domain}`);
    }
  }
}

/**
 * The ZSET that orders domains for a sort. The frontier keeps only `<prefix>:domains`
 * (domain → URLs queued); `fetched` and `errors` need ZSETs it does not keep yet.
 */
function sortIndexKey(frontier: RedisFrontier, sort: DomainSort): string | undefined {
  return sort === 'depth' ? frontier.keys.domains() : undefined;
}

function toRow(s: DomainStats, owner: string | null): DomainRow {
  return {
    domain: s.domain,
    owner,
    queued: s.queued,
    inFlight: s.inFlight,
    fetched: s.fetched,
    failed: s.failed,
    dead: s.dead,
    repeats: s.repeats,
    paused: s.paused,
    hostCount: s.hosts.length,
  };
}
