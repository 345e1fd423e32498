/**
 * A page of the URLs waiting in one host's queue, in hand-out order (highest priority level
 * first, FIFO within a level): a read for `FrontierInspector.hostQueue`, which is the only
 * caller. Reads the levels, then only the lists (and ranges) the page touches.
 */
import type { Cluster, Redis } from 'ioredis';
import { unpackEntry } from './codec.js';
import type { FrontierKeys } from './keys.js';
import type { QueuedUrl } from './read-types.js';

export async function readHostQueue(
  redis: Redis | Cluster,
  keys: FrontierKeys,
  domain: string,
  host: string,
  page: { offset: number; limit: number },
): Promise<QueuedUrl[]> {
  const levels = (await redis.zrevrange(keys.hostLevels(domain, host), 0, -1)) as string[];
  const out: QueuedUrl[] = [];
  let skip = page.offset;
  for (const level of levels) {
    if (out.length >= page.limit) break;
    const priority = Number(level);
    const key = keys.hostQueue(domain, host, priority);
    const length = await redis.llen(key);
    if (skip >= length) {
      skip -= length;
      continue;
    }
    const entries = await redis.lrange(key, skip, skip + page.limit - out.length - 1);
    skip = 0;
    for (const entry of entries) {
      const e = unpackEntry(entry);
      out.push({
        url: e.url,
        host,
        domain,
        priority,
        depth: e.depth,
        attempt: e.attempt,
        meta: e.meta,
      });
    }
  }
  return out;
}
