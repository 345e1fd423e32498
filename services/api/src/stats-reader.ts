/**
 * Everything the routes read, through the frontier's `FrontierInspector`, each a bounded
 * number of Redis commands: counter hashes, ZCARDs, one page of an index, one sample of the
 * domains index. No KEYS, no SCAN.
 */
import type { DomainStats, FrontierInspector } from '@shardline/frontier';
import type { ClusterRing, ClusterSnapshot, RingArc } from './cluster-ring.js';
import type { MembershipSource } from './cluster-view.js';
import { decodeScoreCursor, encodeScoreCursor } from './cursor.js';
import { allDeadLetterPage, domainDeadLetterPage } from './dead-letter-pages.js';
import { ApiErrorCode, HttpError } from './errors.js';
import type { DOMAIN_STATUSES } from './schemas-common.js';

/** Orders of `GET /v1/domains`. */
export type DomainSort = 'depth' | 'fetched' | 'errors';
export const DOMAIN_SORTS: readonly DomainSort[] = ['depth', 'fetched', 'errors'];

/** Domains sampled (ZRANDMEMBER) to split live domains by owner; exact below this many. */
export const DOMAIN_SAMPLE = 1000;
/** Hosts listed in a domain's detail (the count is always exact). */
export const MAX_HOSTS_LISTED = 1000;

/**
 * `alive`: a member whose session is current; `expired`: still a member but its session
 * lapsed (survivors are about to reclaim it); `departed`: left the membership, still known to
 * the frontier until it is forgotten (see `@shardline/membership` departed.ts).
 */
export type PodState = 'alive' | 'expired' | 'departed';

export interface PodView {
  id: string;
  state: PodState;
  member: boolean;
  alive: boolean;
  weight: number;
  /** Redis time (ms) at which the pod's registry session expires; `null` outside the registry. */
  sessionExpiresAtMs: number | null;
  tokens: number;
  keyspaceShare: number;
  /** Hosts in the pod's due index (ZCARD, exact). */
  dueHosts: number;
  /** Names in the pod's backlog (packed domains not yet claimed). */
  backlogHosts: number;
  /** Domains with queued URLs that the ring gives this pod (estimated from a sample). */
  ownedDomains: number;
  counters: Record<string, number>;
  /** Background-fault counts the pod last reported (kind → count; `{}` if none). */
  faults: Record<string, number>;
}

export type DomainStatus = (typeof DOMAIN_STATUSES)[number];

export interface DomainRow {
  domain: string;
  status: DomainStatus;
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
  readonly #frontier: FrontierInspector;
  readonly #cluster: ClusterRing;

  /** @param frontier the frontier's reader (`frontier.inspector`, or a standalone one). */
  constructor(frontier: FrontierInspector, cluster: ClusterRing) {
    this.#frontier = frontier;
    this.#cluster = cluster;
  }

  get cluster(): ClusterRing {
    return this.#cluster;
  }

  /** Global counters and cluster totals. */
  async stats() {
    const [counters, domains, snapshot, frontierLost] = await Promise.all([
      this.#frontier.stats(),
      this.#frontier.domainCount(),
      this.#cluster.snapshot(),
      this.#frontier.frontierLost(),
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
      frontierLost,
    };
  }

  /**
   * Live domains per owner from a random sample of the domains index (one ZRANDMEMBER of
   * at most {@link DOMAIN_SAMPLE} members). Exact when the index is no larger than that.
   */
  async ownedDomains(
    snapshot: ClusterSnapshot,
  ): Promise<{ owned: Map<string, number>; info: DomainSampleInfo }> {
    // The sample comes from the depth index, which archived domains have left.
    const [indexed, sample] = await Promise.all([
      this.#frontier.listedDomainCount(),
      this.#frontier.sampleDomains(DOMAIN_SAMPLE),
    ]);
    const sampled = sample.length;
    const scale = sampled === 0 ? 0 : indexed / sampled;
    const counts = new Map<string, number>();
    let live = 0;
    for (const { domain, count } of sample) {
      if (count <= 0) continue;
      live++;
      const owner = ringOwner(snapshot, domain);
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
    const known = await this.#frontier.pods();
    const members = new Map(snapshot.members.map((m) => [m.id, m]));
    const ids = [...new Set([...members.keys(), ...known])].sort();
    const shares = snapshot.ring.size === 0 ? new Map<string, number>() : snapshot.ring.shares();
    const [owned, perPod] = await Promise.all([
      this.ownedDomains(snapshot),
      Promise.all(
        ids.map((id) =>
          Promise.all([
            this.#frontier.podStats(id),
            this.#frontier.dueHostCount(id),
            this.#frontier.podFaults(id),
            this.#frontier.backlogLength(id),
          ]),
        ),
      ),
    ]);
    const pods = ids.map((id, i): PodView => {
      const m = members.get(id);
      const [counters, dueHosts, faults, backlogHosts] = perPod[i]!;
      return {
        id,
        state: m === undefined ? 'departed' : m.alive ? 'alive' : 'expired',
        member: m !== undefined,
        alive: m?.alive ?? false,
        weight: m?.weight ?? 0,
        sessionExpiresAtMs: m?.sessionExpiresAtMs ?? null,
        tokens: tokensOf(snapshot, id),
        keyspaceShare: shares.get(id) ?? 0,
        dueHosts,
        backlogHosts,
        ownedDomains: owned.owned.get(id) ?? 0,
        counters,
        faults,
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

  /**
   * One page of domains, deepest (or most fetched / most failing) first, from the
   * frontier's index for that order (one ZREVRANGEBYSCORE, then one HGETALL per row).
   */
  async domains(sort: DomainSort, limit: number, cursorText: string | undefined) {
    const cursor = cursorText === undefined ? undefined : decodeScoreCursor(cursorText, sort);
    const rows = await this.#frontier.domains({
      sort,
      ...(cursor === undefined ? {} : { maxCount: cursor.score }),
      offset: cursor?.skip ?? 0,
      limit: limit + 1,
    });
    const page = rows.map(({ domain, count }) => ({ domain, score: count }));
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
    const [stats, snapshot, deadLetters] = await Promise.all([
      this.#frontier.domainStats(domain),
      this.#cluster.snapshot(),
      this.#frontier.deadLettersKept(domain),
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

  /**
   * A page of dead letters, newest first within a domain: of one domain, or, without one,
   * of every domain in the dead-letter domains index (most dead letters first; see
   * dead-letter-pages.ts).
   */
  async deadLetters(domain: string | undefined, limit: number, cursorText: string | undefined) {
    if (domain === undefined) return allDeadLetterPage(this.#frontier, limit, cursorText);
    await this.requireDomain(domain);
    return domainDeadLetterPage(this.#frontier, domain, limit, cursorText);
  }

  /** Throws a 404 `HttpError` unless the frontier has seen the domain (one EXISTS). */
  async requireDomain(domain: string): Promise<void> {
    if (!(await this.#frontier.hasDomain(domain))) {
      throw new HttpError(404, ApiErrorCode.UNKNOWN_DOMAIN, `unknown domain: ${domain}`);
    }
  }
}

/**
 * What a domain is doing (see `domainStatus` in schemas-common.ts). `backingOff`: one of its
 * hosts waits out a failure backoff (the domain page reads host states; the list does not).
 */
export function domainStatusOf(
  s: Pick<DomainStats, 'paused' | 'queued' | 'inFlight' | 'fetched' | 'failed' | 'dead'>,
  backingOff = false,
): DomainStatus {
  if (s.paused) return 'paused';
  if (s.fetched === 0 && s.failed + s.dead > 0) return 'failing';
  if (backingOff && s.queued + s.inFlight > 0) return 'backing-off';
  return s.queued + s.inFlight > 0 ? 'active' : 'idle';
}

function toRow(s: DomainStats, owner: string | null): DomainRow {
  return {
    status: domainStatusOf(s),
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
