/**
 * Process entry: `tsx services/api/src/main.ts` (or `shardline api`) reads the
 * environment, connects to Redis and serves until SIGTERM/SIGINT.
 */
import { pathToFileURL } from 'node:url';
import { listenFailure, RedisFrontier, redisLabel } from '@shardline/frontier';
import type { FastifyInstance } from 'fastify';
import { Cluster, Redis } from 'ioredis';
import { ClusterRing } from './cluster-ring.js';
import { type ClusterView, RegistryClusterView } from './cluster-view.js';
import { type ApiConfig, loadApiConfig } from './config.js';
import { ApiError, ApiErrorCode } from './errors.js';
import { followingConnector, type RedisLocator } from './following-connector.js';
import { watchRedisOutages } from './redis-outage.js';
import { createApiServer } from './server.js';

/** A started API: its address and how to stop it. */
export interface RunningApi {
  server: FastifyInstance;
  /** `http://host:port` actually bound. */
  url: string;
  close(): Promise<void>;
}

/**
 * Connects, builds and listens. `view` defaults to the pod registry
 * ({@link RegistryClusterView} under `config.keyPrefix`); pass a `StaticClusterView` for a
 * fixed membership.
 */
/** Optional parts of {@link startApi}. */
export interface StartApiExtras {
  /**
   * Where Redis is on each reconnect (single Redis only), for a server whose port changes when
   * it restarts (the embedded Redis of a data dir).
   */
  locate?: RedisLocator;
  /** Builds the robots.txt record reader of the domain page on the API's Redis client. */
  robots?: (redis: Redis | Cluster) => (origin: string) => Promise<object | undefined>;
}

export async function startApi(
  config: ApiConfig,
  view?: ClusterView,
  extras: StartApiExtras = {},
): Promise<RunningApi> {
  const { locate } = extras;
  // Fail a command after one reconnect attempt, so a Redis outage answers 503 quickly
  // instead of queueing requests until the client gives up.
  const redis = config.redisClusterNodes
    ? new Cluster(config.redisClusterNodes, {
        redisOptions: { maxRetriesPerRequest: 1, commandTimeout: 5000 },
      })
    : new Redis(config.redisUrl, {
        maxRetriesPerRequest: 1,
        commandTimeout: 5000,
        // Where the data dir's embedded Redis runs now, asked again on every reconnect.
        ...(locate ? { Connector: followingConnector(locate, config.redisUrl) } : {}),
      });
  // Reported through /readyz and 503 answers, and once per outage in the log.
  const logOutagesTo = watchRedisOutages(
    redis,
    redisLabel({ url: config.redisUrl, clusterNodes: config.redisClusterNodes }),
    config.redisClusterNodes ? undefined : config.redisUrl,
  );
  const cluster = new ClusterRing(view ?? new RegistryClusterView(redis, config.keyPrefix), {
    vnodes: config.ringVnodes,
    seed: config.ringSeed,
  });
  // The server's logger exists only once the server does: background errors before it (none
  // are expected before the first request) are still counted in frontier.backgroundErrors.
  let logBackground: ((error: Error, operation: string) => void) | undefined;
  const frontier = new RedisFrontier({
    redis,
    ownerOf: cluster.ownerOf,
    prefix: config.keyPrefix,
    onBackgroundError: (error, operation) => logBackground?.(error, operation),
  });
  const server = await createApiServer({
    redis,
    frontier,
    cluster,
    prefix: config.keyPrefix,
    token: config.token,
    maxBodyBytes: config.maxBodyBytes,
    maxSeedItems: config.maxSeedItems,
    ...(extras.robots ? { robots: extras.robots(redis) } : {}),
    logger: config.logLevel === 'silent' ? false : { level: config.logLevel },
  });
  logOutagesTo(server.log);
  logBackground = (error, operation) =>
    server.log.warn({ err: error, operation }, 'frontier background operation failed');
  try {
    await server.listen({ host: config.host, port: config.port });
  } catch (error) {
    redis.disconnect();
    throw new ApiError(
      ApiErrorCode.LISTEN,
      `${listenFailure(config.host, config.port, error)}; choose another --port (API_PORT) or --host (API_HOST)`,
    );
  }
  const address = server.server.address();
  const url =
    typeof address === 'object' && address !== null
      ? `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`
      : String(address);
  return {
    server,
    url,
    async close() {
      await server.close();
      redis.disconnect();
    },
  };
}

async function main(): Promise<void> {
  const api = await startApi(loadApiConfig());
  process.stdout.write(`shardline api listening on ${api.url}\n`);
  const stop = () => {
    void api.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: Error) => {
    process.stderr.write(
      `shardline api: ${(error as { code?: string }).code ?? 'error'}: ${error.message}\n`,
    );
    process.exit(1);
  });
}
