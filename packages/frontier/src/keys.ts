/**
 * Every Redis key and channel the frontier uses, spelled in one place. Scripts receive
 * these names in KEYS; the dynamic per-host and per-bucket keys that scripts build from a
 * domain's key root are spelled here too (for tests, tools and the README), and must
 * match `lua/includes/host.lua`, `lua/includes/queue.lua` and `lua/includes/seen.lua`.
 *
 * All keys of one domain share the hash tag `{d:<domain>}`, so every domain script runs
 * in one slot of a Redis Cluster; a pod's due index and its meta share `{p:<pod>}`.
 *
 * Crawls: the default crawl's keys are the layout from before crawls. Crawl X keeps a
 * domain's keys under `<prefix>:{d:<domain>}:c:X:` (same hash tag, same slot) and its
 * global keys (counters, indexes, pods, due indexes, wake channels) under `<prefix>:c:X:`.
 * A host's politeness fields stay under the default crawl's root for every crawl
 * ({@link politeRoot}), so crawls share one delay per host. The identity, the loss record
 * and the crawl registry are the frontier's, shared.
 */
import { archiveKey } from './archive.js';
import { crawlKeyPrefix, DEFAULT_CRAWL } from './crawl-id.js';
import type { DomainSort } from './read-types.js';

export class FrontierKeys {
  readonly prefix: string;
  readonly crawlId: string;
  /** Prefix of the crawl's global keys: the frontier prefix for the default crawl. */
  readonly #global: string;
  /** Tail of a domain's key root after its hash tag: '' for the default crawl. */
  readonly #tail: string;

  constructor(prefix: string, crawlId: string = DEFAULT_CRAWL) {
    this.prefix = prefix;
    this.crawlId = crawlId;
    const isDefault = crawlId === DEFAULT_CRAWL;
    this.#global = crawlKeyPrefix(prefix, crawlId);
    this.#tail = isDefault ? '' : `c:${crawlId}:`;
  }

  /** Whether this is the default crawl, whose keys are the politeness keys too. */
  get isDefaultCrawl(): boolean {
    return this.#tail === '';
  }

  /** Key root of a domain in this crawl: the prefix of its keys (passed to scripts as a key). */
  root(domain: string): string {
    return `${this.prefix}:{d:${domain}}:${this.#tail}`;
  }
  /**
   * Politeness root of a domain, shared by every crawl: the default crawl's root. Scripts
   * derive it from {@link root} (host.lua's polite_root).
   */
  politeRoot(domain: string): string {
    return `${this.prefix}:{d:${domain}}:`;
  }
  /**
   * HASH: a host's politeness fields (next-allowed, delays, backoff, adaptive delay, block),
   * shared by every crawl; for the default crawl the same hash as {@link hostState}.
   */
  hostPoliteness(domain: string, host: string): string {
    return `${this.politeRoot(domain)}h:${host}:s`;
  }
  /** HASH of the domain that holds its block (`bu`), shared by every crawl. */
  domainPoliteness(domain: string): string {
    return `${this.politeRoot(domain)}d`;
  }
  /** SCAN MATCH pattern of every per-domain key (tools and tests). */
  domainKeysPattern(): string {
    return `${this.prefix}:{d:*`;
  }
  /** HASH: domain counters, paused flag, seen-bucket level/split. */
  domain(domain: string): string {
    return `${this.root(domain)}d`;
  }
  /**
   * SET: the hosts of the domain that ever had a URL or a policy, but the first enqueued,
   * which the domain hash's `h1` holds while this set does not exist (host.lua host_add).
   */
  hosts(domain: string): string {
    return `${this.root(domain)}H`;
  }
  /** SET (intset) of 64-bit fingerprints: one linear-hashing bucket of the seen-set. */
  seenBucket(domain: string, bucket: number): string {
    return `${this.root(domain)}s:${bucket}`;
  }
  /**
   * HASH shared with other domains of the same Cluster slot (archive.ts): an idle small
   * domain folded into one field, {@link archiveField}, by lua/includes/archive.lua.
   */
  archive(domain: string): string {
    return archiveKey(this.prefix, domain);
  }
  /** The domain's field in its {@link archive} hash: the crawl's tail, then the domain. */
  archiveField(domain: string): string {
    return `${this.#tail}${domain}`;
  }
  /** LIST: the domain's dead letters, newest first. */
  deadLetters(domain: string): string {
    return `${this.root(domain)}x`;
  }
  /**
   * HASH: a host's scheduling state in this crawl (for the default crawl also its
   * politeness fields, see {@link hostPoliteness}). While the host's queue is small (at most
   * 8 entries and 512 B) it is folded into the field `Q` of this hash instead of
   * {@link hostLevels} and {@link hostQueue} (queue.lua, host-queue.ts).
   */
  hostState(domain: string, host: string): string {
    return `${this.root(domain)}h:${host}:s`;
  }
  /** ZSET: a host's non-empty priority levels, while its queue is too big to fold. */
  hostLevels(domain: string, host: string): string {
    return `${this.root(domain)}h:${host}:l`;
  }
  /** LIST: a host's queue entries at one priority level, while its queue is too big to fold. */
  hostQueue(domain: string, host: string, level: number): string {
    return `${this.root(domain)}h:${host}:q:${level}`;
  }
  /** ZSET: a host's refetch schedule buckets, member = score = the bucket's due time (ms). */
  hostRefetchBuckets(domain: string, host: string): string {
    return `${this.root(domain)}h:${host}:r`;
  }
  /** LIST: a host's refetches due at `dueMs`, each `<level>,<entry>`. */
  hostRefetchBucket(domain: string, host: string, dueMs: string | number): string {
    return `${this.root(domain)}h:${host}:r:${dueMs}`;
  }
  /** HASH: a host's leases. */
  hostLeases(domain: string, host: string): string {
    return `${this.root(domain)}h:${host}:L`;
  }
  /** SET: a host's leases whose politeness slot was freed while they stay out (`freeSlot`). */
  hostFreedLeases(domain: string, host: string): string {
    return `${this.root(domain)}h:${host}:U`;
  }
  /** ZSET: deadlines of a host's leases that can expire. */
  hostLeaseDeadlines(domain: string, host: string): string {
    return `${this.root(domain)}h:${host}:D`;
  }
  /** ZSET: a pod's due index, member `<domain>/<host>` → due time (ms). */
  due(pod: string): string {
    return `${this.#global}:pod:{p:${pod}}:due`;
  }
  /** HASH: due-index member → `<seq>:<pinUntilMs>`. */
  dueMeta(pod: string): string {
    return `${this.#global}:pod:{p:${pod}}:duem`;
  }
  /**
   * LIST: a pod's backlog, members `<domain>/<host>` of packed domains (lua/includes/
   * archive.lua) not yet in its due index; due-take-3.lua moves them there as it claims.
   */
  backlog(pod: string): string {
    return `${this.#global}:pod:{p:${pod}}:dueb`;
  }
  /** HASH: a pod's counters (eventually consistent). */
  podStats(pod: string): string {
    return `${this.#global}:pod:{p:${pod}}:stats`;
  }
  /** HASH: a pod's background-fault counts as it last reported them (kind → count). */
  podFaults(pod: string): string {
    return `${this.#global}:pod:{p:${pod}}:faults`;
  }
  /** HASH: global counters (eventually consistent). */
  stats(): string {
    return `${this.#global}:stats`;
  }
  /** ZSET: domain → URLs queued (eventually consistent), for paging domains by depth. */
  domains(): string {
    return `${this.#global}:domains`;
  }
  /** ZSET: domain → URLs fetched (eventually consistent), for paging by fetches. */
  domainsByFetched(): string {
    return `${this.#global}:domains:fetched`;
  }
  /**
   * ZSET: domain → errors, i.e. failed attempts plus dead letters (`failed + dead` of
   * `domainStats`; eventually consistent), for paging by errors.
   */
  domainsByErrors(): string {
    return `${this.#global}:domains:errors`;
  }
  /** The ZSET that orders domains for `sort`. */
  domainIndex(sort: DomainSort): string {
    if (sort === 'fetched') return this.domainsByFetched();
    if (sort === 'errors') return this.domainsByErrors();
    return this.domains();
  }
  /**
   * ZSET: domain → dead letters held (the domain's `dead` counter; eventually
   * consistent). A domain leaves it when its count drops to 0 (dead letters requeued).
   */
  deadLetterDomains(): string {
    return `${this.#global}:domains:dead`;
  }
  /**
   * STRING: the frontier's identity, a random id written once (SET NX) by the first pod.
   * Pods remember it and check it: missing or changed means Redis lost the frontier.
   */
  identity(): string {
    return `${this.prefix}:frontier:id`;
  }
  /** HASH: why and when a pod found the frontier lost (`at`, `pod`, `expected`, `found`). */
  lost(): string {
    return `${this.prefix}:frontier:lost`;
  }
  /** SET: pods that have had a due index. */
  pods(): string {
    return `${this.#global}:pods`;
  }
  /** Pub/sub channel that carries a pod's new earliest due time when it moves earlier. */
  wakeChannel(pod: string): string {
    return `${this.#global}:wake:${pod}`;
  }
  /**
   * HASH: the crawl registry, crawl id → `<createdAtMs>,<state>` (`active` | `deleting`),
   * shared by every crawl. Hash tag `{crawls}`, with every crawl's {@link crawlDomains}, so
   * one script registers a crawl and records its domains.
   */
  crawls(): string {
    return `${this.prefix}:{crawls}`;
  }
  /**
   * SET: every domain this crawl ever wrote keys of (non-default crawls only), so that
   * deleting the crawl finds its keys without a scan.
   */
  crawlDomains(): string {
    return `${this.#global}:{crawls}:domains`;
  }
  /** Every global key of this crawl except the per-pod ones (deleting a crawl). */
  crawlGlobalKeys(): string[] {
    return [
      this.stats(),
      this.domains(),
      this.domainsByFetched(),
      this.domainsByErrors(),
      this.deadLetterDomains(),
      this.pods(),
    ];
  }
  /** Every key of one pod in this crawl (deleting a crawl). */
  podKeys(pod: string): string[] {
    return [
      this.due(pod),
      this.dueMeta(pod),
      this.backlog(pod),
      this.podStats(pod),
      this.podFaults(pod),
    ];
  }
}
