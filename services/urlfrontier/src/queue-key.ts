/**
 * URLFrontier queues on the sharded frontier: a queue is a host, shardline's unit of
 * politeness and URLFrontier's own default key. A client that keys its URLs by registrable
 * domain (StormCrawler's `partition.url.mode: byDomain`) is accepted — each URL still waits in
 * its host's queue, the stricter split (politeness per host, never less) — but a key naming
 * neither the URL's host nor its domain cannot be honoured without giving up per-host
 * politeness, so such a URL is refused (SKIPPED), never silently re-keyed.
 */
import {
  type CanonicalUrl,
  type HostKey,
  hostKey,
  tryCanonicalize,
  UrlError,
} from '@shardline/url';

/** The canonical URL of a client's URL string, or why it has none. */
export function canonicalUrl(url: string): { url: CanonicalUrl } | { reason: string } {
  const result = tryCanonicalize(url);
  return result.ok ? { url: result.value } : { reason: result.error.message };
}

/** Whether a client key fits a URL: empty, the URL's host, or its registrable domain. */
export function keyFitsUrl(key: string, url: CanonicalUrl): boolean {
  const k = key.trim().toLowerCase().replace(/\.$/, '');
  return k === '' || k === url.host || k === url.domain;
}

/**
 * A queue key (a host name) in requests that carry only a key, keyed as the frontier keys
 * hosts (`hostKey`: case, a trailing dot, Unicode), or `null` when it is not a host name.
 */
export function parseQueueKey(key: string): HostKey | null {
  const k = key.trim();
  // A queue key names a host; hostKey would also take a whole URL.
  if (k === '' || k.includes('/')) return null;
  try {
    return hostKey(k);
  } catch (error) {
    if (error instanceof UrlError) return null;
    throw error;
  }
}
