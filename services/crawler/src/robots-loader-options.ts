/** Options of {@link RobotsLoader} and their validation. */
import { ROBOTS_CACHE_TTL_MS, ROBOTS_MAX_REDIRECTS } from '@shardline/robots';
import { check, invalidOption } from './errors.js';
import type { RobotsSharedCache } from './robots-cache-record.js';
import type { RobotsFetcher, RobotsFetchHop, RobotsFetchOptions } from './robots-fetch.js';

const OWNER = 'RobotsLoaderOptions';

/** RFC 9309 §2.5: parse at least the first 500 KiB. */
const ROBOTS_MAX_BYTES = 512_000;

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

/** {@link RobotsLoaderOptions} with defaults applied: the fetch's part and the caches'. */
export interface ResolvedRobotsLoaderOptions extends RobotsFetchOptions {
  sharedCache: RobotsSharedCache | undefined;
  maxEntries: number;
  now: () => number;
}

/** Validates {@link RobotsLoaderOptions}; the error names the option, the value and its type. */
export function resolveRobotsLoaderOptions(
  options: RobotsLoaderOptions,
): ResolvedRobotsLoaderOptions {
  if (typeof options !== 'object' || options === null) {
    throw invalidOption('RobotsLoader', 'options', options, 'an object');
  }
  if (typeof options.fetcher?.fetch !== 'function') {
    throw invalidOption(OWNER, 'fetcher', options.fetcher, 'a Fetcher');
  }
  const shared = options.sharedCache;
  if (
    shared !== undefined &&
    (typeof shared?.get !== 'function' || typeof shared.set !== 'function')
  ) {
    throw invalidOption(OWNER, 'sharedCache', shared, 'an object with get and set');
  }
  const beforeFetch = check.fn<(origin: string) => Promise<void>>(
    OWNER,
    'beforeFetch',
    options.beforeFetch,
  );
  const onFetch = check.fn<(hop: RobotsFetchHop) => void>(OWNER, 'onFetch', options.onFetch);
  const signal = options.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw invalidOption(OWNER, 'signal', signal, 'an AbortSignal');
  }
  const maxEntries = check.int(OWNER, 'maxEntries', options.maxEntries, 10_000, 1);
  const ttlMs = check.int(
    OWNER,
    'ttlMs',
    options.ttlMs,
    ROBOTS_CACHE_TTL_MS,
    1,
    ROBOTS_CACHE_TTL_MS,
  );
  const minTtlMs = check.int(
    OWNER,
    'minTtlMs',
    options.minTtlMs,
    Math.min(600_000, ttlMs),
    0,
    ttlMs,
  );
  const unreachableRetryMs = check.int(
    OWNER,
    'unreachableRetryMs',
    options.unreachableRetryMs,
    Math.min(300_000, ttlMs),
    1,
    ttlMs,
  );
  const maxRedirects = check.int(
    OWNER,
    'maxRedirects',
    options.maxRedirects,
    ROBOTS_MAX_REDIRECTS,
    0,
    20,
  );
  const maxBytes = check.int(
    OWNER,
    'maxBytes',
    options.maxBytes,
    ROBOTS_MAX_BYTES,
    ROBOTS_MAX_BYTES,
  );
  const now = check.fn<() => number>(OWNER, 'now', options.now) ?? Date.now;
  return {
    fetcher: options.fetcher,
    sharedCache: shared,
    beforeFetch,
    onFetch,
    signal,
    maxRedirects,
    limits: { maxBytes, ttlMs, minTtlMs, unreachableRetryMs },
    maxEntries,
    now,
  };
}
