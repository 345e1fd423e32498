/**
 * Which Redis a command talks to, and connecting to it so that an unreachable server is
 * one clear line (`error: cannot reach Redis at redis://…: ECONNREFUSED`) within a few
 * seconds, never a retry loop or a stack trace.
 *
 * Order: `--redis URL`, `--redis-cluster host:port,…`, `REDIS_URL`, `REDIS_CLUSTER_NODES`,
 * then the embedded Redis that `shardline crawl` started (its port file in `--data-dir`).
 */

import { Socket } from 'node:net';
import { resolve } from 'node:path';
import { CrawlerError, parseClusterNodes } from '@shardline/crawler/settings';
import {
  notRedisReason,
  PLAIN_PROBE_AFTER_MS,
  PLAIN_REDIS_HINT,
  redisLabel,
  watchForPlainRedis,
} from '@shardline/frontier';
import { Cluster, Redis } from 'ioredis';
import type { CliConfig } from '../config.js';
import {
  type EmbeddedRedis,
  findEmbeddedRedis,
  hasEmbeddedData,
  startEmbeddedRedis,
} from '../embedded-redis.js';
import { CliError, CliErrorCode, usageError } from '../errors.js';
import { DEFAULT_DATA_DIR } from './data-dir.js';

/** Flags every Redis-backed command accepts. */
export interface RedisFlags {
  redis?: string;
  redisCluster?: string;
  dataDir?: string;
}

/** What the environment says about Redis (read by `loadConfig` in `src/config.ts`). */
export type RedisEnv = Pick<CliConfig, 'redisUrl' | 'clusterNodes'>;

/**
 * A resolved target: a URL for a single server, cluster seed nodes, or the embedded Redis of
 * a data dir (running, or started from its data on demand by {@link connectRedis}).
 */
export type RedisTarget =
  | { kind: 'single'; url: string; source: string }
  | { kind: 'cluster'; nodes: { host: string; port: number }[]; source: string }
  | { kind: 'embedded'; dataDir: string; source: string };

/** Options of {@link connectRedis}. */
export interface ConnectOptions {
  /** How long the first connection may take. @default 3000 */
  connectTimeoutMs?: number;
  /** How long any one command may take. @default 10000 */
  commandTimeoutMs?: number;
}

/** A connected client and how to name it in messages. */
export interface RedisConnection {
  client: Redis | Cluster;
  /** `redis://host:port` or `cluster host:port,…`, for messages. */
  label: string;
  close(): Promise<void>;
}

/** Parses `host:port,host:port` (a bare `host` means port 6379); a bad list is a usage error. */
function clusterNodes(text: string, what: string): { host: string; port: number }[] {
  try {
    return parseClusterNodes(text, what, { defaultPort: 6379 });
  } catch (error) {
    if (error instanceof CrawlerError) throw usageError(error.message);
    throw error;
  }
}

function checkUrl(url: string, what: string): string {
  if (!/^rediss?:\/\/[^\s]+$/.test(url)) {
    throw usageError(`${what}: expected a redis:// or rediss:// URL, got ${JSON.stringify(url)}`);
  }
  return url;
}

/** The target of one Redis URL given by `source` (a flag or variable name), checked. */
export function singleRedisTarget(url: string, source: string): RedisTarget {
  return { kind: 'single', url: checkUrl(url, source), source };
}

/** Where the embedded Redis lives: <data-dir>/redis, as `shardline crawl` and `shardline up` put it. */
export function embeddedRedisDir(flags: RedisFlags): string {
  return resolve(flags.dataDir ?? DEFAULT_DATA_DIR, 'redis');
}

/** Picks the Redis to use from flags, environment and the embedded server's port file. */
export function resolveRedisTarget(flags: RedisFlags, env: RedisEnv): RedisTarget {
  if (flags.redis !== undefined && flags.redisCluster !== undefined) {
    throw usageError('--redis and --redis-cluster are exclusive: give one');
  }
  if (flags.redis !== undefined) {
    return { kind: 'single', url: checkUrl(flags.redis, '--redis'), source: '--redis' };
  }
  if (flags.redisCluster !== undefined) {
    const nodes = clusterNodes(flags.redisCluster, '--redis-cluster');
    return { kind: 'cluster', nodes, source: '--redis-cluster' };
  }
  // A non-empty REDIS_CLUSTER_NODES replaces REDIS_URL, as for the pod and the API (compose
  // and Kubernetes set both, with the cluster nodes empty unless a cluster is used).
  if (env.clusterNodes !== undefined) {
    const nodes = clusterNodes(env.clusterNodes, 'REDIS_CLUSTER_NODES');
    return { kind: 'cluster', nodes, source: 'REDIS_CLUSTER_NODES' };
  }
  if (env.redisUrl !== undefined) {
    return { kind: 'single', url: checkUrl(env.redisUrl, 'REDIS_URL'), source: 'REDIS_URL' };
  }
  // The embedded Redis lives in <data-dir>/redis, as `shardline crawl` and `shardline up` put it.
  const dataDir = embeddedRedisDir(flags);
  if (findEmbeddedRedis(dataDir) === undefined && !hasEmbeddedData(dataDir)) {
    throw new CliError(
      CliErrorCode.REDIS_UNREACHABLE,
      `no Redis configured: pass --redis redis://host:port (or REDIS_URL), --redis-cluster host:port,… (or REDIS_CLUSTER_NODES), or start one with \`shardline crawl\` (no embedded Redis found in ${dataDir})`,
    );
  }
  return { kind: 'embedded', dataDir, source: `embedded (${dataDir})` };
}

/** The short reason of a connection error: `ECONNREFUSED`, `ETIMEDOUT`, or its message. */
function reasonOf(error: unknown): string {
  const e = error as NodeJS.ErrnoException & { lastNodeError?: NodeJS.ErrnoException };
  const inner = e?.lastNodeError ?? e;
  if (typeof inner?.code === 'string' && /^E[A-Z]+$/.test(inner.code)) return inner.code;
  const notRedis = notRedisReason(inner);
  if (notRedis !== undefined) return notRedis;
  const message = inner instanceof Error ? inner.message : String(inner);
  const code = /\b(E[A-Z]{4,})\b/.exec(message)?.[1];
  if (code) return code;
  if (/connect timeout|timed? ?out/i.test(message)) return 'ETIMEDOUT';
  return message;
}

/** The socket error code of a TCP connect to `node`, or undefined when it connects. */
function probe(
  node: { host: string; port: number },
  timeoutMs: number,
): Promise<string | undefined> {
  return new Promise((done) => {
    const socket = new Socket();
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      done('ETIMEDOUT');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      socket.destroy();
      done(error.code ?? error.message);
    });
    socket.connect(node.port, node.host, () => {
      socket.destroy();
      done(undefined);
    });
  });
}

/** The one-line error for a Redis that does not answer. */
export function unreachable(label: string, error: unknown): CliError {
  return new CliError(
    CliErrorCode.REDIS_UNREACHABLE,
    `cannot reach Redis at ${label}: ${reasonOf(error)}`,
  );
}

/** True for errors that mean the connection is gone (so the message names Redis, not a bug). */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  if (
    typeof code === 'string' &&
    /^E(CONN|TIMEDOUT|PIPE|HOSTUNREACH|NOTFOUND|AI_AGAIN)/.test(code)
  ) {
    return true;
  }
  return /Connection is closed|Stream isn't writeable|Reached the max retries|None of startup nodes|Command timed out|connect ETIMEDOUT/i.test(
    error.message,
  );
}

/**
 * Connects (lazily built, then one `connect()`): no reconnect loop, one retry per command,
 * a connect timeout. A failure becomes {@link unreachable}.
 */
export async function connectRedis(
  target: RedisTarget,
  options: ConnectOptions = {},
): Promise<RedisConnection> {
  if (target.kind !== 'embedded') return connectTo(target, options);
  // A finished crawl stays readable: its Redis is started from its data for this command
  // and stopped after (a running crawl's server is shared and left running).
  const embedded = await useEmbeddedRedis(target.dataDir);
  try {
    const connection = await connectTo(
      { kind: 'single', url: embedded.url, source: target.source },
      options,
    );
    return {
      ...connection,
      async close() {
        await connection.close();
        await embedded.stop();
      },
    };
  } catch (error) {
    await embedded.stop();
    throw error;
  }
}

/** The embedded Redis of `dataDir`, started on demand; notices go to stderr as `note:` lines. */
export function useEmbeddedRedis(dataDir: string): Promise<EmbeddedRedis> {
  return startEmbeddedRedis({
    dataDir,
    onNotice: (message) => process.stderr.write(`note: ${message}\n`),
  });
}

/** How long a disconnect waits for the socket to close before destroying it. */
const DISCONNECT_WAIT_MS = 200;

async function connectTo(
  target: Exclude<RedisTarget, { kind: 'embedded' }>,
  options: ConnectOptions,
): Promise<RedisConnection> {
  const connectTimeout = options.connectTimeoutMs ?? 3000;
  const commandTimeout = options.commandTimeoutMs ?? 10_000;
  const common = {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout,
    commandTimeout,
    retryStrategy: () => null,
    // disconnect() waits this long for a 'close' that a refused socket never emits again
    // (ioredis's 2 s default held every "cannot reach Redis" error 2 s before the exit).
    disconnectTimeout: DISCONNECT_WAIT_MS,
  };
  let client: Redis | Cluster;
  let label: string;
  if (target.kind === 'single') {
    label = redisLabel({ url: target.url });
    client = new Redis(target.url, common);
  } else {
    label = redisLabel({ clusterNodes: target.nodes });
    client = new Cluster(target.nodes, {
      lazyConnect: true,
      clusterRetryStrategy: () => null,
      enableOfflineQueue: true,
      redisOptions: common,
    });
  }
  // Without a listener ioredis logs every connection error itself; the caller reports it.
  // The socket error (ECONNREFUSED…) arrives here; connect() only says "Connection is closed".
  let socketError: unknown;
  const remember = (error: unknown) => {
    socketError ??= error;
  };
  client.on('error', remember);
  // A cluster reports each seed node's socket error as 'node error'.
  client.on('node error', remember);
  // rediss:// to a Redis without TLS only ever times out: stop waiting once a Redis answers
  // that port in plain text.
  let plainRedis = false;
  const endWatch = watchForPlainRedis(
    target.kind === 'single' ? target.url : undefined,
    client,
    () => {
      plainRedis = true;
      client.disconnect();
    },
    Math.min(PLAIN_PROBE_AFTER_MS, connectTimeout / 2),
  );
  try {
    await client.connect();
    // A cluster "connects" once the slots are known; a single server once the socket is up.
    await client.ping();
  } catch (error) {
    client.disconnect();
    if (plainRedis) throw unreachable(label, new Error(PLAIN_REDIS_HINT));
    if (target.kind === 'cluster') {
      // ioredis reports only "Connection is closed" per cluster node: ask the socket why.
      const reason = await probe(target.nodes[0]!, connectTimeout);
      throw unreachable(
        label,
        reason ??
          new Error(`no slot map (is it a Redis Cluster?): ${reasonOf(socketError ?? error)}`),
      );
    }
    throw unreachable(label, socketError ?? error);
  } finally {
    endWatch();
  }
  return {
    client,
    label,
    async close() {
      try {
        await client.quit();
      } catch {
        client.disconnect();
      }
    },
  };
}
