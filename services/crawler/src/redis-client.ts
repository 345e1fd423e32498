/**
 * Opens the pod's Redis connection: an ioredis `Cluster` on the start-up nodes when
 * `REDIS_CLUSTER_NODES` is set, else one `Redis` on `REDIS_URL`. Commands wait through
 * reconnects (`maxRetriesPerRequest: null`): a Redis restart pauses the pod, it does not fail
 * its leases. Reconnects back off exponentially and each backoff step is one warning line
 * (the URL, the cause, the next delay) — never a stack per attempt. {@link waitForRedis}
 * bounds the first connection, so an unreachable Redis at start is one error, not a hang.
 */
import {
  notRedisReason,
  PLAIN_PROBE_AFTER_MS,
  PLAIN_REDIS_HINT,
  redisErrorCause,
  redisLabel,
  watchForPlainRedis,
} from '@shardline/frontier';
import { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CrawlerError, CrawlerErrorCode } from './errors.js';

/** Where the pod's Redis is. */
export interface RedisTarget {
  /** `redis://` / `rediss://` URL (used when `clusterNodes` is absent). */
  url?: string;
  /** Redis Cluster start-up nodes. */
  clusterNodes?: readonly { host: string; port: number }[];
}

/** Reconnect delays: 100 ms doubling to 5 s. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5000;

/**
 * How long a disconnect waits for the socket to close before destroying it: ioredis's 2 s
 * default held a pod that could not reach Redis 2 s past its error line, since a refused
 * socket never emits 'close' again.
 */
const DISCONNECT_WAIT_MS = 200;

/** The client plus the last connection error (for the give-up message). */
export interface PodRedis {
  client: Redis | Cluster;
  label: string;
  /** The cause of the latest connection failure, if any. */
  lastCause(): string | undefined;
  /** The Redis URL (absent for a cluster), to tell a `rediss://` one at a Redis without TLS. */
  url?: string;
}

/** A connection to `target` (Cluster when it names nodes). Throws when it names neither. */
export function createRedisClient(target: RedisTarget, logger?: Logger): Redis | Cluster {
  return openPodRedis(target, logger).client;
}

/** Like {@link createRedisClient}, with the label and last cause for messages. */
export function openPodRedis(target: RedisTarget, logger?: Logger): PodRedis {
  const label = redisLabel(target);
  let lastCause: string | undefined;
  let attempt = 0;
  // A pure delay: connections duplicated from this client (subscribers) inherit it, and
  // only this client's 'reconnecting' events are logged below, once per step.
  const retry = (times: number): number =>
    Math.min(FIRST_RETRY_MS * 2 ** Math.min(times - 1, 16), MAX_RETRY_MS);
  let client: Redis | Cluster;
  if (target.clusterNodes && target.clusterNodes.length > 0) {
    client = new Cluster([...target.clusterNodes], {
      clusterRetryStrategy: retry,
      redisOptions: { maxRetriesPerRequest: null, disconnectTimeout: DISCONNECT_WAIT_MS },
    });
    client.on('node error', (error: unknown) => {
      lastCause = redisErrorCause(error);
    });
  } else {
    if (!target.url) throw new Error('createRedisClient: neither url nor clusterNodes given');
    client = new Redis(target.url, {
      maxRetriesPerRequest: null,
      retryStrategy: retry,
      disconnectTimeout: DISCONNECT_WAIT_MS,
    });
  }
  // Without a listener ioredis prints every error itself; the retry strategy reports them.
  client.on('error', (error: unknown) => {
    lastCause = redisErrorCause(error);
  });
  client.on('reconnecting', (delay: unknown) => {
    attempt += 1;
    logger?.warn(
      { redis: label, cause: lastCause, attempt, retryInMs: delay },
      `redis unreachable at ${label} (${lastCause ?? 'connection closed'}): retry ${attempt} in ${delay} ms`,
    );
  });
  client.on('ready', () => {
    attempt = 0;
    if (lastCause !== undefined)
      logger?.info({ redis: label }, `redis reachable again at ${label}`);
    lastCause = undefined;
  });
  const url = target.clusterNodes?.length ? undefined : target.url;
  return { client, label, lastCause: () => lastCause, ...(url ? { url } : {}) };
}

/**
 * Resolves once `redis` is ready; rejects with `SHARDLINE_ERR_CRAWLER_REDIS_UNREACHABLE`
 * (naming the URL and the cause) after `timeoutMs`, at once when the server there answers in
 * another protocol (no retry makes it Redis) or, for a `rediss://` URL, is a Redis without
 * TLS, or at once when `signal` aborts.
 */
export function waitForRedis(
  redis: PodRedis,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  const { client } = redis;
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      endWatch();
      client.off('ready', onReady);
      client.off('error', onError);
      client.off('node error', onError);
      signal?.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => done();
    const onError = (error: unknown) => {
      const reason = notRedisReason(error);
      if (reason === undefined) return;
      done(
        new CrawlerError(
          CrawlerErrorCode.REDIS_UNREACHABLE,
          `cannot reach Redis at ${redis.label}: ${reason}`,
        ),
      );
    };
    const onAbort = () =>
      done(
        new CrawlerError(
          CrawlerErrorCode.REDIS_UNREACHABLE,
          `stopped while waiting for Redis at ${redis.label} (${redis.lastCause() ?? 'not connected yet'})`,
        ),
      );
    const timer = setTimeout(
      () =>
        done(
          new CrawlerError(
            CrawlerErrorCode.REDIS_UNREACHABLE,
            `cannot reach Redis at ${redis.label}: ${redis.lastCause() ?? 'no answer'} (gave up after ${timeoutMs} ms; REDIS_CONNECT_TIMEOUT_MS / --redis-connect-timeout-ms sets how long)`,
          ),
        ),
      timeoutMs,
    );
    const endWatch = watchForPlainRedis(
      redis.url,
      client,
      () =>
        done(
          new CrawlerError(
            CrawlerErrorCode.REDIS_UNREACHABLE,
            `cannot reach Redis at ${redis.label}: ${PLAIN_REDIS_HINT}`,
          ),
        ),
      Math.min(PLAIN_PROBE_AFTER_MS, timeoutMs / 2),
    );
    client.on('ready', onReady);
    client.on('error', onError);
    client.on('node error', onError);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}
