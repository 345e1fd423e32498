/**
 * Gets the RobotsTxt of an origin: in-process LRU, then a pluggable shared cache (Redis in the
 * pod), then a fetch of /robots.txt through the crawler's own Fetcher (same User-Agent, DNS
 * policy and limits), following at most five redirects. Concurrent loads of one origin share
 * one fetch.
 */
import {
  ROBOTS_CACHE_TTL_MS,
  ROBOTS_MAX_REDIRECTS,
  RobotsTxt,
  type RobotsTxtJson,
} from '@shardline/robots';
import { canonicalize } from '@shardline/url';
import { LRUCache } from 'lru-cache';
import { CrawlerError, CrawlerErrorCode, check, FetchErrorCode, invalidOption } from './errors.js';
import type { FetchOptions, FetchOutcome, FetchTimings } from './fetch-types.js';
import {
  type AnswerLimits,
  nowhereAnswer,
  type RobotsAnswer,
  robotsAnswer,
} from './robots-answer.js';

const OWNER = 'RobotsLoaderOptions';

/** RFC 9309 §2.5: parse at least the first 500 KiB. */
const ROBOTS_MAX_BYTES = 512_000;

/** What the shared cache stores per origin; `expiresAtMs` keeps a copy from outliving its fetch. */
export interface RobotsCacheRecord {
  v: 1;
  robots: RobotsTxtJson;
  /** Epoch ms of the fetch that produced `robots`. */
  fetchedAtMs: number;
  /** Epoch ms after which `robots` must be fetched again (≤ 24 h after `fetchedAtMs`). */
  expiresAtMs: number;
  /**
   * Consecutive fetches that found robots.txt unreachable (5xx, 429, network error), this one
   * included; absent when it was reachable. Lets the crawler give up on a host that stays
   * unreachable, whichever pod retried it before.
   */
  unreachable?: number;
}

/**
 * Second-level cache shared by pods (the pod backs it with Redis). `set` receives the TTL the
 * store should apply (e.g. `SET … PX ttlMs`). The loader counts its errors
 * (`stats().sharedCacheErrors`) and goes on: a broken cache costs a fetch, never a wrong answer.
 */
export interface RobotsSharedCache {
  get(origin: string): Promise<RobotsCacheRecord | undefined>;
  set(origin: string, record: RobotsCacheRecord, ttlMs: number): Promise<void>;
}

/** The part of `Fetcher` the loader uses. */
export interface RobotsFetcher {
  fetch(url: string, options?: FetchOptions): Promise<FetchOutcome>;
}

/** One HTTP request made while loading a robots.txt (one per redirect hop). */
export interface RobotsFetchHop {
  /** Origin the request went to (what `beforeFetch` was called with). */
  origin: string;
  url: string;
  status: number;
  timings: FetchTimings;
  error?: FetchOutcome['error'];
  /** The whole fetch outcome (body included), e.g. for an archive. */
  outcome: FetchOutcome;
}

/** Result of {@link RobotsLoader.load}. */
export interface RobotsLoadResult {
  /** The canonical origin (`scheme://host[:port]`). */
  origin: string;
  robots: RobotsTxt;
  /** Where the answer came from. */
  from: 'memory' | 'shared-cache' | 'fetch';
  /** Epoch ms until which the answer is used. */
  expiresAtMs: number;
  /**
   * How many fetches in a row found robots.txt unreachable, up to and including the one that
   * gave this answer (then `robots` disallows all until `expiresAtMs`, the retry time); 0 when
   * robots.txt was reachable.
   */
  unreachable: number;
  /** Requests made for this answer (empty unless `from === 'fetch'`). */
  hops: RobotsFetchHop[];
  /**
   * Set when this pod's fetch took robots.txt as unavailable (allow all) because it redirects
   * to nowhere — an address the policy refuses or a name that does not resolve: why (also on
   * the memory hits of that answer; every lease it decides records it).
   */
  unavailable?: string;
}

/** Options of {@link RobotsLoader}. */
export interface RobotsLoaderOptions {
  /** Fetches /robots.txt; pass the crawler's `Fetcher` so UA, DNS policy and limits match. */
  fetcher: RobotsFetcher;
  /** Second-level cache (Redis in the pod). @default undefined (memory only) */
  sharedCache?: RobotsSharedCache;
  /**
   * Politeness hook, awaited before every robots request (each redirect hop) with the origin
   * it goes to; the pod wires it to its per-host gate. A rejection aborts the load (nothing
   * is cached). @default undefined
   */
  beforeFetch?: (origin: string) => Promise<void>;
  /** Called after every robots request with its status and timings (politeness bookkeeping). */
  onFetch?: (hop: RobotsFetchHop) => void;
  /**
   * Aborts robots.txt requests in flight (the pod is stopping): their loads reject with
   * `SHARDLINE_ERR_CRAWLER_ABORTED` and nothing is cached — an abandoned request says nothing
   * about the site, so it must not count as unreachable. @default undefined
   */
  signal?: AbortSignal;
  /** Origins kept in the in-process LRU (fresh and expired ones alike). @default 10000 */
  maxEntries?: number;
  /** Lifetime of a fetched robots.txt; RFC 9309 §2.4 caps it at 24 h. @default 86400000 */
  ttlMs?: number;
  /**
   * A shorter `Cache-Control: max-age` is honoured, but never below this (a `max-age=0`
   * robots.txt must not be refetched before every page). @default 600000 (10 min)
   */
  minTtlMs?: number;
  /**
   * Lifetime of the "disallow all" answer for a 5xx / 429 / unreachable robots.txt, so it is
   * retried soon; a longer `Retry-After` is honoured up to `ttlMs`. @default 300000 (5 min)
   */
  unreachableRetryMs?: number;
  /** Redirects followed (RFC 9309 §2.3.1.2 asks for at least five). @default 5 */
  maxRedirects?: number;
  /** Bytes of robots.txt read and parsed (≥ 500 KiB per RFC 9309 §2.5). @default 512000 */
  maxBytes?: number;
  /** Clock (epoch ms); tests move it to expire entries. @default Date.now */
  now?: () => number;
}

interface MemoryEntry {
  robots: RobotsTxt;
  expiresAtMs: number;
  unreachable: number;
  // Why this pod's fetch took robots.txt as unavailable (see RobotsLoadResult.unavailable).
  unavailable?: string;
}

/** Loads, caches and coalesces robots.txt per origin. */
export class RobotsLoader {
  readonly #fetcher: RobotsFetcher;
  readonly #shared: RobotsSharedCache | undefined;
  readonly #beforeFetch: ((origin: string) => Promise<void>) | undefined;
  readonly #onFetch: ((hop: RobotsFetchHop) => void) | undefined;
  readonly #signal: AbortSignal | undefined;
  readonly #ttlMs: number;
  readonly #minTtlMs: number;
  readonly #unreachableRetryMs: number;
  readonly #maxRedirects: number;
  readonly #maxBytes: number;
  readonly #now: () => number;
  // Each entry lives until its expiresAtMs on the loader's clock; an expired one stays (unused)
  // until a new answer replaces it or it is evicted, so its unreachable count carries on.
  readonly #memory: LRUCache<string, MemoryEntry>;
  // One promise per origin being loaded; every concurrent caller awaits the same one.
  readonly #inflight = new Map<string, Promise<RobotsLoadResult>>();
  #fetches = 0;
  #coalesced = 0;
  #memoryHits = 0;
  #sharedHits = 0;
  #sharedCacheErrors = 0;
  #onFetchErrors = 0;

  constructor(options: RobotsLoaderOptions) {
    if (typeof options !== 'object' || options === null) {
      throw invalidOption('RobotsLoader', 'options', options, 'an object');
    }
    if (typeof options.fetcher?.fetch !== 'function') {
      throw invalidOption(OWNER, 'fetcher', options.fetcher, 'a Fetcher');
    }
    this.#fetcher = options.fetcher;
    const shared = options.sharedCache;
    if (
      shared !== undefined &&
      (typeof shared?.get !== 'function' || typeof shared.set !== 'function')
    ) {
      throw invalidOption(OWNER, 'sharedCache', shared, 'an object with get and set');
    }
    this.#shared = shared;
    this.#beforeFetch = check.fn(OWNER, 'beforeFetch', options.beforeFetch);
    this.#onFetch = check.fn(OWNER, 'onFetch', options.onFetch);
    const signal = options.signal;
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      throw invalidOption(OWNER, 'signal', signal, 'an AbortSignal');
    }
    this.#signal = signal;
    const maxEntries = check.int(OWNER, 'maxEntries', options.maxEntries, 10_000, 1);
    this.#ttlMs = check.int(
      OWNER,
      'ttlMs',
      options.ttlMs,
      ROBOTS_CACHE_TTL_MS,
      1,
      ROBOTS_CACHE_TTL_MS,
    );
    this.#minTtlMs = check.int(
      OWNER,
      'minTtlMs',
      options.minTtlMs,
      Math.min(600_000, this.#ttlMs),
      0,
      this.#ttlMs,
    );
    this.#unreachableRetryMs = check.int(
      OWNER,
      'unreachableRetryMs',
      options.unreachableRetryMs,
      Math.min(300_000, this.#ttlMs),
      1,
      this.#ttlMs,
    );
    this.#maxRedirects = check.int(
      OWNER,
      'maxRedirects',
      options.maxRedirects,
      ROBOTS_MAX_REDIRECTS,
      0,
      20,
    );
    this.#maxBytes = check.int(
      OWNER,
      'maxBytes',
      options.maxBytes,
      ROBOTS_MAX_BYTES,
      ROBOTS_MAX_BYTES,
    );
    this.#now = check.fn<() => number>(OWNER, 'now', options.now) ?? Date.now;
    this.#memory = new LRUCache({
      max: maxEntries,
      // Entry TTLs are measured on the loader's own clock (tests move it), read afresh each time.
      perf: { now: this.#now },
      ttlResolution: 0,
      noDeleteOnStaleGet: true,
    });
  }

  /**
   * The robots.txt rules for the origin of `urlOrOrigin` (any URL of the site works).
   * Never rejects for network or HTTP problems (those become allow-all / disallow-all per
   * RFC 9309); rejects when the URL is not http(s), when `beforeFetch` rejects, when the
   * fetcher is closed, or (`SHARDLINE_ERR_CRAWLER_ABORTED`) when `options.signal` or the
   * loader's own `signal` aborts. A caller's signal only stops that caller's wait: the load
   * it may share with other callers goes on.
   */
  load(urlOrOrigin: string, options: { signal?: AbortSignal } = {}): Promise<RobotsLoadResult> {
    const signal = options?.signal;
    if (signal === undefined) return this.#load(urlOrOrigin);
    if (signal.aborted) return Promise.reject(aborted());
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(aborted());
      signal.addEventListener('abort', onAbort, { once: true });
      this.#load(urlOrOrigin)
        .then(resolve, reject)
        .finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  #load(urlOrOrigin: string): Promise<RobotsLoadResult> {
    let origin: string;
    try {
      origin = canonicalize(urlOrOrigin).origin;
    } catch (cause) {
      return Promise.reject(
        new CrawlerError(
          CrawlerErrorCode.INVALID_ARGUMENT,
          `RobotsLoader.load needs an http(s) URL; got ${JSON.stringify(String(urlOrOrigin).slice(0, 200))}`,
          { cause },
        ),
      );
    }
    const cached = this.#memory.get(origin);
    if (cached) {
      this.#memoryHits += 1;
      return Promise.resolve({
        ...(cached.unavailable === undefined ? {} : { unavailable: cached.unavailable }),
        origin,
        robots: cached.robots,
        from: 'memory',
        expiresAtMs: cached.expiresAtMs,
        unreachable: cached.unreachable,
        hops: [],
      });
    }
    const running = this.#inflight.get(origin);
    if (running) {
      this.#coalesced += 1;
      return running;
    }
    // An expired entry stays until the new answer replaces it: its unreachable count carries on.
    const expired = this.#memory.peek(origin, { allowStale: true });
    const promise = this.#loadUncached(origin, expired?.unreachable ?? 0).finally(() =>
      this.#inflight.delete(origin),
    );
    this.#inflight.set(origin, promise);
    return promise;
  }

  /**
   * Counters since construction. `sharedCacheErrors` counts shared-cache reads and writes that
   * failed (or read a corrupt record) and fell back to a fetch / went unstored; `onFetchErrors`
   * counts throws of the `onFetch` observer, which do not stop the load.
   */
  stats(): {
    memoryHits: number;
    sharedHits: number;
    fetches: number;
    coalesced: number;
    size: number;
    sharedCacheErrors: number;
    onFetchErrors: number;
  } {
    return {
      memoryHits: this.#memoryHits,
      sharedHits: this.#sharedHits,
      fetches: this.#fetches,
      coalesced: this.#coalesced,
      size: this.#memory.size,
      sharedCacheErrors: this.#sharedCacheErrors,
      onFetchErrors: this.#onFetchErrors,
    };
  }

  async #loadUncached(origin: string, unreachableBefore: number): Promise<RobotsLoadResult> {
    const shared = await this.#readShared(origin);
    if (shared?.fresh) {
      this.#sharedHits += 1;
      this.#remember(origin, shared.robots, shared.expiresAtMs, shared.unreachable);
      return {
        origin,
        robots: shared.robots,
        from: 'shared-cache',
        expiresAtMs: shared.expiresAtMs,
        unreachable: shared.unreachable,
        hops: [],
      };
    }
    const { robots, hops, ttlMs, reachable, unavailable: why } = await this.#fetchRobots(origin);
    const unreachable = reachable ? 0 : Math.max(unreachableBefore, shared?.unreachable ?? 0) + 1;
    const fetchedAtMs = this.#now();
    const expiresAtMs = fetchedAtMs + ttlMs;
    this.#remember(origin, robots, expiresAtMs, unreachable, why);
    if (this.#shared) {
      const record: RobotsCacheRecord = { v: 1, robots: robots.toJSON(), fetchedAtMs, expiresAtMs };
      if (unreachable > 0) record.unreachable = unreachable;
      try {
        // An unreachable answer is kept past its expiry (but not used) so that the next
        // fetch, by any pod, continues its count.
        await this.#shared.set(origin, record, unreachable > 0 ? ttlMs + this.#ttlMs : ttlMs);
      } catch {
        // A cache that cannot store costs later fetches, not correctness: counted, not thrown.
        this.#sharedCacheErrors += 1;
      }
    }
    const result: RobotsLoadResult = {
      origin,
      robots,
      from: 'fetch',
      expiresAtMs,
      unreachable,
      hops,
    };
    if (why !== undefined) result.unavailable = why;
    return result;
  }

  /** The shared record of an origin; `fresh` false once it expired (its count still counts). */
  async #readShared(
    origin: string,
  ): Promise<
    { robots: RobotsTxt; expiresAtMs: number; unreachable: number; fresh: boolean } | undefined
  > {
    if (!this.#shared) return undefined;
    try {
      const record = await this.#shared.get(origin);
      if (
        record?.v !== 1 ||
        typeof record.expiresAtMs !== 'number' ||
        typeof record.fetchedAtMs !== 'number'
      ) {
        return undefined;
      }
      // Never trust a stored expiry beyond 24 h from its fetch, whatever wrote it.
      const expiresAtMs = Math.min(record.expiresAtMs, record.fetchedAtMs + ROBOTS_CACHE_TTL_MS);
      const unreachable =
        Number.isSafeInteger(record.unreachable) && (record.unreachable as number) > 0
          ? (record.unreachable as number)
          : 0;
      return {
        robots: RobotsTxt.fromJSON(record.robots),
        expiresAtMs,
        unreachable,
        fresh: expiresAtMs > this.#now(),
      };
    } catch {
      // Unreachable store or a corrupt record: counted, and a fetch answers instead.
      this.#sharedCacheErrors += 1;
      return undefined;
    }
  }

  #remember(
    origin: string,
    robots: RobotsTxt,
    expiresAtMs: number,
    unreachable: number,
    unavailable?: string,
  ): void {
    const ttl = expiresAtMs - this.#now();
    // lru-cache reads a TTL of 0 as "never expires": an answer already expired (max-age=0 with
    // minTtlMs 0, always reachable) replaces the old entry and is not kept itself.
    const entry: MemoryEntry = { robots, expiresAtMs, unreachable };
    if (unavailable !== undefined) entry.unavailable = unavailable;
    if (ttl > 0) this.#memory.set(origin, entry, { ttl });
    else this.#memory.delete(origin);
  }

  async #fetchRobots(origin: string): Promise<RobotsAnswer & { hops: RobotsFetchHop[] }> {
    const hops: RobotsFetchHop[] = [];
    let url = `${origin}/robots.txt`;
    for (let redirects = 0; ; redirects++) {
      const hopOrigin = new URL(url).origin;
      await this.#beforeFetch?.(hopOrigin);
      this.#fetches += 1;
      // One byte past the parse limit, so RobotsTxt.parse sees that the file went on and marks
      // the answer truncated (it parses complete lines within maxBytes only).
      const outcome = await this.#fetcher.fetch(url, {
        keepBody: 'always',
        maxBodyBytes: this.#maxBytes + 1,
        ...(this.#signal ? { signal: this.#signal } : {}),
      });
      const hop: RobotsFetchHop = {
        origin: hopOrigin,
        url,
        status: outcome.status,
        timings: outcome.timings,
        outcome,
      };
      if (outcome.error) hop.error = outcome.error;
      hops.push(hop);
      try {
        this.#onFetch?.(hop);
      } catch {
        // Bookkeeping must not break loading: counted, not thrown.
        this.#onFetchErrors += 1;
      }
      // After onFetch, which settles the request's politeness bookkeeping.
      if (outcome.error?.code === FetchErrorCode.ABORTED) throw aborted();
      const isRedirect = outcome.status >= 300 && outcome.status < 400;
      if (isRedirect && outcome.redirectTo && !outcome.error && redirects < this.#maxRedirects) {
        const next = new URL(outcome.redirectTo);
        if (next.protocol === 'http:' || next.protocol === 'https:') {
          url = next.href;
          continue;
        }
      }
      const answer = redirects > 0 ? nowhereAnswer(url, outcome, this.#ttlMs) : undefined;
      return { ...(answer ?? robotsAnswer(outcome, this.#answerLimits())), hops };
    }
  }

  #answerLimits(): AnswerLimits {
    return {
      maxBytes: this.#maxBytes,
      ttlMs: this.#ttlMs,
      minTtlMs: this.#minTtlMs,
      unreachableRetryMs: this.#unreachableRetryMs,
    };
  }
}

function aborted(): CrawlerError {
  return new CrawlerError(CrawlerErrorCode.ABORTED, 'robots.txt load aborted');
}
