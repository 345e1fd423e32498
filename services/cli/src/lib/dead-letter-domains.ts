/**
 * Which domains hold dead letters, from the frontier's dead-letter domains index
 * (`frontier.inspector.deadLetterDomains`, a ZSET of domain → dead letters held): paged reads of that
 * index only, never a walk over all domains.
 */
import type { RedisFrontier } from '@shardline/frontier';

/** Domains read per ZREVRANGEBYSCORE when collecting every domain with dead letters. */
const PAGE = 1000;

/**
 * Up to `limit` domains holding dead letters, most first, and whether more follow. `dead`
 * is the domain's dead-letter count as the index keeps it (eventually consistent).
 */
export async function domainsWithDeadLetters(
  frontier: RedisFrontier,
  limit: number,
): Promise<{ domains: { domain: string; dead: number }[]; more: boolean }> {
  const rows = await frontier.inspector.deadLetterDomains({ offset: 0, limit: limit + 1 });
  const more = rows.length > limit;
  return { domains: rows.slice(0, limit).map((r) => ({ domain: r.domain, dead: r.count })), more };
}

/**
 * Every domain holding dead letters (for `--requeue` without a domain), read in pages of
 * {@link PAGE}: O(domains with dead letters), not O(domains). Collected before anything is
 * requeued, because requeueing removes domains from the index being paged.
 */
export async function allDomainsWithDeadLetters(frontier: RedisFrontier): Promise<string[]> {
  const out = new Set<string>();
  for (let offset = 0; ; offset += PAGE) {
    const rows = await frontier.inspector.deadLetterDomains({ offset, limit: PAGE });
    for (const r of rows) out.add(r.domain);
    if (rows.length < PAGE) return [...out];
  }
}
