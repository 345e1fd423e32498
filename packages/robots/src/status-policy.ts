/** What to do with a robots.txt fetch that ended with a given HTTP status. */
export type RobotsStatusPolicy = 'parse' | 'allow-all' | 'disallow-all' | 'redirect';

/** RFC 9309 §2.3.1.2: crawlers SHOULD follow at least five consecutive redirects. */
export const ROBOTS_MAX_REDIRECTS = 5;

/** RFC 9309 §2.4: a cached robots.txt SHOULD NOT be used for more than 24 hours. */
export const ROBOTS_CACHE_TTL_MS = 86_400_000;

/**
 * RFC 9309 §2.3.1: 2xx → parse; 3xx → the caller follows (at most
 * {@link ROBOTS_MAX_REDIRECTS}); 4xx "unavailable" → allow all; 5xx "unreachable" →
 * disallow all.
 *
 * Two choices beyond the RFC text: 429 Too Many Requests is a server asking us to back off,
 * so it is treated like 5xx (as Google does) rather than as "unavailable"; and anything that
 * is not an HTTP status at all (not an integer in 100–599, or 1xx as a final status) is
 * treated as unreachable, because allowing everything on a response we cannot read would
 * fail open.
 */
export function robotsTxtStatusPolicy(status: number): RobotsStatusPolicy {
  if (!Number.isInteger(status) || status < 100 || status > 599) return 'disallow-all';
  if (status >= 200 && status < 300) return 'parse';
  if (status >= 300 && status < 400) return 'redirect';
  if (status === 429) return 'disallow-all';
  if (status >= 400 && status < 500) return 'allow-all';
  return 'disallow-all';
}
