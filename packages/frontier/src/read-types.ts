/**
 * Public types of what `FrontierInspector` reads: dead letters, domain pages and counts,
 * domain and host state, due-index entries, where one URL is, held leases, queued URLs.
 */

export interface DeadLetter {
  url: string;
  host: string;
  domain: string;
  priority: number;
  depth: number;
  attempt: number;
  reason: string;
  /** What went wrong, in words (`FailResult.message`); '' when the failure gave none. */
  message: string;
  status: number;
  atMs: number;
  meta: string;
}

/** Orders of the domain indexes: URLs queued, URLs fetched, failed attempts + dead letters. */
export type DomainSort = 'depth' | 'fetched' | 'errors';

/** A page of a domain index. */
export interface DomainPage {
  /** @default 'depth' */
  sort?: DomainSort;
  /**
   * Keyset paging: only domains whose count is at most this (the last count seen), and
   * `offset` then counts the domains of that count already seen. Unlike a plain rank
   * `offset`, pages stay consistent while counts change. @default no bound
   */
  maxCount?: number;
  /** Rank of the first domain returned (below `maxCount` when given). @default 0 */
  offset?: number;
  /** @default 100 */
  limit?: number;
}

/** A page of the dead-letter domains index (see {@link DomainPage.maxCount}). */
export type DeadLetterDomainPage = Omit<DomainPage, 'sort'>;

/** One row of a domain index: the domain and its count in that index. */
export interface DomainCount {
  domain: string;
  count: number;
}

/** Exact per-domain counters (kept by the domain's scripts). */
export interface DomainStats {
  domain: string;
  queued: number;
  inFlight: number;
  fetched: number;
  /** Failed attempts (each retry counts). */
  failed: number;
  dead: number;
  duplicates: number;
  overCap: number;
  /** Leases taken back after expiry or pod death (each one a possible repeat fetch). */
  repeats: number;
  seen: number;
  enqueued: number;
  claimed: number;
  released: number;
  /** Completions or failures that arrived after their lease was gone. */
  late: number;
  bytes: number;
  fetchMs: number;
  links: number;
  /** URLs waiting in refetch schedules (counted in `queued` too). */
  scheduled: number;
  paused: boolean;
  /** Redis time (ms) until which an operator blocked the whole domain (0 = not blocked). */
  blockedUntilMs: number;
  /** Claims taken from the refilling budget in its current window. */
  budgetSpent: number;
  /** Redis time (ms) at which the spent refilling budget refills (0 = never spent; past = refilled). */
  budgetRefillAtMs: number;
  hosts: string[];
  /**
   * Whether the domain is archived (`archiveIdleDomains`): idle, folded into one field of a
   * shared hash, out of the domain indexes; its next URL unfolds it.
   */
  archived: boolean;
}

/** Eventually consistent sums, global or per pod (see the README). */
export type CounterStats = Record<string, number>;

/** One host in a pod's due index. */
export interface DueHost {
  domain: string;
  host: string;
  /** Redis time (ms) at which the host is next visited; `Infinity` while only non-expiring leases are out. */
  dueAtMs: number;
}

/** A due-index entry with its update bookkeeping (see index-update-3.lua). */
export interface DueEntry extends DueHost {
  /** The host's scheduling sequence of the last update applied (0 before any). */
  seq: number;
  /** Redis time (ms) before which the entry cannot be removed (0 = never pinned). */
  pinnedUntilMs: number;
}

/** A host's politeness and scheduling state, decoded. */
export interface HostState {
  domain: string;
  host: string;
  queued: number;
  inFlight: number;
  /** Redis time (ms) before which no new request starts; 0 = never set. */
  nextAllowedAtMs: number;
  /** Requests in flight allowed; `null` = the frontier's `defaultConcurrency`. */
  concurrency: number | null;
  /** Configured delay between request starts; `null` = the frontier's `defaultDelayMs`. */
  delayMs: number | null;
  /** Robots.txt crawl-delay (0 = none). */
  crawlDelayMs: number;
  /** Failure backoff in force (0 = none). */
  backoffMs: number;
  /** Adaptive delay from response times and server errors (0 = none). */
  adaptiveDelayMs: number;
  /** Why the adaptive delay is up: slow responses, or 5xx/429/timeouts; `null` when none. */
  adaptiveReason: 'slow' | 'errors' | null;
  /** Redis time (ms) until which an operator blocked the host itself (0 = not blocked). */
  blockedUntilMs: number;
  /** Failures in a row since the last success. */
  consecutiveFailures: number;
  /**
   * The crawl's limit on the host: URLs it hands out until `fetched` + leases out reach it
   * (`setHostPolicy`'s `crawlLimit`); `null` = none.
   */
  crawlLimit: number | null;
  /** URLs of the host completed (fetched) in this crawl. */
  fetched: number;
}

/**
 * Where a URL is in a crawl (`FrontierInspector.urlStatus`): `unseen` never accepted;
 * `queued` waiting in its host's queue; `leased` handed out; `scheduled` fetched, due again
 * at `atMs`; `dead` dead-lettered; `done` seen and in none of these (fetched for good, or
 * deleted with its queue); `seen` accepted but not met within the entries read (most likely
 * queued further back).
 */
export type UrlState = 'unseen' | 'queued' | 'leased' | 'scheduled' | 'dead' | 'done' | 'seen';

export interface UrlStatus {
  url: string;
  host: string;
  domain: string;
  state: UrlState;
  /** `leased`: when the lease lapses (0 = never); `scheduled`: when the refetch is due; `dead`: when it was dead-lettered (Redis time, ms). */
  atMs?: number;
  /** Priority level (`queued`, `leased`, `scheduled`, `dead`). */
  priority?: number;
  /** The URL's metadata as enqueued (`queued`, `scheduled`, `dead`). */
  meta?: string;
  /** `dead`: why. */
  reason?: string;
  /** `dead`: what went wrong, in words ('' when the failure gave none). */
  message?: string;
}

/** A lease out on a host, as `FrontierInspector.hostLeases` reads it. */
export interface HeldLease {
  /** The lease id, to pass with `pod` to complete/fail/release. */
  id: string;
  pod: string;
  url: string;
  /** Redis time (ms) after which it may be reaped; 0 = never expires. */
  deadlineMs: number;
  claimedAtMs: number;
  priority: number;
}

/** The URL a host hands out next (its best priority level, oldest first). */
export interface QueuedUrl {
  url: string;
  host: string;
  domain: string;
  priority: number;
  depth: number;
  /** Failed or expired attempts so far (the next lease is `attempt + 1`). */
  attempt: number;
  meta: string;
}
