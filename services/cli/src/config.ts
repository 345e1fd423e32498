/**
 * Settings the `shardline` command reads from the environment. This is the only file of
 * the CLI that reads `process.env` (commands that start a service, `crawl` and `api`,
 * hand the environment to that service's own `config.ts`).
 */
export interface CliConfig {
  /** `SHARDLINE_DEBUG=1`: print the stack trace of an internal error. */
  debug: boolean;
  /** `REDIS_URL`: one Redis server (`--redis` wins). */
  redisUrl?: string;
  /** `REDIS_CLUSTER_NODES`: Redis Cluster seed nodes `host:port,…` (`--redis-cluster` wins). */
  clusterNodes?: string;
  /** `KEY_PREFIX`: the frontier's key prefix (`--prefix` wins). @default 'sl' (applied by the session) */
  keyPrefix?: string;
  /** `POD_ID`: the ring member id of `shardline urlfrontier` (`--pod-id` wins; `up` sets it per node). */
  podId?: string;
  /** `CRAWL_ID`: the crawl (namespace) commands act on (`--crawl-id` wins). @default 'default' */
  crawlId?: string;
}

/** Reads the CLI's environment variables; blank values count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  const pick = (name: string) => env[name]?.trim() || undefined;
  return {
    debug: env.SHARDLINE_DEBUG === '1',
    redisUrl: pick('REDIS_URL'),
    clusterNodes: pick('REDIS_CLUSTER_NODES'),
    keyPrefix: pick('KEY_PREFIX'),
    podId: pick('POD_ID'),
    crawlId: pick('CRAWL_ID'),
  };
}
