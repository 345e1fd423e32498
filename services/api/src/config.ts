/**
 * Settings of the API process, read from the environment. This is the only file of the
 * service that reads `process.env`.
 */
import { DEFAULT_PREFIX } from '@shardline/frontier';
import { ApiConfigError } from './errors.js';

/** Everything `main.ts` needs to start the API. */
export interface ApiConfig {
  /** `REDIS_URL`. @default 'redis://127.0.0.1:6379' */
  redisUrl: string;
  /**
   * `REDIS_CLUSTER_NODES`: comma-separated `host:port` start-up nodes of a Redis Cluster; when
   * set (non-empty) the API opens an ioredis `Cluster` instead of `REDIS_URL`. @default unset
   */
  redisClusterNodes?: { host: string; port: number }[];
  /** `KEY_PREFIX`: the frontier's key prefix (same as the crawler's). @default 'sl' */
  keyPrefix: string;
  /** `API_HOST`: address to bind. @default '127.0.0.1' */
  host: string;
  /** `API_PORT`. @default 8080 */
  port: number;
  /** `API_TOKEN`: bearer token of mutating routes; unset = mutating routes refused (403). */
  token: string | undefined;
  /** `API_MAX_BODY_BYTES`: largest request body. @default 2097152 */
  maxBodyBytes: number;
  /** `API_MAX_SEED_ITEMS`: most URLs in one `POST /v1/seeds`. @default 10000 */
  maxSeedItems: number;
  /** `RING_VNODES`: ring tokens per unit weight, while the registry holds none (no pod joined yet). @default 8192 */
  ringVnodes: number;
  /** `RING_SEED`: ring token seed, while the registry holds none. @default 0 */
  ringSeed: number;
  /** `LOG_LEVEL`: pino level of the request log, or `silent`. @default 'info' */
  logLevel: string;
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function integer(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new ApiConfigError(name, raw, `an integer from ${min} to ${max}`);
  }
  return n;
}

/** `host:port,host:port…` (IPv6 hosts in brackets) → ioredis Cluster start-up nodes. */
function clusterNodes(raw: string): { host: string; port: number }[] {
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return list.map((entry) => {
    const match = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65535) {
      throw new ApiConfigError('REDIS_CLUSTER_NODES', raw, 'a comma list of host:port');
    }
    return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
  });
}

/** Reads and validates the API's environment variables (throws `ApiConfigError`). */
export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const redisUrl = env.REDIS_URL?.trim() || 'redis://127.0.0.1:6379';
  if (!/^rediss?:\/\//.test(redisUrl)) {
    throw new ApiConfigError('REDIS_URL', redisUrl, 'a redis:// or rediss:// URL');
  }
  const nodes = env.REDIS_CLUSTER_NODES?.trim() || undefined;
  const redisClusterNodes = nodes === undefined ? undefined : clusterNodes(nodes);
  const keyPrefix = env.KEY_PREFIX?.trim() || DEFAULT_PREFIX;
  const host = env.API_HOST?.trim() || '127.0.0.1';
  const token = env.API_TOKEN?.trim() || undefined;
  if (token !== undefined && token.length < 16) {
    // A short token is guessable; refuse it rather than run with weak protection.
    throw new ApiConfigError('API_TOKEN', '<hidden>', 'at least 16 characters');
  }
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!LEVELS.includes(logLevel)) {
    throw new ApiConfigError('LOG_LEVEL', logLevel, `one of ${LEVELS.join(', ')}`);
  }
  return {
    redisUrl,
    ...(redisClusterNodes ? { redisClusterNodes } : {}),
    keyPrefix,
    host,
    port: integer(env, 'API_PORT', 8080, 0, 65535),
    token,
    maxBodyBytes: integer(env, 'API_MAX_BODY_BYTES', 2 * 1024 * 1024, 1024, 64 * 1024 * 1024),
    maxSeedItems: integer(env, 'API_MAX_SEED_ITEMS', 10_000, 1, 1_000_000),
    ringVnodes: integer(env, 'RING_VNODES', 8192, 1, 1 << 20),
    ringSeed: integer(env, 'RING_SEED', 0, 0, Number.MAX_SAFE_INTEGER),
    logLevel,
  };
}
