/**
 * Settings of the process that runs a pod (`main.ts`, `shardline crawl`) rather than of the pod:
 * `loadConfig` parses each by hand (each has its own syntax); help and README take their names
 * and docs from here, next to the pod's settings table (`settings.ts`).
 */

/** A process setting: read by `loadConfig`, not a pod option. */
export interface ProcessSetting {
  env: string;
  flag: string;
  doc: string;
  defaultText: string;
  /** `shardline up` passes it to every pod. */
  shared?: boolean;
  /** The only values it takes (the CLI's flags check them as the environment's are). */
  choices?: readonly string[];
}

/**
 * Settings of the process that runs a pod (`main.ts`, `shardline crawl`): parsed by hand in
 * `loadConfig` (each has its own syntax), documented from here.
 */
export const PROCESS_SETTINGS = {
  redisUrl: {
    env: 'REDIS_URL',
    flag: 'redis',
    doc: 'Redis to use, a redis:// or rediss:// URL',
    defaultText: 'none: `shardline crawl` starts an embedded redis-server',
  },
  redisClusterNodes: {
    env: 'REDIS_CLUSTER_NODES',
    flag: 'redis-cluster',
    doc: 'Redis Cluster start-up nodes host:port,host:port…; wins over the URL',
    defaultText: 'unset',
  },
  redisConnectTimeoutMs: {
    env: 'REDIS_CONNECT_TIMEOUT_MS',
    flag: 'redis-connect-timeout-ms',
    doc: 'how long the first connection to Redis may take before the process gives up with one error line (later drops are retried with backoff)',
    defaultText: '10000',
    shared: true,
  },
  healthPort: {
    env: 'HEALTH_PORT',
    flag: 'health-port',
    doc: 'serve /healthz, /readyz, POST /drain on 0.0.0.0:port',
    defaultText: 'off',
  },
  logLevel: {
    env: 'LOG_LEVEL',
    flag: 'log-level',
    doc: 'pino level',
    defaultText: 'info',
    choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    shared: true,
  },
} satisfies Record<string, ProcessSetting>;
