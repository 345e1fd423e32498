/**
 * A change of a host's shared politeness that makes it askable EARLIER (a block lifted or
 * shortened, a run-time delay lowered) must reach every crawl of the host, not only the
 * crawl that made it: the others' due entries still say "later" and nothing else would
 * re-score them. Gates that move LATER need nothing: a crawl visiting early is re-scored
 * by its claim, which reads the shared fields.
 */

import { dueMember } from './codec.js';
import type { FrontierContext } from './context.js';
import { DEFAULT_CRAWL } from './crawl-id.js';
import { readLiveHosts } from './domain-reads.js';
import { FrontierKeys } from './keys.js';

/**
 * Lowers to now the due entry of each of `domain`'s hosts in every other crawl's indexes
 * (ZADD XX LT: only entries that exist — a host with URLs queued always has one — and
 * only earlier), and wakes the pods whose index changed. The visit re-scores the host.
 */
export async function wakeOtherCrawls(ctx: FrontierContext, domain: string): Promise<void> {
  const { redis, keys } = ctx;
  const registered = (await redis.hkeys(keys.crawls())) as string[];
  const others = [DEFAULT_CRAWL, ...registered].filter((c) => c !== keys.crawlId);
  if (others.length === 0) return;
  const [sec, usec] = await redis.time();
  const now = Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
  await Promise.all(
    others.map(async (crawl) => {
      const k = new FrontierKeys(keys.prefix, crawl);
      const [pods, hosts] = (await Promise.all([
        redis.smembers(k.pods()),
        readLiveHosts(redis, k, domain),
      ])) as [string[], string[]];
      if (hosts.length === 0) return;
      const members = hosts.map((h) => dueMember(domain, h));
      await Promise.all(
        pods.map(async (pod) => {
          let changed = 0;
          for (const m of members) {
            changed += Number(await redis.zadd(k.due(pod), 'XX', 'LT', 'CH', now, m));
          }
          if (changed > 0) await redis.publish(k.wakeChannel(pod), String(now));
        }),
      );
    }),
  );
}
