/**
 * URLFrontier queues on the sharded frontier: a queue is a host, shardline's unit of
 * politeness and URLFrontier's own default key. A client that keys its URLs by registrable
 * domain (StormCrawler's `partition.url.mode: byDomain`) is accepted — each URL still waits in
 * its host's queue, the stricter split (politeness per host, never less) — but a key naming
 * neither the URL's host nor its domain cannot be honoured without giving up per-host
 * politeness, so such a URL is refused (SKIPPED), never silently re-keyed.
 */
import { type CanonicalUrl, tryCanonicalize } from '@shardline/url';

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

/** A queue key (a host name) in requests that carry only a key, canonical, or `null` when malformed. */
export function parseQueueKey(key: string): { host: string; domain: string } | null {
  const k = key.trim().toLowerCase().replace(/\.$/, '');
  if (k === '' || k.length > 253 || /[/?#@\s]/.test(k)) return null;
  const parsed = tryCanonicalize(`http://${k}/`);
  if (!parsed.ok) return null;
  return { host: parsed.value.host, domain: parsed.value.domain };
}
