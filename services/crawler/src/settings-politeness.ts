/**
 * The rows of the settings table (`settings.ts`) for politeness: concurrency and delays per
 * host and per IP address, robots.txt's Crawl-delay and retries, the adaptive delay. Spread
 * into `POD_SETTINGS` after the global `concurrency` row; same contract (flag and env names
 * are user-facing). Each limit is enforced in Redis, across every pod and every crawl.
 */
import type { Setting } from './setting-kinds.js';

export const POLITENESS_SETTINGS = {
  perHostConcurrency: {
    env: 'PER_HOST_CONCURRENCY',
    flag: 'per-host-concurrency',
    kind: 'int',
    doc: 'requests in flight per host',
    default: 1,
    min: 1,
    max: 1024,
  },
  minDelayMs: {
    env: 'MIN_DELAY_MS',
    flag: 'min-delay-ms',
    kind: 'int',
    doc: 'minimum gap per host',
    default: 1000,
  },
  maxCrawlDelayMs: {
    env: 'MAX_CRAWL_DELAY_MS',
    flag: 'max-crawl-delay-ms',
    kind: 'int',
    doc: 'cap of a robots.txt Crawl-delay',
    default: 30_000,
  },
  /**
   * How soon an unreachable robots.txt (5xx, 429, timeout, network error) is asked again; a
   * longer `Retry-After` wins (up to 24 h). Until then the host is disallowed and its URLs wait
   * (RFC 9309 §2.3.1.4).
   */
  robotsRetryMs: {
    env: 'ROBOTS_RETRY_MS',
    flag: 'robots-retry-ms',
    kind: 'int',
    doc: 'retry an unreachable robots.txt after this long; its host waits',
    default: 300_000,
    min: 1,
    max: 86_400_000,
  },
  /**
   * Retries of an unreachable robots.txt before the host's URLs are dead-lettered
   * (`SHARDLINE_ERR_CRAWLER_ROBOTS_UNREACHABLE`, requeue them once the site is back); the count
   * is shared by all pods through the robots record in Redis. 0 dead-letters at the first
   * failure. The default is an hour at the default `robotsRetryMs`.
   */
  robotsMaxRetries: {
    env: 'ROBOTS_MAX_RETRIES',
    flag: 'robots-max-retries',
    kind: 'int',
    doc: 'unreachable robots.txt retries before the host is dead-lettered',
    default: 12,
    max: 10_000,
  },
  adaptiveDelayFactor: {
    env: 'ADAPTIVE_DELAY_FACTOR',
    flag: 'adaptive-delay-factor',
    kind: 'number',
    doc: 'per-host delay of factor × last response time (0 = off)',
    default: 0,
    arg: 'x',
  },
  /**
   * The adaptive delay per host, kept in the host's Redis state (shared by every pod, kept
   * across restarts and handoffs): slow responses raise it to factor × response time, a
   * 5xx/429/timeout doubles it, fast responses halve it back to the minimum. Factor 5
   * (Heritrix's default) unless `adaptiveDelayFactor` is set.
   */
  adaptiveDelay: {
    env: 'ADAPTIVE_DELAY',
    flag: 'adaptive-delay',
    kind: 'bool',
    doc: 'per-host delay that grows with response time and 5xx/timeouts, decays when fast',
    default: false,
  },
  maxDelayMs: {
    env: 'MAX_DELAY_MS',
    flag: 'max-delay-ms',
    kind: 'int',
    doc: 'cap of any per-host delay (adaptive, backoff)',
    default: 120_000,
  },
  /**
   * Per-IP politeness: hosts that resolve to the same address share one gate in Redis, across
   * every pod, on top of each host's own delay (0 = no per-IP gap).
   */
  perIpDelayMs: {
    env: 'PER_IP_DELAY_MS',
    flag: 'per-ip-delay-ms',
    kind: 'int',
    doc: 'least gap between requests to one IP address, cluster-wide (0 = off)',
    default: 0,
  },
  perIpConcurrency: {
    env: 'PER_IP_CONCURRENCY',
    flag: 'per-ip-concurrency',
    kind: 'int',
    doc: 'requests in flight per IP address, cluster-wide (0 = no limit)',
    default: 0,
    max: 1024,
  },
} satisfies Record<string, Setting>;
