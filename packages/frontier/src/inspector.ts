/**
 * The read side of the frontier's Redis layout: counters, domain and dead-letter indexes,
 * due indexes, host state and queues, decoded into typed objects. The only way code
 * outside this package reads frontier state, so that key spelling (keys.ts) and encoding
 * (codec.ts) can change without breaking the API, the CLI or membership.
 */
import type { Cluster, Redis } from 'ioredis';
import { checkName, checkPage, checkPod, isName } from './checks.js';
import {
  DOMAIN_FIELD,
  decodeHostState,
  dueMember,
  HOST_STATE_FIELD,
  unpackDeadLetter,
  unpackHeldLease,
  withPoliteness,
} from './codec.js';
import {
  mergeArchivedFields,
  readArchived,
  readDomainStats,
  readLiveHosts,
} from './domain-reads.js';
import { FrontierArgumentError } from './errors.js';
import { readHostQueue, readQueueHead } from './host-queue.js';
import type { FrontierLostRecord } from './identity.js';
import { readDeadLetterDomainPage, readDomainPage, sampleDomainIndex } from './index-pages.js';
import { FrontierKeys } from './keys.js';
import { type FrontierInspectorOptions, resolveInspectorOptions } from './options.js';
import { readBacklogPage, readDueEntries, readDueHosts, readListedDomains } from './pod-reads.js';
import type {
  CounterStats,
  DeadLetter,
  DeadLetterDomainPage,
  DomainCount,
  DomainPage,
  DomainStats,
  DueEntry,
  DueHost,
  HeldLease,
  HostState,
  QueuedUrl,
  UrlStatus,
} from './read-types.js';
import { readUrlStatus } from './url-status.js';

/** Reads frontier state; never writes. Needs no pod id and no ring (API, CLI, tools). */
export class FrontierInspector {
  readonly #redis: Redis | Cluster;
  readonly #keys: FrontierKeys;

  constructor(options: FrontierInspectorOptions) {
    const { redis, prefix, crawlId } = resolveInspectorOptions(options);
    this.#redis = redis;
    this.#keys = new FrontierKeys(prefix, crawlId);
  }

  /** The crawl this inspector reads. */
  get crawlId(): string {
    return this.#keys.crawlId;
  }

  // ───────────────────────────── counters ─────────────────────────────

  /** Global counters (eventually consistent sums; see the README). */
  async stats(): Promise<CounterStats> {
    return numbers(await this.#redis.hgetall(this.#keys.stats()));
  }

  /** One pod's counters (eventually consistent sums). */
  async podStats(pod: string): Promise<CounterStats> {
    return numbers(await this.#redis.hgetall(this.#keys.podStats(checkPod(pod))));
  }

  /** Exact counters of one domain (one HGETALL, one SMEMBERS, one HGET of its archive, no scan). */
  domainStats(domain: string): Promise<DomainStats> {
    return readDomainStats(this.#redis, this.#keys, checkName('domain', domain));
  }

  /**
   * Whether nothing is queued or in flight anywhere, exactly: the own counters (`q`, `f`,
   * kept inside the scripts) of every domain listed in any pod's due index or backlog — where
   * a domain with queued URLs or leases out always sits. {@link stats} answers the same in O(1) but
   * its sums can stay off after a pod dies between a script and its counter update (kill -9);
   * this costs a scan of the due indexes and one read per listed domain.
   */
  async settled(): Promise<boolean> {
    for (const pod of await this.pods()) {
      if ((await this.domainsWithWork(pod, 1)) > 0) return false;
    }
    return true;
  }

  /**
   * How many domains of a pod's due index or backlog have URLs queued or leases out (exact:
   * the due index also lists finished hosts until they are parked); counting stops at
   * `stopAt`. A scan of the index and one read per listed domain.
   */
  async domainsWithWork(pod: string, stopAt = Number.POSITIVE_INFINITY): Promise<number> {
    const domains = await this.queuedDomainsOf(pod);
    let found = 0;
    for (let i = 0; i < domains.length && found < stopAt; i += 500) {
      const counts = await Promise.all(domains.slice(i, i + 500).map((d) => this.#work(d)));
      found += counts.filter((n) => n > 0).length;
    }
    return Math.min(found, stopAt);
  }

  /** URLs queued plus leases out of a domain, from its exact counters. */
  async #work(domain: string): Promise<number> {
    const [q, f] = (await this.#redis.hmget(
      this.#keys.domain(domain),
      DOMAIN_FIELD.queued,
      DOMAIN_FIELD.inFlight,
    )) as (string | null)[];
    // No live counters: a packed domain (backlog) counts what its archive field holds.
    if (q === null && f === null) {
      return Number((await readArchived(this.#redis, this.#keys, domain))?.domain.q ?? 0);
    }
    return Number(q ?? 0) + Math.max(0, Number(f ?? 0));
  }

  /**
   * Whether a pod found this frontier lost (Redis lost its data under it; see
   * `SHARDLINE_ERR_FRONTIER_LOST`), and when; `null` when none did.
   */
  async frontierLost(): Promise<FrontierLostRecord | null> {
    const h = await this.#redis.hgetall(this.#keys.lost());
    if (!h.at) return null;
    return {
      atMs: Number(h.at),
      pod: h.pod ?? '',
      expected: h.expected ?? '',
      found: h.found ? h.found : null,
    };
  }

  // ───────────────────────────── domains ─────────────────────────────

  /** Domains listed in the domain indexes: all but the archived ones (one ZCARD). */
  listedDomainCount(): Promise<number> {
    return this.#redis.zcard(this.#keys.domains());
  }

  /**
   * Domains the frontier has indexed (those that ever had a URL queued): the depth index's
   * ZCARD plus the archived domains, which left it (`archivedDomains`, eventually consistent).
   */
  async domainCount(): Promise<number> {
    const [listed, archived] = await Promise.all([
      this.#redis.zcard(this.#keys.domains()),
      this.#redis.hget(this.#keys.stats(), 'archivedDomains'),
    ]);
    return listed + Math.max(0, Number(archived ?? 0));
  }

  /**
   * Whether the frontier has seen the domain (its counter hash exists; one EXISTS). A
   * string that cannot be a domain name (see `FrontierArgumentError`) is not one: false.
   */
  async hasDomain(domain: string): Promise<boolean> {
    if (!isName(domain)) return false;
    if ((await this.#redis.exists(this.#keys.domain(domain))) > 0) return true;
    return (
      (await this.#redis.hexists(this.#keys.archive(domain), this.#keys.archiveField(domain))) > 0
    );
  }

  /** Every host of a domain that ever had a URL or a policy, sorted. */
  async domainHosts(domain: string): Promise<string[]> {
    const [hosts, archived] = await Promise.all([
      readLiveHosts(this.#redis, this.#keys, checkName('domain', domain)),
      readArchived(this.#redis, this.#keys, domain),
    ]);
    return [...new Set([...hosts, ...(archived?.hosts.keys() ?? [])])].sort();
  }

  /**
   * Domains from one of the domain indexes, highest count first (paged with
   * `offset`/`limit`, or keyset-paged with `maxCount`): `depth` URLs queued (the default),
   * `fetched` URLs fetched, `errors` failed attempts plus dead letters. Eventually
   * consistent (see the README).
   */
  domains(page: DomainPage = {}): Promise<DomainCount[]> {
    return readDomainPage(this.#redis, this.#keys, page);
  }

  /**
   * Up to `count` distinct domains of the depth index picked at random, with their
   * queued counts (one ZRANDMEMBER): a sample for estimates over many domains.
   */
  sampleDomains(count: number): Promise<DomainCount[]> {
    return sampleDomainIndex(this.#redis, this.#keys, count);
  }

  // ───────────────────────────── dead letters ─────────────────────────────

  /** Domains holding dead letters (one ZCOUNT of the dead-letter domains index). */
  deadLetterDomainCount(): Promise<number> {
    return this.#redis.zcount(this.#keys.deadLetterDomains(), '(0', '+inf');
  }

  /**
   * Domains holding dead letters, most first (paged with `offset`/`limit`, or keyset-paged
   * with `maxCount`), from the dead-letter domains index: one ZREVRANGEBYSCORE, no scan.
   * The count is the domain's `dead` counter (eventually consistent).
   */
  deadLetterDomains(page: DeadLetterDomainPage = {}): Promise<DomainCount[]> {
    return readDeadLetterDomainPage(this.#redis, this.#keys, page);
  }

  /**
   * A domain's count in the dead-letter domains index (one ZSCORE): its `dead` counter,
   * eventually consistent, briefly negative in a requeue race (see the README); 0 when the
   * domain is not listed or `domain` cannot be a domain name.
   */
  async deadLettersHeld(domain: string): Promise<number> {
    if (!isName(domain)) return 0;
    return Number((await this.#redis.zscore(this.#keys.deadLetterDomains(), domain)) ?? 0);
  }

  /**
   * Dead letters kept in a domain's list (at most `deadLetterCap`; one LLEN); 0 when
   * `domain` cannot be a domain name.
   */
  async deadLettersKept(domain: string): Promise<number> {
    if (!isName(domain)) return 0;
    return this.#redis.llen(this.#keys.deadLetters(domain));
  }

  /** A domain's dead letters, newest first. */
  async deadLetters(
    domain: string,
    page: { offset?: number; limit?: number } = {},
  ): Promise<DeadLetter[]> {
    checkName('domain', domain);
    const { offset, limit } = checkPage(page);
    const rows = (await this.#redis.lrange(
      this.#keys.deadLetters(domain),
      offset,
      offset + limit - 1,
    )) as string[];
    return rows.map((row) => unpackDeadLetter(domain, row));
  }

  // ───────────────────────────── pods and due indexes ─────────────────────────────

  /** A pod's background-fault counts as it last reported them (`RedisFrontier.reportFaults`). */
  async podFaults(pod: string): Promise<Record<string, number>> {
    const hash = (await this.#redis.hgetall(this.#keys.podFaults(checkPod(pod)))) as Record<
      string,
      string
    >;
    return Object.fromEntries(Object.entries(hash).map(([k, v]) => [k, Number(v)]));
  }

  /** Pods that have ever had a due index, sorted. */
  async pods(): Promise<string[]> {
    return ((await this.#redis.smembers(this.#keys.pods())) as string[]).sort();
  }

  /** Hosts in a pod's due index (one ZCARD, exact). */
  dueHostCount(pod: string): Promise<number> {
    return this.#redis.zcard(this.#keys.due(checkPod(pod)));
  }

  /** Names in a pod's backlog: hosts of packed domains it claims as it has room (exact). */
  backlogLength(pod: string): Promise<number> {
    return this.#redis.llen(this.#keys.backlog(checkPod(pod)));
  }

  /**
   * A page of a pod's backlog, oldest first: hosts of packed domains (`packNewDomains`), due
   * now but not in its due index until a claim of the pod takes them. A name may repeat.
   */
  backlogHosts(
    pod: string,
    page: { offset?: number; limit?: number } = {},
  ): Promise<{ domain: string; host: string }[]> {
    return readBacklogPage(this.#redis, this.#keys, pod, page);
  }

  /** A pod's due index, earliest first: which hosts it will visit and when. */
  dueHosts(pod: string, page: { offset?: number; limit?: number } = {}): Promise<DueHost[]> {
    return readDueHosts(this.#redis, this.#keys, pod, page);
  }

  /**
   * A page of a pod's due index with each entry's update bookkeeping (seq, pin): for
   * diagnosing handoffs. Two reads, not one snapshot: an entry updated in between shows
   * its new meta.
   */
  dueEntries(pod: string, page: { offset?: number; limit?: number } = {}): Promise<DueEntry[]> {
    return readDueEntries(this.#redis, this.#keys, pod, page);
  }

  /**
   * Distinct domains in a pod's due index (queued or with leases out) or its backlog
   * (packed), sorted; at most `max` (the scan stops there: a wide crawl's pod lists millions).
   */
  queuedDomainsOf(pod: string, max = Number.POSITIVE_INFINITY): Promise<string[]> {
    if (max !== Number.POSITIVE_INFINITY && !(Number.isSafeInteger(max) && max >= 1)) {
      throw new FrontierArgumentError('max', max, 'a positive integer');
    }
    return readListedDomains(this.#redis, this.#keys, pod, max);
  }

  /**
   * Whether some host of `domain` has URLs queued or in flight but is missing from
   * `owner`'s due index: stranded by an enqueuer with a stale ring that put it in the
   * index of a pod that has since gone. `reindex` repairs it.
   */
  async isStranded(domain: string, owner: string): Promise<boolean> {
    checkPod(owner);
    for (const host of await this.domainHosts(domain)) {
      const [q, f] = (await this.#redis.hmget(
        this.#keys.hostState(domain, host),
        HOST_STATE_FIELD.queued,
        HOST_STATE_FIELD.inFlight,
      )) as (string | null)[];
      if (Number(q ?? 0) <= 0 && Number(f ?? 0) <= 0) continue;
      const score = await this.#redis.zscore(this.#keys.due(owner), dueMember(domain, host));
      if (score === null) return true;
    }
    return false;
  }

  // ───────────────────────────── hosts ─────────────────────────────

  /**
   * A host's politeness (shared by every crawl) and its scheduling state in this crawl
   * (one HGETALL; two outside the default crawl).
   */
  async hostState(domain: string, host: string): Promise<HostState> {
    checkName('domain', domain);
    checkName('host', host);
    const [live, archived] = await Promise.all([
      this.#redis.hgetall(this.#keys.hostState(domain, host)),
      readArchived(this.#redis, this.#keys, domain),
    ]);
    const fromArchive = archived?.hosts.get(host);
    const own = fromArchive ? mergeArchivedFields(fromArchive, live) : live;
    if (this.#keys.isDefaultCrawl) return decodeHostState(domain, host, own);
    const polite = await this.#redis.hgetall(this.#keys.hostPoliteness(domain, host));
    return decodeHostState(domain, host, withPoliteness(own, polite));
  }

  /**
   * The leases out on a host (one HGETALL; at most its concurrency), e.g. to find the lease
   * of a URL whose holder is not the caller.
   */
  async hostLeases(domain: string, host: string): Promise<HeldLease[]> {
    checkName('domain', domain);
    checkName('host', host);
    const hash = await this.#redis.hgetall(this.#keys.hostLeases(domain, host));
    return Object.entries(hash).map(([field, value]) => unpackHeldLease(domain, field, value));
  }

  /** The URL a host hands out next, or `null` when nothing is queued (host-queue.ts). */
  async queueHead(domain: string, host: string): Promise<QueuedUrl | null> {
    checkName('domain', domain);
    checkName('host', host);
    return readQueueHead(this.#redis, this.#keys, domain, host);
  }

  /** A page of the URLs waiting in a host's queue, in hand-out order (one read per level touched). */
  async hostQueue(
    domain: string,
    host: string,
    page: { offset?: number; limit?: number } = {},
  ): Promise<QueuedUrl[]> {
    checkName('domain', domain);
    checkName('host', host);
    return readHostQueue(this.#redis, this.#keys, domain, host, checkPage(page));
  }

  /**
   * Where a URL is in the crawl (URLFrontier's GetURLStatus): the seen-set, then the host's
   * leases, queue, refetch schedule and the domain's dead letters (url-status.ts). `url` is
   * canonical, as the frontier stored it; at most `maxScan` list entries are read.
   */
  urlStatus(
    url: { url: string; host: string; domain: string },
    maxScan = 100_000,
  ): Promise<UrlStatus> {
    checkName('domain', url.domain);
    checkName('host', url.host);
    return readUrlStatus(this.#redis, this.#keys, url, maxScan);
  }
}

function numbers(hash: Record<string, string>): CounterStats {
  const out: CounterStats = {};
  for (const [k, v] of Object.entries(hash)) out[k] = Number(v);
  return out;
}
