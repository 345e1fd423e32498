/** Options of {@link RedisFrontier} and {@link FrontierInspector} and their validation. */
import type { Cluster, Redis } from 'ioredis';
import { CRAWL_ID, DEFAULT_CRAWL, isCrawlId } from './crawl-id.js';
import { FrontierOptionsError } from './errors.js';
import type { CanonicalizeOptions } from './types.js';

/** Work the frontier starts without a caller awaiting it (see `onBackgroundError`). */
export type BackgroundOperation = 'register-pod' | 'forward' | 'load-functions';

/** Options of a standalone {@link FrontierInspector}: reads need no pod and no ring. */
export interface FrontierInspectorOptions {
  /** A connected ioredis client: `Redis` or `Cluster`. */
  redis: Redis | Cluster;
  /** Prefix of every key (the frontier's). @default 'sl' */
  prefix?: string;
  /**
   * The crawl (namespace) this instance works in: its own seen-sets, queues, counters,
   * indexes, budgets and pause; politeness per host is shared by every crawl. `'default'`
   * keeps the layout of a frontier without crawls. `^[a-z0-9][a-z0-9._-]{0,63}$`.
   * @default 'default'
   */
  crawlId?: string;
}

export interface FrontierOptions {
  /** A connected ioredis client: `Redis` or `Cluster`. */
  redis: Redis | Cluster;
  /** Pod that owns a domain (from the ring). Enqueue wakes the domain in its due index. */
  ownerOf: (domain: string) => string;
  /** Prefix of every key. @default 'sl' */
  prefix?: string;
  /**
   * The crawl (namespace) this instance works in: its own seen-sets, queues, counters,
   * indexes, budgets and pause; politeness per host is shared by every crawl. `'default'`
   * keeps the layout of a frontier without crawls. `^[a-z0-9][a-z0-9._-]{0,63}$`.
   * @default 'default'
   */
  crawlId?: string;
  /**
   * Lease timeout: a lease not completed, failed or heartbeated within it is requeued
   * (at-least-once; counted as a repeat). `0`: leases never expire; only
   * {@link RedisFrontier.reclaimPod} takes back leases (at-most-once per live pod).
   * @default 60000
   */
  leaseTimeoutMs?: number;
  /** Failed attempts after which a URL is dead-lettered is `maxRetries + 1`. @default 3 */
  maxRetries?: number;
  /** Deepest link depth accepted. @default 64 */
  maxDepth?: number;
  /** Most URLs queued per domain at once (beyond: `over-cap`). `0` = no cap. @default 1000000 */
  maxQueuedPerDomain?: number;
  /**
   * Most URLs ever accepted per domain over the crawl (the domain's `enqueued` count; beyond:
   * `over-cap` with code `SHARDLINE_ERR_FRONTIER_ACCEPT_CAP`). Enforced inside the enqueue
   * script, so it is exact with any number of concurrent enqueuers and pods. `0` = no cap.
   * @default 0
   */
  maxAcceptedPerDomain?: number;
  /**
   * Most URLs ever accepted per host over the crawl (beyond: `over-cap` with code
   * `SHARDLINE_ERR_FRONTIER_HOST_ACCEPT_CAP`, counted in the domain's `overCap`). Exact like
   * `maxAcceptedPerDomain`. `0` = no cap. @default 0
   */
  maxAcceptedPerHost?: number;
  /**
   * A refilling budget per domain: at most `pages` URLs claimed per `periodMs` window
   * (URLFrontier's crawl limit that refills; a lease released unfetched gives its claim
   * back within its window). When spent, the domain's URLs stay queued and
   * its hosts wait in the due index until the window ends; the window lives in the domain's
   * Redis state. `null` = none. @default null
   */
  domainBudget?: { pages: number; periodMs: number } | null;
  /** Delay between request starts to one host. @default 1000 */
  defaultDelayMs?: number;
  /** Requests in flight per host. @default 1 */
  defaultConcurrency?: number;
  /**
   * Adaptive delay per host, kept in the host's Redis state (survives restarts, moves with
   * the domain): it grows to factor × a response's time when that is higher, doubles on a
   * sent retryable failure (5xx, 429, timeout), halves per faster response and is dropped
   * at the host's floor; capped by `maxDelayMs`. On when this is true or
   * `adaptiveDelayFactor` > 0. @default false
   */
  adaptiveDelay?: boolean;
  /**
   * The adaptive delay's factor; 0 = off unless `adaptiveDelay`, which then uses 5
   * (Heritrix's default delay factor). @default 0
   */
  adaptiveDelayFactor?: number;
  /**
   * Refetch interval of every fetched URL without its own (`EnqueueItem.refetchAfterMs`):
   * after a successful fetch it is scheduled again this long later, not forgotten. Scheduled
   * URLs count as queued, so a crawl with refetches never settles. 0 = none. @default 0
   */
  refetchAfterMs?: number;
  /**
   * Adaptive refetch: the interval halves when a refetch found the content changed and grows
   * by half when not (`CompleteResult.changed`), within `refetchMinMs`..`refetchMaxMs`.
   * @default false
   */
  refetchAdaptive?: boolean;
  /** Shortest adaptive refetch interval. @default 3600000 (1 h) */
  refetchMinMs?: number;
  /** Longest adaptive refetch interval. @default 2592000000 (30 d) */
  refetchMaxMs?: number;
  /** Cap of the adaptive delay. @default 120000 */
  maxDelayMs?: number;
  /** First failure backoff of a host; doubles per consecutive failure. @default 1000 */
  backoffBaseMs?: number;
  /** Cap of the failure backoff. @default 300000 */
  backoffMaxMs?: number;
  /** Dead letters kept per domain (the counter keeps counting). @default 10000 */
  deadLetterCap?: number;
  /** Expired leases taken back per host visit. @default 100 */
  reapBatch?: number;
  /** How long a pinned due-index entry survives a park (crash safety). @default 30000 */
  pinMs?: number;
  /** How long a claimer holds due hosts it is visiting. @default 5000 */
  claimHoldMs?: number;
  /** Longest `meta` accepted per URL, in characters. @default 512 */
  maxMetaChars?: number;
  /** Highest absolute priority accepted. @default 1000000 */
  maxPriority?: number;
  /**
   * Fold an idle small domain (nothing queued, out or scheduled; ≤ 8 hosts, ≤ 64 URLs seen)
   * into one field of a shared archive hash when a claim parks its last host, and leave the
   * domain indexes; the next enqueue to it unfolds it. A finished domain of a wide crawl then
   * keeps tens of bytes instead of ~1 KB (docs/capacity.md). @default true
   */
  archiveIdleDomains?: boolean;
  /**
   * Keep a new small domain *packed* until a claim reaches it: its URLs, fingerprints and
   * counters in one field of its archive hash (as an archived domain, within the same
   * limits, ≤ 1 KB in all) and each host named in its owner's backlog instead of its due
   * index. A wide crawl's domain of one URL then costs URL + 124–172 B instead of ~URL + 680 B
   * (docs/capacity.md). Like an archived domain, a packed one is read by name and counted
   * in `archivedDomains`, not listed in the domain indexes (`domains()`); pods list theirs
   * with `backlogHosts`. Needs `archiveIdleDomains`. @default true
   */
  packNewDomains?: boolean;
  /**
   * Pack new domains only once the depth index lists this many live domains (read on every
   * enqueue while below, then at most every 5 s): a small crawl keeps every domain listed;
   * a wide one packs its long tail. 0 = always. @default 1000
   */
  packAfterDomains?: number;
  /**
   * Run the scripts as one Redis Function library (`FUNCTION LOAD` once per client, then
   * `FCALL`): their shared helpers are defined once instead of on every call (~16 µs of
   * Redis CPU per crawled page). A server that refuses the library (Redis before 7.0, an ACL
   * without `FUNCTION`, a full server) gets the same scripts by EVALSHA, retried every 30 s
   * and reported once to `onBackgroundError` as `load-functions`; false always uses EVALSHA.
   * @default true
   */
  redisFunctions?: boolean;
  /** URLs per enqueue script call (bounds the time Redis spends in one script). @default 1000 */
  enqueueChunk?: number;
  /**
   * Mean fingerprints per seen-set bucket (an intset) before linear hashing splits one.
   * Only memory depends on it: pods with different values share a seen-set safely.
   * @default from the server's `set-max-intset-entries` ÷ 2.56, at most 800 (200 at Redis'
   * default 512; 800 at the 2,048 our Redis configurations set); 200 when Redis refuses `CONFIG`
   */
  seenBucketLoad?: number;
  /**
   * Most fingerprints (8 B each) a domain's seen-set keeps in the domain hash before it moves
   * to a bucket. Only memory depends on it.
   * @default from the server's `hash-max-listpack-value` ÷ 8, at most 128 (8 at Redis' default
   * 64; 128 at the 1,024 our Redis configurations set); 63 when Redis refuses `CONFIG`
   */
  seenInlineMax?: number;
  /** Options for `@shardline/url` canonicalisation. */
  canonicalize?: CanonicalizeOptions;
  /**
   * Called when work the frontier does in the background fails: `register-pod` (adding a
   * pod to the pods set; retried by the pod's next call), `forward` (moving a host a
   * claim found in the wrong pod's due index; retried by a claim after `claimHoldMs`) or
   * `load-functions` (the server refused the function library: see `redisFunctions`).
   * Each failure is also counted in `RedisFrontier.backgroundErrors`. Must not throw.
   * @default none (counted only)
   */
  onBackgroundError?: (error: Error, operation: BackgroundOperation) => void;
}

/** Options without a fixed default: read from the server when not given (`seenLayout`). */
type ServerTunedOption = 'seenBucketLoad' | 'seenInlineMax';

export type ResolvedOptions = Required<Omit<FrontierOptions, 'canonicalize' | ServerTunedOption>> &
  Pick<FrontierOptions, ServerTunedOption> & {
    canonicalize: CanonicalizeOptions;
  };

/** The default bound of a URL's priority (`maxPriority`): ±1,000,000. */
export const DEFAULT_MAX_PRIORITY = 1_000_000;

/** The key prefix when none is given: `sl:…`. */
export const DEFAULT_PREFIX = 'sl';

const DEFAULTS = {
  prefix: DEFAULT_PREFIX,
  crawlId: DEFAULT_CRAWL,
  leaseTimeoutMs: 60_000,
  maxRetries: 3,
  maxDepth: 64,
  maxQueuedPerDomain: 1_000_000,
  maxAcceptedPerDomain: 0,
  maxAcceptedPerHost: 0,
  domainBudget: null,
  defaultDelayMs: 1000,
  defaultConcurrency: 1,
  adaptiveDelay: false,
  adaptiveDelayFactor: 0,
  refetchAfterMs: 0,
  refetchAdaptive: false,
  refetchMinMs: 3_600_000,
  refetchMaxMs: 2_592_000_000,
  maxDelayMs: 120_000,
  backoffBaseMs: 1000,
  backoffMaxMs: 300_000,
  deadLetterCap: 10_000,
  reapBatch: 100,
  pinMs: 30_000,
  claimHoldMs: 5000,
  maxMetaChars: 512,
  maxPriority: DEFAULT_MAX_PRIORITY,
  enqueueChunk: 1000,
  archiveIdleDomains: true,
  packNewDomains: true,
  redisFunctions: true,
  packAfterDomains: 1000,
} as const;

/** Heritrix's default `delayFactor`: the adaptive delay's factor when none is given. */
const HERITRIX_DELAY_FACTOR = 5;

/** Longest refetch interval accepted anywhere: a year. */
export const MAX_REFETCH_MS = 31_536_000_000;

const NON_NEGATIVE_INTS = [
  'packAfterDomains',
  'refetchAfterMs',
  'refetchMinMs',
  'refetchMaxMs',
  'leaseTimeoutMs',
  'maxRetries',
  'maxDepth',
  'maxQueuedPerDomain',
  'maxAcceptedPerDomain',
  'maxAcceptedPerHost',
  'defaultDelayMs',
  'maxDelayMs',
  'backoffBaseMs',
  'backoffMaxMs',
  'deadLetterCap',
  'reapBatch',
  'pinMs',
  'claimHoldMs',
  'maxMetaChars',
  'maxPriority',
] as const;

function checkClient(options: { redis: unknown }): void {
  if (typeof options !== 'object' || options === null) {
    throw new FrontierOptionsError('options', options, 'an object');
  }
  const redis = options.redis;
  if (
    typeof redis !== 'object' ||
    redis === null ||
    typeof (redis as Redis).defineCommand !== 'function'
  ) {
    throw new FrontierOptionsError('redis', redis, 'an ioredis Redis or Cluster client');
  }
}

/**
 * What can prefix the frontier's keys (and the registry's). 131 = a
 * 64-character prefix, ':c:' and a 64-character crawl id (crawlKeyPrefix): a crawl's registry
 * and counters are read through a prefix that long.
 */
export const KEY_PREFIX_RULE = '1-131 characters of [A-Za-z0-9._:-]';

/** See {@link KEY_PREFIX_RULE}. */
export function isKeyPrefix(prefix: unknown): prefix is string {
  return typeof prefix === 'string' && /^[A-Za-z0-9._:-]{1,131}$/.test(prefix);
}

function checkPrefix(prefix: unknown): string {
  if (!isKeyPrefix(prefix)) {
    throw new FrontierOptionsError('prefix', prefix, KEY_PREFIX_RULE);
  }
  return prefix;
}

function checkCrawlId(crawlId: unknown): string {
  if (typeof crawlId !== 'string' || !isCrawlId(crawlId)) {
    throw new FrontierOptionsError('crawlId', crawlId, `a string matching ${CRAWL_ID}`);
  }
  return crawlId;
}

/** Validates {@link FrontierInspectorOptions}; returns the client, the prefix and the crawl. */
export function resolveInspectorOptions(options: FrontierInspectorOptions): {
  redis: Redis | Cluster;
  prefix: string;
  crawlId: string;
} {
  checkClient(options);
  return {
    redis: options.redis,
    prefix: checkPrefix(options.prefix ?? DEFAULTS.prefix),
    crawlId: checkCrawlId(options.crawlId ?? DEFAULT_CRAWL),
  };
}

export function resolveOptions(options: FrontierOptions): ResolvedOptions {
  checkClient(options);
  if (typeof options.ownerOf !== 'function') {
    throw new FrontierOptionsError('ownerOf', options.ownerOf, 'a function (domain) => pod id');
  }
  const resolved = { ...DEFAULTS, ...stripUndefined(options) } as ResolvedOptions;
  resolved.canonicalize = options.canonicalize ?? {};
  checkPrefix(resolved.prefix);
  checkCrawlId(resolved.crawlId);
  resolved.onBackgroundError = options.onBackgroundError ?? (() => {});
  if (typeof resolved.onBackgroundError !== 'function') {
    throw new FrontierOptionsError(
      'onBackgroundError',
      resolved.onBackgroundError,
      'a function (error, operation) => void',
    );
  }
  for (const name of NON_NEGATIVE_INTS) {
    const value = resolved[name];
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new FrontierOptionsError(name, value, 'a non-negative integer');
    }
  }
  for (const name of ['defaultConcurrency', 'enqueueChunk'] as const) {
    const value = resolved[name];
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new FrontierOptionsError(name, value, 'a positive integer');
    }
  }
  for (const [name, min, max] of [
    ['seenBucketLoad', 1, 100_000],
    ['seenInlineMax', 0, 8192],
  ] as const) {
    const value = resolved[name];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < min || value > max)) {
      throw new FrontierOptionsError(name, value, `an integer from ${min} to ${max}`);
    }
  }
  const factor = resolved.adaptiveDelayFactor;
  if (typeof factor !== 'number' || !Number.isFinite(factor) || factor < 0) {
    throw new FrontierOptionsError('adaptiveDelayFactor', factor, 'a finite number ≥ 0');
  }
  if (typeof resolved.adaptiveDelay !== 'boolean') {
    throw new FrontierOptionsError('adaptiveDelay', resolved.adaptiveDelay, 'a boolean');
  }
  const budget = resolved.domainBudget;
  if (
    budget !== null &&
    (typeof budget !== 'object' ||
      !Number.isSafeInteger(budget.pages) ||
      budget.pages < 1 ||
      !Number.isSafeInteger(budget.periodMs) ||
      budget.periodMs < 1)
  ) {
    throw new FrontierOptionsError(
      'domainBudget',
      budget,
      'null or { pages, periodMs } of positive integers',
    );
  }
  if (typeof resolved.redisFunctions !== 'boolean') {
    throw new FrontierOptionsError('redisFunctions', resolved.redisFunctions, 'a boolean');
  }
  if (typeof resolved.packNewDomains !== 'boolean') {
    throw new FrontierOptionsError('packNewDomains', resolved.packNewDomains, 'a boolean');
  }
  if (typeof resolved.archiveIdleDomains !== 'boolean') {
    throw new FrontierOptionsError('archiveIdleDomains', resolved.archiveIdleDomains, 'a boolean');
  }
  if (typeof resolved.refetchAdaptive !== 'boolean') {
    throw new FrontierOptionsError('refetchAdaptive', resolved.refetchAdaptive, 'a boolean');
  }
  for (const name of ['refetchAfterMs', 'refetchMinMs', 'refetchMaxMs'] as const) {
    if (resolved[name] > MAX_REFETCH_MS) {
      throw new FrontierOptionsError(name, resolved[name], `at most ${MAX_REFETCH_MS} (a year)`);
    }
  }
  if (resolved.refetchMinMs > resolved.refetchMaxMs) {
    throw new FrontierOptionsError(
      'refetchMinMs',
      resolved.refetchMinMs,
      `≤ refetchMaxMs (${resolved.refetchMaxMs})`,
    );
  }
  if (resolved.adaptiveDelay && factor === 0) resolved.adaptiveDelayFactor = HERITRIX_DELAY_FACTOR;
  return resolved;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
