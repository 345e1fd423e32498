/**
 * Opens the pod's Redis connection: an ioredis `Cluster` on the start-up nodes when
 * `REDIS_CLUSTER_NODES` is set, else one `Redis` on `REDIS_URL`. Commands wait through
 * reconnects (`maxRetriesPerRequest: null`): a Redis restart pauses the pod, it does not fail
 * its leases.
 */
import { Cluster, Redis } from 'ioredis';

/** Where the pod's Redis is. */
export interface RedisTarget {
  /** `redis://` / `rediss://` URL (used when `clusterNodes` is absent). */
  url?: string;
  /** Redis Cluster start-up nodes. */
  clusterNodes?: readonly { host: string; port: number }[];
}

/** A connection to `target` (Cluster when it names nodes). Throws when it names neither. */
export function createRedisClient(target: RedisTarget): Redis | Cluster {
  if (target.clusterNodes && target.clusterNodes.length > 0) {
    return new Cluster([...target.clusterNodes], {
      redisOptions: { maxRetriesPerRequest: null },
    });
  }
  if (!target.url) throw new Error('createRedisClient: neither url nor clusterNodes given');
  return new Redis(target.url, { maxRetriesPerRequest: null });
}
