/**
 * Runs one crawler pod from the environment (see config.ts): `node --import tsx
 * services/crawler/src/main.ts`. Needs REDIS_URL or REDIS_CLUSTER_NODES (the `shardline crawl`
 * command starts an embedded Redis when neither is set). The pod joins the membership, then
 * claims; SIGTERM / SIGINT / `POST /drain` stop it gracefully (stop claiming, finish or release
 * leases, leave, hand off); a fatal error stops heartbeating only (the others see a crash).
 */
import { pino } from 'pino';
import { loadConfig } from './config.js';
import { CrawlerPod } from './crawler-pod.js';
import { CrawlerError } from './errors.js';
import { type HealthServer, servePodHealth } from './health-server.js';
import { createRedisClient } from './redis-client.js';

/** A bad variable or option: one line naming it on stderr, exit 2, no stack. */
function exitOnConfigError(error: unknown): never {
  if (!(error instanceof CrawlerError)) throw error;
  process.stderr.write(`shardline pod: ${error.message} (${error.code})\n`);
  process.exit(2);
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  exitOnConfigError(error);
}
const logger = pino({ level: config.logLevel });
if (!config.redisUrl && !config.redisClusterNodes) {
  logger.fatal(
    'neither REDIS_URL nor REDIS_CLUSTER_NODES is set (shardline crawl starts an embedded Redis instead)',
  );
  process.exit(2);
}
const redis = createRedisClient({ url: config.redisUrl, clusterNodes: config.redisClusterNodes });
redis.on('error', (error) => logger.warn({ err: error }, 'redis error (reconnecting)'));
let pod: CrawlerPod;
try {
  pod = new CrawlerPod({ ...config.pod, redis, logger });
} catch (error) {
  redis.disconnect();
  exitOnConfigError(error);
}

const health: HealthServer | undefined =
  config.healthPort === undefined
    ? undefined
    : await servePodHealth({ port: config.healthPort, pod, redis, logger });

let signals = 0;
const onSignal = (signal: NodeJS.Signals) => {
  signals += 1;
  if (signals > 1) process.exit(130);
  logger.info({ signal }, 'stopping');
  void pod.stop();
};
process.on('SIGTERM', onSignal);
process.on('SIGINT', onSignal);

const fatal = (error: unknown) => {
  logger.fatal(
    { err: error },
    'fatal error: stopping without leaving (others treat it as a crash)',
  );
  const exit = setTimeout(() => process.exit(1), 5000);
  exit.unref();
  void pod
    .stop({ graceful: false })
    .catch(() => undefined)
    .finally(() => process.exit(1));
};
process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);

let started = false;
try {
  await pod.start();
  started = true;
} catch (error) {
  fatal(error);
}
if (started) {
  await pod.done;
  await health?.close();
  await redis.quit().catch(() => undefined);
}
