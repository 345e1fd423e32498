/**
 * Reads of a pod's due index and backlog (due-index.ts writes them) for FrontierInspector:
 * which hosts a pod will visit and when, with the seq/pin bookkeeping of each entry, and the
 * domains listed there. Pages are bounded (checks.ts checkPage): a limit of -1 would make the
 * range behind them a read of a whole index, tens of millions of entries in a wide crawl.
 */
import type { Cluster, Redis } from 'ioredis';
import { checkPage, checkPod } from './checks.js';
import { dueMember, parseDueMember, parseDueMeta, parseScore } from './codec.js';
import type { FrontierKeys } from './keys.js';
import type { DueEntry, DueHost } from './read-types.js';

/** Backlog names read per LRANGE. */
const BACKLOG_PAGE = 1000;

type Page = { offset?: number; limit?: number };

/** A page of a pod's backlog, oldest first (see FrontierInspector.backlogHosts). */
export async function readBacklogPage(
  redis: Redis | Cluster,
  keys: FrontierKeys,
  pod: string,
  page: Page,
): Promise<{ domain: string; host: string }[]> {
  const { offset, limit } = checkPage(page);
  const members = await redis.lrange(keys.backlog(checkPod(pod)), offset, offset + limit - 1);
  return members.map((m) => parseDueMember(m));
}

/** A page of a pod's due index, earliest first. */
export async function readDueHosts(
  redis: Redis | Cluster,
  keys: FrontierKeys,
  pod: string,
  page: Page,
): Promise<DueHost[]> {
  const { offset, limit } = checkPage(page);
  const flat = (await redis.zrange(
    keys.due(checkPod(pod)),
    offset,
    offset + limit - 1,
    'WITHSCORES',
  )) as string[];
  const out: DueHost[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    out.push({ ...parseDueMember(flat[i]!), dueAtMs: parseScore(flat[i + 1]) ?? Number.NaN });
  }
  return out;
}

/**
 * A page of a pod's due index with each entry's seq and pin. Two reads, not one snapshot:
 * an entry updated in between shows its new meta.
 */
export async function readDueEntries(
  redis: Redis | Cluster,
  keys: FrontierKeys,
  pod: string,
  page: Page,
): Promise<DueEntry[]> {
  const hosts = await readDueHosts(redis, keys, pod, page);
  if (hosts.length === 0) return [];
  const metas = (await redis.hmget(
    keys.dueMeta(pod),
    ...hosts.map((h) => dueMember(h.domain, h.host)),
  )) as (string | null)[];
  return hosts.map((h, k) => ({ ...h, ...parseDueMeta(metas[k]) }));
}

/**
 * Distinct domains of a pod's due index or its backlog, sorted: a scan of both, which stops
 * once it has found `max` (the first `max` names found, sorted: a pod of a wide crawl lists
 * millions; ask for one more than you will use to learn whether there are more).
 */
export async function readListedDomains(
  redis: Redis | Cluster,
  keys: FrontierKeys,
  pod: string,
  max = Number.POSITIVE_INFINITY,
): Promise<string[]> {
  const domains = new Set<string>();
  let cursor = '0';
  do {
    const [next, page] = (await redis.zscan(keys.due(checkPod(pod)), cursor, 'COUNT', 500)) as [
      string,
      string[],
    ];
    for (let i = 0; i < page.length; i += 2) domains.add(parseDueMember(page[i]!).domain);
    cursor = next;
  } while (cursor !== '0' && domains.size < max);
  // Read in pages; names appended meanwhile are the next read's.
  for (let at = 0; domains.size < max; at += BACKLOG_PAGE) {
    const page = await redis.lrange(keys.backlog(pod), at, at + BACKLOG_PAGE - 1);
    for (const member of page) domains.add(parseDueMember(member).domain);
    if (page.length < BACKLOG_PAGE) break;
  }
  return [...domains].slice(0, max).sort();
}
