/**
 * What the stages of the lease pipeline share about one lease: the lease itself, what each
 * stage found (robots answer, gate pass, fetch outcome, links), and what the result will say.
 * A stage reads what earlier stages wrote and adds its own part.
 */
import type { Lease } from '@shardline/frontier';
import type { WarcLocation } from '@shardline/warc';
import { CrawlerError, CrawlerErrorCode } from '../errors.js';
import type { FetchOutcome } from '../fetcher.js';
import type { CrawlResult } from '../results.js';
import type { RobotsLoadResult } from '../robots-loader.js';
import type { GatePass } from '../send-gate.js';
import { sitemapLevel } from './sitemap-lease.js';

/** The result fields known when the lease arrives. */
export type ResultBase = Pick<
  CrawlResult,
  'url' | 'host' | 'domain' | 'depth' | 'attempt' | 'pod' | 'startedAtMs'
>;

/** A URL a lease leads to, as it goes to the frontier. */
export interface FoundLink {
  url: string;
  depth: number;
  /** Lease meta (sitemaps, tags). */
  meta?: string;
  /** Frontier priority (a handler's `ctx.enqueue`). */
  priority?: number;
  /** Refetch interval (a handler's `ctx.enqueue`). */
  refetchAfterMs?: number;
}

/** One lease on its way through the pipeline. */
export interface LeaseContext {
  readonly lease: Lease;
  /** Aborted when the pod stops: every wait of the lease ends with it. */
  readonly signal: AbortSignal;
  readonly base: ResultBase;
  /** Index nesting level when the lease is a sitemap (its meta says so), else undefined. */
  readonly sitemapLevel: number | undefined;
  /** The host's robots.txt answer (robots stage). */
  robots?: RobotsLoadResult;
  /** The send gate's pass for the page request (send-gate stage; closed by the fetch). */
  pass?: GatePass;
  /**
   * When the page request was sent, by `performance.now()` (fetch stage): the completion
   * tells the frontier how long ago that was, so the host's next slot counts from the send.
   */
  sentAtPerfMs?: number;
  /** The page's fetch outcome (fetch stage). */
  outcome?: FetchOutcome;
  /** Where the response was archived (archive stage), for the result. */
  warc?: WarcLocation;
  /** The page handler called `ctx.skipLinks()`: no default link extraction for this page. */
  skipPageLinks?: boolean;
  /** URLs found (links, redirect target, sitemaps), in the order they were enqueued. */
  links: FoundLink[];
  /** How many of `links` the frontier queued (not duplicates, rejects or over the cap). */
  linksQueued: number;
  /** Bounds hit, by name (the result lists each once). */
  bounds: string[];
  /** For a completed lease: a remark for the result's `error` (e.g. a broken sitemap). */
  note?: string;
}

/** A fresh context for `lease`, claimed by pod `pod`. */
export function newLeaseContext(lease: Lease, signal: AbortSignal, pod: string): LeaseContext {
  return {
    lease,
    signal,
    base: {
      url: lease.url,
      host: lease.host,
      domain: lease.domain,
      depth: lease.depth,
      attempt: lease.attempt,
      pod,
      startedAtMs: Date.now(),
    },
    sitemapLevel: sitemapLevel(lease.meta),
    links: [],
    linksQueued: 0,
    bounds: [],
  };
}

/** What an earlier stage must have put in the context; a clear error when the order is wrong. */
export function required<T>(value: T | undefined, what: string, stage: string): T {
  if (value === undefined) {
    throw new CrawlerError(
      CrawlerErrorCode.INVALID_ARGUMENT,
      `${stage} stage: the lease context has no ${what} (is the stage order right?)`,
    );
  }
  return value;
}
