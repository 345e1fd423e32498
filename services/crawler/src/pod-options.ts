/**
 * The options and counters of {@link CrawlerPod} (`crawler-pod.ts`), apart from the pod so the
 * contract reads in one place; `config.ts` maps environment variables onto these options.
 */
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Assignment } from './assignment.js';
import type { WakeSubscriber } from './work-loop.js';

/** Options of {@link CrawlerPod}. Durations in ms, sizes in bytes. */
export interface CrawlerPodOptions {
  /** A connected ioredis client (the pod never closes it). */
  redis: Redis | Cluster;
  /**
   * Connection for the wake channel (subscriber mode). @default `redis.duplicate()` for a
   * plain client (closed by the pod); none for a Cluster (due times only)
   */
  subscriber?: WakeSubscriber;
  /** Stable pod id. @default os.hostname() */
  podId?: string;
  /** Capacity weight on the membership ring (`vnodes × weight` tokens, ≤ 1000). @default 1 */
  podWeight?: number;
  /**
   * Fixed domain ownership instead of the pod registry (unit tests, a single pod without
   * membership). @default none: ownership comes from `@shardline/membership`
   */
  assignment?: Assignment;
  /** Membership session: a pod not heard from for this long counts as dead. @default 10000 */
  sessionTimeoutMs?: number;
  /** Ring tokens per unit of weight, proposed to the registry (the first pod's value wins). @default 8192 */
  ringVnodes?: number;
  /** Ring token seed, proposed like `ringVnodes`. @default 0 */
  ringSeed?: number;
  /** Redis key prefix of the frontier, robots cache and results stream. @default 'sl' */
  prefix?: string;
  /** Global fetch slots (leases in flight). @default 64 */
  concurrency?: number;
  /** Requests in flight per host. @default 1 */
  perHostConcurrency?: number;
  /** Floor of the start-to-start gap per host. @default 1000 */
  minDelayMs?: number;
  /** Cap applied to a robots.txt Crawl-delay. @default 30000 */
  maxCrawlDelayMs?: number;
  /**
   * How soon an unreachable robots.txt (5xx, 429, timeout, network error) is asked again; a
   * longer `Retry-After` wins (up to 24 h). Until then the host is disallowed and its URLs wait
   * (RFC 9309 §2.3.1.4). @default 300000
   */
  robotsRetryMs?: number;
  /**
   * Retries of an unreachable robots.txt before the host's URLs are dead-lettered
   * (`SHARDLINE_ERR_CRAWLER_ROBOTS_UNREACHABLE`, requeue them once the site is back); the count
   * is shared by all pods through the robots record in Redis. 0 dead-letters at the first
   * failure. @default 12 (an hour at the default `robotsRetryMs`)
   */
  robotsMaxRetries?: number;
  /** Adaptive delay = factor × last response time (0 = off). @default 0 */
  adaptiveDelayFactor?: number;
  /** Cap of any per-host delay (adaptive, backoff). @default 120000 */
  maxDelayMs?: number;
  /** User-Agent product token (robots groups match it). @default 'shardline' */
  userAgentToken?: string;
  /** Contact URL appended to the User-Agent. @default undefined */
  contactUrl?: string;
  /** DNS overrides like curl `--resolve` (`*.test:127.0.0.1`); they bypass the address policy. @default [] */
  resolve?: string[];
  /** Allow private, loopback, link-local and metadata addresses. @default false */
  allowPrivateAddresses?: boolean;
  /** Deepest link depth followed (seeds are 0; a redirect hop counts one). @default 64 */
  maxDepth?: number;
  /** Follow links to the page's own domain only. @default false */
  sameDomainOnly?: boolean;
  /** Follow links only to these domains (and their subdomains). @default all */
  allowDomains?: string[];
  /** URL patterns never enqueued (RegExp or whole-URL glob). @default [] */
  denyPatterns?: (string | RegExp)[];
  /**
   * Most URLs accepted per domain over the crawl (0 = no cap). Exact across pods: the
   * frontier's enqueue script enforces it (`maxAcceptedPerDomain`). @default 0
   */
  maxPagesPerDomain?: number;
  /** Links kept per page. @default 5000 */
  maxLinksPerPage?: number;
  /** Decoded body bytes kept per page. @default 5242880 */
  maxBodyBytes?: number;
  /** Wall time of one fetch. @default 30000 */
  fetchTimeoutMs?: number;
  /** Send → response head. @default 15000 */
  headersTimeoutMs?: number;
  /** Longest silence in a body. @default 15000 */
  bodyTimeoutMs?: number;
  /** TCP/TLS connect. @default 10000 */
  connectTimeoutMs?: number;
  /** Lease timeout (extended by heartbeats while a fetch runs). @default 60000 */
  leaseTimeoutMs?: number;
  /** Heartbeat sweep period. @default leaseTimeoutMs / 3 */
  heartbeatIntervalMs?: number;
  /** Retries of a failing URL before it is dead-lettered. @default 3 */
  maxRetries?: number;
  /** First failure backoff of a host (doubles per consecutive failure). @default 1000 */
  backoffBaseMs?: number;
  /** Cap of the failure backoff. @default 300000 */
  backoffMaxMs?: number;
  /** Enqueue the sitemaps robots.txt lists (and the URLs in them). @default false */
  enqueueSitemaps?: boolean;
  /** Results stream key. @default '<prefix>:results' */
  resultsStreamKey?: string;
  /** Approximate bound of the results stream (0 = unbounded). @default 1000000 */
  resultsMaxLen?: number;
  /** Also append results to this JSONL file. @default undefined */
  resultsJsonl?: string;
  /** Stop once the frontier has nothing queued and nothing in flight for `graceMs`. @default false */
  exitWhenIdle?: boolean | { graceMs?: number };
  /** On stop, how long leases in flight may finish before they are aborted and released. @default 10000 */
  stopGraceMs?: number;
  /** Shortest gap between claims that left slots free (batches due hosts). @default 10 */
  minClaimIntervalMs?: number;
  /** Longest sleep between claims (covers missed wake messages). @default 1000 */
  maxIdleSleepMs?: number;
  /** Logger. @default pino at level 'warn' */
  logger?: Logger;
}

/** Counters of one pod since start. */
export interface PodStats {
  pod: string;
  /** Leases completed after a fetch (any status that is not retried). */
  fetched: number;
  /** Failed attempts requeued. */
  retried: number;
  /** Dead-lettered (non-retryable or retries exhausted), robots refusals included. */
  dead: number;
  released: number;
  /**
   * Leases found gone when settling (`SHARDLINE_ERR_FRONTIER_LEASE_LOST`): the pod stalled past
   * its lease or session and a survivor requeued the URL, so it is fetched again — a repeat.
   */
  lost: number;
  /** Leases refused by robots.txt (disallowed, or unreachable past `robotsMaxRetries`). */
  robotsDisallowed: number;
  /** Leases given back to wait for the retry of their host's unreachable robots.txt. */
  robotsDeferred: number;
  /**
   * Leases given back, host held, because their page had to wait a whole delay after the
   * host's robots.txt request (no result written; the URL is claimed again at its slot).
   */
  gapReleases: number;
  /** Same-origin links dropped before enqueue because robots.txt disallows them. */
  robotsFilteredLinks: number;
  /** robots.txt answers by source. */
  robotsLoads: { memory: number; 'shared-cache': number; fetch: number };
  redirects: number;
  bytes: number;
  linksQueued: number;
  /** Outcomes by error code (`http-503`, `SHARDLINE_ERR_FETCH_TIMEOUT`, …). */
  errors: Record<string, number>;
  /** Bounds hit, by name. */
  bounds: Record<string, number>;
  inFlight: number;
  claims: number;
  emptyClaims: number;
  wakes: number;
  gate: { waits: number; delayedMs: number; hosts: number };
  results: { written: number; errors: number };
}
