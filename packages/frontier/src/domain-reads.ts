/**
 * Reads of a domain's hosts and of archived domains (archive.ts, lua/includes/archive.lua)
 * for `FrontierInspector` and the reindex: a domain's first host is a field of its counter
 * hash, the others its hosts set (host.lua host_add); an archived domain has no keys of its
 * own, so each read of a domain also reads its field of the archive hash and merges what a
 * write left in live keys since (counts add up).
 */
import type { Cluster, Redis } from 'ioredis';
import { type ArchivedDomain, decodeArchived } from './archive.js';
import { decodeDomainStats, withPoliteness } from './codec.js';
import type { FrontierKeys } from './keys.js';
import type { DomainStats } from './read-types.js';

/** The live hosts of a domain: its counter hash's `h1` and its hosts set. */
export async function readLiveHosts(
  redis: Redis | Cluster,
  keys: FrontierKeys,
  domain: string,
): Promise<string[]> {
  const [first, rest] = await Promise.all([
    redis.hget(keys.domain(domain), 'h1'),
    redis.smembers(keys.hosts(domain)) as Promise<string[]>,
  ]);
  return first && !rest.includes(first) ? [first, ...rest] : rest;
}

/** The archived state of a domain in the keys' crawl, or `null` when it is not archived. */
export async function readArchived(
  redis: Redis | Cluster,
  keys: FrontierKeys,
  domain: string,
): Promise<ArchivedDomain | null> {
  const value = await redis.hgetBuffer(keys.archive(domain), keys.archiveField(domain));
  return value ? decodeArchived(domain, value) : null;
}

/** Live fields over archived ones: counts add up, a value written since the archive wins. */
export function mergeArchivedFields(
  archived: Record<string, string>,
  live: Record<string, string>,
): Record<string, string> {
  const out = { ...archived };
  for (const [field, value] of Object.entries(live)) {
    const before = out[field];
    out[field] =
      before !== undefined && /^-?\d+$/.test(before) && /^-?\d+$/.test(value)
        ? String(Number(before) + Number(value))
        : value;
  }
  return out;
}

/** A domain's exact counters, live or archived (`FrontierInspector.domainStats`). */
export async function readDomainStats(
  redis: Redis | Cluster,
  keys: FrontierKeys,
  domain: string,
): Promise<DomainStats> {
  const [live, liveHosts, polite, archived] = (await Promise.all([
    redis.hgetall(keys.domain(domain)),
    redis.smembers(keys.hosts(domain)),
    // A block is the domain's in every crawl: it lives with the politeness keys.
    keys.isDefaultCrawl ? null : redis.hgetall(keys.domainPoliteness(domain)),
    readArchived(redis, keys, domain),
  ])) as [Record<string, string>, string[], Record<string, string> | null, ArchivedDomain | null];
  const hash = archived ? mergeArchivedFields(archived.domain, live) : live;
  const first = live.h1 && !liveHosts.includes(live.h1) ? [live.h1, ...liveHosts] : liveHosts;
  const hosts = archived ? [...new Set([...first, ...archived.hosts.keys()])] : first;
  const stats = decodeDomainStats(
    domain,
    polite ? withPoliteness(hash, polite, ['bu']) : hash,
    hosts,
  );
  return { ...stats, archived: archived !== null };
}
