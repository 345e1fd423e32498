/**
 * Gets the RobotsTxt of an origin: in-process LRU, then a pluggable shared cache (Redis in the
 * pod, robots-cache-record.ts), then a fetch of /robots.txt (robots-fetch.ts). Concurrent loads
 * of one origin share one fetch.
 */
import type { RobotsTxt } from '@shardline/robots';
import { canonicalize } from '@shardline/url';
import { LRUCache } from 'lru-cache';
import { CrawlerError, CrawlerErrorCode } from './errors.js';
import {
  decodeCacheRecord,
  type RobotsCacheRecord,
  type RobotsSharedCache,
  type SharedRobots,
} from './robots-cache-record.js';
import { RobotsFetch, type RobotsFetchHop, robotsLoadAborted } from './robots-fetch.js';
import { type RobotsLoaderOptions, resolveRobotsLoaderOptions } from './robots-loader-options.js';

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

interface MemoryEntry {
  robots: RobotsTxt;
  expiresAtMs: number;
  unreachable: number;
  // Why this pod's fetch took robots.txt as unavailable (see RobotsLoadResult.unavailable).
  unavailable?: string;
}

/** Loads, caches and coalesces robots.txt per origin. */
export class RobotsLoader {
  readonly #shared: RobotsSharedCache | undefined;
  readonly #fetch: RobotsFetch;
  // Lifetime of a fetched answer: an unreachable one is kept this much longer in the shared cache.
  readonly #ttlMs: number;
  readonly #now: () => number;
  // Each entry lives until its expiresAtMs on the loader's clock; an expired one stays (unused)
  // until a new answer replaces it or it is evicted, so its unreachable count carries on.
  readonly #memory: LRUCache<string, MemoryEntry>;
  // One promise per origin being loaded; every concurrent caller awaits the same one.
  readonly #inflight = new Map<string, Promise<RobotsLoadResult>>();
  #coalesced = 0;
  #memoryHits = 0;
  #sharedHits = 0;
  #sharedCacheErrors = 0;

  constructor(options: RobotsLoaderOptions) {
    const o = resolveRobotsLoaderOptions(options);
    this.#shared = o.sharedCache;
    this.#fetch = new RobotsFetch(o);
    this.#ttlMs = o.limits.ttlMs;
    this.#now = o.now;
    this.#memory = new LRUCache({
      max: o.maxEntries,
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
    if (signal.aborted) return Promise.reject(robotsLoadAborted());
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(robotsLoadAborted());
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
      fetches: this.#fetch.requests,
      coalesced: this.#coalesced,
      size: this.#memory.size,
      sharedCacheErrors: this.#sharedCacheErrors,
      onFetchErrors: this.#fetch.onFetchErrors,
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
    const { robots, hops, ttlMs, reachable, unavailable: why } = await this.#fetch.fetch(origin);
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

  /** The shared record of an origin, if any and readable. */
  async #readShared(origin: string): Promise<SharedRobots | undefined> {
    if (!this.#shared) return undefined;
    try {
      const record = await this.#shared.get(origin);
      return decodeCacheRecord(record, this.#now());
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
}
