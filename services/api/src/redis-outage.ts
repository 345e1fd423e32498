/**
 * The API keeps serving while its Redis is away (reads answer 503, /readyz says why) and
 * ioredis reconnects by itself; the operator still needs to hear of it once. Each outage is
 * one warning with its cause — `ECONNREFUSED`, or "not a Redis server: it answered
 * "HTTP/1.1 400 Bad Request"" for a URL that names the wrong port — and its end one line.
 */
import { PLAIN_REDIS_HINT, redisErrorCause, watchForPlainRedis } from '@shardline/frontier';
import type { FastifyBaseLogger } from 'fastify';
import type { Cluster, Redis } from 'ioredis';

/**
 * Logs each outage of `redis` once. `log` is read at each event: the server's logger exists
 * only after the client does, so an outage that began before it is told when it is set
 * (call the returned function with it). A `rediss://` URL (`url`) pointed at a Redis without
 * TLS only ever times out: a second in, the port is asked in plain text, and the outage's
 * cause says to use redis:// when a Redis answers there.
 */
export function watchRedisOutages(redis: Redis | Cluster, label: string, url?: string) {
  let cause: string | undefined;
  let told = false;
  let log: FastifyBaseLogger | undefined;
  const tell = () => {
    if (cause === undefined || told || !log) return;
    told = true;
    log.warn(
      { redis: label, cause },
      `redis unreachable at ${label} (${cause}): answering 503 until it is back`,
    );
  };
  redis.on('error', (error: unknown) => {
    cause ??= redisErrorCause(error);
    tell();
  });
  redis.on('ready', () => {
    if (told) log?.info({ redis: label }, `redis reachable again at ${label}`);
    cause = undefined;
    told = false;
  });
  watchForPlainRedis(url, redis, () => {
    cause = PLAIN_REDIS_HINT;
    tell();
  });
  return (logger: FastifyBaseLogger) => {
    log = logger;
    tell();
  };
}
