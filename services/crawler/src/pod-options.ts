/**
 * The options and counters of {@link CrawlerPod} (`crawler-pod.ts`). The settings part of the
 * options comes from the settings table (`settings.ts`); the live objects are declared here.
 */
import type { BackgroundErrorCounts } from '@shardline/frontier';
import type { Assignment } from '@shardline/membership';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ArchiveStats } from './archive/pod-archive.js';
import type { PageHandler } from './handlers/page-api.js';
import type { CrawlResult } from './results.js';
import type { PodSettingOptions } from './settings.js';
import type { WakeSubscriber } from './work-loop.js';

/** The live objects a pod is given (no environment variable or flag can carry them). */
export interface PodLiveOptions {
  /** A connected ioredis client (the pod never closes it). */
  redis: Redis | Cluster;
  /**
   * Connection for the wake channel (subscriber mode). @default `redis.duplicate()` for a
   * plain client (closed by the pod); none for a Cluster (due times only)
   */
  subscriber?: WakeSubscriber;
  /**
   * Fixed domain ownership instead of the pod registry (unit tests, a single pod without
   * membership). @default none: a `Membership` of the pod registry (`@shardline/membership`)
   */
  assignment?: Assignment;
  /** Logger. @default pino at level 'warn' */
  logger?: Logger;
  /**
   * Page handler run on every fetched 2xx page (see `Page`, `HandlerContext`); the library form
   * of the `handler` setting, which it overrides. @default none
   */
  pageHandler?: PageHandler;
  /** Told of every lease's result as it is recorded (the CLI's failure log and summary). */
  onResult?: (result: CrawlResult) => void;
}

/**
 * Options of {@link CrawlerPod}: every setting of the settings table (`POD_SETTINGS`, each
 * optional; durations in ms, sizes in bytes) and the live objects.
 */
export type CrawlerPodOptions = PodSettingOptions & PodLiveOptions;

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
  /** Conditional refetches answered 304 Not Modified (unchanged, no body). */
  notModified: number;
  /** Same-origin links dropped before enqueue because robots.txt disallows them. */
  robotsFilteredLinks: number;
  /** robots.txt answers by source. */
  robotsLoads: { memory: number; 'shared-cache': number; fetch: number };
  redirects: number;
  bytes: number;
  linksQueued: number;
  /** Items page handlers pushed (written to the items stream / JSONL). */
  items: number;
  /** Page handler runs that threw or timed out (`SHARDLINE_ERR_HANDLER`). */
  handlerErrors: number;
  /** The WARC archive's counters; absent when the pod writes none. */
  warc?: ArchiveStats;
  /** Outcomes by error code (`http-503`, `SHARDLINE_ERR_FETCH_TIMEOUT`, …). */
  errors: Record<string, number>;
  /** Bounds hit, by name. */
  bounds: Record<string, number>;
  inFlight: number;
  claims: number;
  emptyClaims: number;
  wakes: number;
  gate: { waits: number; delayedMs: number; hosts: number };
  /** The per-IP gate (`perIpDelayMs`/`perIpConcurrency`); zeros when it is off. */
  ipGate: { waits: number; delayedMs: number; errors: number };
  results: { written: number; errors: number };
  /**
   * Background failures that did not stop the pod (each one is logged where it happens):
   * membership heartbeats/handoffs/sweeps and subscriber errors, the frontier's pod
   * registration, claim forwarding and refused function library, robots.txt shared-cache reads/writes and observer
   * throws, and send-time observer throws of the fetcher.
   */
  faults: {
    membership: number;
    frontier: BackgroundErrorCounts;
    robotsSharedCache: number;
    robotsObserver: number;
    fetchObserver: number;
    /** Episodes of Redis refusing writes for want of memory (`SHARDLINE_ERR_REDIS_OOM`). */
    redisOom: number;
    /** 1 when the pod stopped because Redis lost the frontier (`SHARDLINE_ERR_FRONTIER_LOST`). */
    frontierLost: number;
    /**
     * 1 when the pod stopped because another instance took its pod id over while it stalled
     * (`SHARDLINE_ERR_MEMBERSHIP_SUPERSEDED`).
     */
    superseded: number;
    /** Deaths of the WARC writer's thread (`SHARDLINE_ERR_WARC_THREAD`); 0 without an archive. */
    warcThread: number;
    /** Results that could not be written to the results stream or JSONL file (`results.errors`). */
    resultWrites: number;
    /** Items (a page handler's) that could not be written to the items stream or JSONL file. */
    itemWrites: number;
  };
}
