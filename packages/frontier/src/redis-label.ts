/** How every shardline process names its Redis in messages and logs. */

/** Where a Redis is: a `redis://`/`rediss://` URL, or Redis Cluster start-up nodes. */
export interface RedisLocation {
  url?: string;
  clusterNodes?: readonly { host: string; port: number }[];
}

/**
 * `redis://host:port` with any password shown as `***`, or `cluster host:port,…` when start-up
 * nodes are given (they win over the URL, as in every process's connection).
 */
export function redisLabel(where: RedisLocation): string {
  if (where.clusterNodes && where.clusterNodes.length > 0) {
    return `cluster ${where.clusterNodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
  }
  const url = where.url ?? '';
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString().replace(/\/$/, '');
}
