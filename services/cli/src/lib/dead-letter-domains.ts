/**
 * Which domains hold dead letters. The frontier keeps dead letters per domain and has no
 * index of domains with dead letters, so this walks the domains index (`<prefix>:domains`,
 * ZSCAN in pages) and asks each domain's list length (LLEN, pipelined per page): O(domains),
 * meant for an operator's command, not a hot path.
 */
import type { RedisFrontier } from '@shardline/frontier';
import type { Cluster, Redis } from 'ioredis';

/** Domains with at least one dead letter kept, most first. */
export async function domainsWithDeadLetters(
  redis: Redis | Cluster,
  frontier: RedisFrontier,
): Promise<{ domain: string; kept: number }[]> {
  const out: { domain: string; kept: number }[] = [];
  // ZSCAN may return a member twice (while the set is rehashed).
  const visited = new Set<string>();
  let cursor = '0';
  do {
    const [next, page] = (await redis.zscan(frontier.keys.domains(), cursor, 'COUNT', 500)) as [
      string,
      string[],
    ];
    cursor = next;
    const domains: string[] = [];
    for (let i = 0; i < page.length; i += 2) {
      if (visited.has(page[i]!)) continue;
      visited.add(page[i]!);
      domains.push(page[i]!);
    }
    // On a Cluster each LLEN goes to its own slot's node; Promise.all keeps them concurrent.
    const lengths = await Promise.all(
      domains.map((d) => redis.llen(frontier.keys.deadLetters(d)) as Promise<number>),
    );
    domains.forEach((domain, i) => {
      if (lengths[i]! > 0) out.push({ domain, kept: lengths[i]! });
    });
  } while (cursor !== '0');
  return out.sort((a, b) => b.kept - a.kept || (a.domain < b.domain ? -1 : 1));
}
