/**
 * The check behind the stranded-domain sweep: a domain is stranded when one of its hosts
 * has URLs queued or in flight but is missing from its owner's due index (an enqueuer
 * with a stale ring put it in the index of a pod that has since gone). Reads only.
 */
import type { Cluster, Redis } from 'ioredis';
import type { MembershipFrontier } from './options.js';

/** Whether some host of `domain` with work is absent from `owner`'s due index. */
export async function isStranded(
  redis: Redis | Cluster,
  frontier: MembershipFrontier,
  domain: string,
  owner: string,
): Promise<boolean> {
  const keys = frontier.keys;
  const hosts = (await redis.smembers(keys.hosts(domain))) as string[];
  for (const host of hosts) {
    const [q, f] = (await redis.hmget(keys.hostState(domain, host), 'q', 'f')) as (string | null)[];
    if (Number(q ?? 0) <= 0 && Number(f ?? 0) <= 0) continue;
    // Due-index member spelling of the frontier: `<domain>/<host>`.
    if ((await redis.zscore(keys.due(owner), `${domain}/${host}`)) === null) return true;
  }
  return false;
}
