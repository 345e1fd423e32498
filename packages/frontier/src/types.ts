/**
 * Public types of the frontier: what goes in (enqueue items, lease results) and what comes
 * out (leases, reports); what `FrontierInspector` reads is in read-types.ts. The URL
 * lifecycle is documented on `RedisFrontier`.
 */
import type { CanonicalizeOptions } from '@shardline/url';

/** One URL to enqueue: a string, or the URL with its scheduling data. */
export type EnqueueItem =
  | string
  | {
      url: string;
      /** Integer priority; higher is claimed first, FIFO among equals. @default 0 */
      priority?: number;
      /** Link depth from a seed. @default 0 */
      depth?: number;
      /** Small opaque text carried to the lease (e.g. a referrer). @default '' */
      meta?: string;
      /** Base URL for a relative `url`. */
      base?: string;
      /**
       * Refetch interval: after each successful fetch the URL is scheduled again this long
       * later instead of forgotten (its validators kept for a conditional request). Beats
       * `FrontierOptions.refetchAfterMs`. @default none
       */
      refetchAfterMs?: number;
    };

/**
 * What a conditional refetch sends back (`If-None-Match`, `If-Modified-Since`) and what tells
 * a changed page from an unchanged one. Stored compactly with a URL that has a refetch
 * interval; a value that is not plain ASCII of a sane length is not stored.
 */
export interface Validators {
  /** The response's `ETag`, as received (quotes and `W/` included). */
  etag?: string;
  /** The response's `Last-Modified` (an HTTP-date; kept to the second). */
  lastModified?: string;
  /** A hash of the content (e.g. base64url SHA-256), to tell a changed body without validators. */
  contentHash?: string;
  /**
   * When the content these validators describe was fetched whole (ms since the epoch): what a
   * later `304 Not Modified` refers to (the crawler's WARC revisit record, `WARC-Refers-To-Date`).
   */
  capturedAtMs?: number;
}

/** What happened to one enqueued item. */
export type EnqueueStatus = 'queued' | 'duplicate' | 'rejected' | 'over-cap';

export interface EnqueueResult {
  status: EnqueueStatus;
  /** The canonical URL (absent when the input could not be canonicalised). */
  url?: string;
  domain?: string;
  host?: string;
  /**
   * For `rejected`: a `@shardline/url` code or a `SHARDLINE_ERR_FRONTIER_*` code. For
   * `over-cap`: `SHARDLINE_ERR_FRONTIER_HOST_ACCEPT_CAP` when the host reached `maxAcceptedPerHost`,
   * `SHARDLINE_ERR_FRONTIER_ACCEPT_CAP` when the domain reached
   * `maxAcceptedPerDomain`, absent for the queue cap.
   */
  code?: string;
  /** For `rejected`: why, in words. */
  reason?: string;
}

export interface EnqueueReport {
  /** One result per input item, in input order. */
  results: EnqueueResult[];
  queued: number;
  duplicates: number;
  rejected: number;
  overCap: number;
  /** Pods whose due index got new work from this batch. */
  wokenPods: string[];
}

/** A claimed URL. Pass it back to heartbeat/complete/fail/release. */
export interface Lease {
  /** `<domain>/<host>/<n>`, unique per host. */
  id: string;
  url: string;
  host: string;
  domain: string;
  priority: number;
  depth: number;
  /** 1 for the first hand-out, +1 after each failure or expiry. */
  attempt: number;
  /** Redis time (ms) after which the lease may be reaped; 0 = never expires. */
  deadlineMs: number;
  /** Redis time (ms) of the claim. */
  claimedAtMs: number;
  /** The pod holding the lease. */
  pod: string;
  meta: string;
  /** The URL's own refetch interval (ms), when it has one (see `EnqueueItem`). */
  refetchAfterMs?: number;
  /**
   * Validators of the last fetch, on a refetch of a URL with a refetch interval: send them
   * as `If-None-Match` / `If-Modified-Since`.
   */
  validators?: Validators;
  /**
   * Claimed ahead (`ClaimRequest.leadMs`): the Redis time (ms, with a µs fraction when the
   * slot was reserved from a send time) before which no request of this lease may be sent,
   * the host's next-allowed time. Absent when the lease may go at once.
   */
  notBeforeMs?: number;
  /**
   * `notBeforeMs` on this process's `performance.now()` clock, mapped so that it is never
   * early: Redis time read last in the claim script, plus the local time elapsed since its
   * reply arrived, can only under-estimate Redis time, whatever the wall clocks say. Wait until
   * `performance.now() >= notBeforePerfMs` before the first request (robots.txt included).
   */
  notBeforePerfMs?: number;
}

/** The fields of a {@link Lease} that identify it. */
export type LeaseRef = Pick<Lease, 'id' | 'pod'>;

export interface ClaimRequest {
  pod: string;
  /** Most leases to return. @default 1 */
  max?: number;
  /**
   * Lease timeout of the leases of this claim (ms; 0 = they never expire), e.g. the
   * `delay_requestable` of a URLFrontier GetURLs call. Later heartbeats extend them by
   * the frontier's `leaseTimeoutMs`. @default FrontierOptions.leaseTimeoutMs
   */
  leaseTimeoutMs?: number;
  /** Most leases taken from one host in this claim. @default no bound but `max` */
  maxPerHost?: number;
  /**
   * Claim from these hosts only, those of them whose domain `pod` owns, whether due or not
   * (the claim script's gate still decides; URLFrontier's GetURLs with a `key`), instead of
   * from the pod's due index. At most 100. @default the due index
   */
  hosts?: readonly string[];
  /**
   * Claim ahead (ms, 0..1000): also hand out a host's next URL up to this long before its
   * next-allowed time. Such a lease counts as in flight at once and carries `notBeforeMs` /
   * `notBeforePerfMs`: the caller must not send before then (the host's gap is reserved from
   * that time, not from the claim). Lets a pod do its claim round trips before the host is
   * due and send on time. Only a caller that honours `notBeforePerfMs` may set it. @default 0
   */
  leadMs?: number;
  /**
   * Called with the leases as soon as they are written, one round trip before the claim
   * resolves (the due index is re-scored meanwhile), so their fetches can start at once;
   * the result lists the same leases. Must not throw.
   */
  onLeases?: (leases: readonly Lease[]) => void;
}

export interface ClaimResult {
  leases: Lease[];
  /**
   * Earliest due time (Redis ms) left in the pod's due index after this claim, `null`
   * when it is empty. Sleep until then (or until a wake message), never poll.
   */
  nextDueAtMs: number | null;
  /**
   * Redis time (ms) when `nextDueAtMs` was read (the claim's last round trip), to turn it
   * into a delay.
   */
  nowMs: number;
  /** Expired leases taken back while visiting hosts. */
  reaped: number;
}

export interface CompleteResult {
  /** HTTP status (stats only). @default 200 */
  status?: number;
  /** Bytes received. @default 0 */
  bytes?: number;
  /**
   * Fetch duration; feeds the adaptive delay (see `FrontierOptions.adaptiveDelay`): the
   * host's delay grows at once to factor × this when higher, else halves towards it, and
   * is dropped once at the host's floor. @default 0
   */
  durationMs?: number;
  /** Links found on the page. @default 0 */
  links?: number;
  /**
   * Ms from the moment the request was sent to this call, by a monotonic clock, with µs
   * fractions (finer is rounded down). Politeness is start-to-start: the host's next request
   * may then start the effective delay after this one's send (Redis µs time of the
   * completion minus this, rounded up to the µs, never before the claim) instead of after
   * the completion. Measure it as late as possible: an earlier measure only makes the gap
   * longer, never shorter. @default 0 (the gap counts from the completion)
   */
  sinceSentMs?: number;
  /**
   * Validators of this response, stored with the URL when it is scheduled for refetch
   * (absent: the stored ones are kept).
   */
  validators?: Validators;
  /**
   * The caller's own schedule for this URL, beating its refetch interval and the frontier's
   * `refetchAfterMs`: `0` = done, never refetched; `n > 0` = fetched again `n` ms from now
   * (URLFrontier's `refetchable_from_date`). @default the URL's interval, else the default
   */
  refetchAfterMs?: number;
  /**
   * Whether the content changed since the last fetch: `false` for a 304 or the same content
   * hash. With `refetchAdaptive` the refetch interval halves when `true` and grows by half
   * when `false`, between `refetchMinMs` and `refetchMaxMs`. @default unknown (kept)
   */
  changed?: boolean;
}

export interface FailResult {
  /** Whether the URL may be tried again (5xx, timeouts) or not (robots, 4xx). */
  retryable: boolean;
  /** `Retry-After` from the response: the host is not asked again before it. */
  retryAfterMs?: number;
  /** Short reason for the dead letter, e.g. `timeout`, `http-503`, `robots`. */
  reason: string;
  /**
   * What went wrong, in words (the error's message): kept with a dead letter next to
   * `reason`, on one line, at most `MAX_FAIL_MESSAGE` (300) characters. @default none
   */
  message?: string;
  /**
   * How long the failed request took (ms). With the adaptive delay on, a retryable failure
   * that was sent (5xx, 429, timeout, network error) doubles the host's adaptive delay, to
   * at least factor × this. @default 0
   */
  durationMs?: number;
  /** HTTP status, 0 when none. @default 0 */
  status?: number;
  /**
   * Whether a request went out to the host. `false` for refusals before sending (robots.txt,
   * DNS, address policy): the host's politeness state is left alone — no backoff, no
   * consecutive-failure count, `next_allowed_at` stays where the claim put it.
   * @default true
   */
  sent?: boolean;
}

export interface ReleaseOptions {
  /**
   * Keep the host unclaimed for this long (ms, by Redis time): its `next_allowed_at` moves to
   * at least now + holdMs. The released URL keeps its attempt count. @default 0
   */
  holdMs?: number;
}

export interface FailOutcome {
  outcome: 'retry' | 'dead';
  /** Failed attempts so far. */
  attempt: number;
}

/** What {@link RedisFrontier.blockUntil} blocks: one host, or every host of a domain. */
export type BlockTarget = { host: string; domain?: string } | { domain: string; host?: undefined };

/** Per-host politeness overrides. `null` restores the default. */
export interface HostPolicy {
  concurrency?: number | null;
  delayMs?: number | null;
  /** Robots.txt crawl-delay. */
  crawlDelayMs?: number | null;
  /**
   * The crawl's limit on the host (URLFrontier's SetCrawlLimit): no URL of the host is
   * claimed while the URLs it completed in this crawl plus its leases out reach it. A URL
   * claimed again after its lease lapsed or failed takes the place it held. Kept in the
   * host's state in this crawl (survives restarts, follows the domain); `null` = none.
   */
  crawlLimit?: number | null;
}

/** Re-exported for convenience: canonicalisation options passed to `@shardline/url`. */
export type { CanonicalizeOptions };
