/**
 * Runs one crawler pod from the environment (see config.ts): `node --import tsx
 * services/crawler/src/main.ts`. Needs REDIS_URL or REDIS_CLUSTER_NODES (the `shardline crawl`
 * command starts an embedded Redis when neither is set). The pod joins the membership, then
 * claims; SIGTERM / SIGINT / `POST /drain` stop it gracefully (stop claiming, finish or release
 * leases, leave, hand off); a second signal exits at once; a fatal error stops heartbeating only
 * (the others see a crash). `SHARDLINE_CONFIG=FILE` adds a config file (the same keys as
 * `shardline --config`) under the environment: a Kubernetes ConfigMap or a compose `configs:`
 * entry can carry the settings; no default file name is looked up, so a container's working
 * directory never changes a pod's settings by surprise.
 */
import { FrontierLostError } from '@shardline/frontier';
import { MembershipPodIdInUseError, MembershipSupersededError } from '@shardline/membership';
import { pino } from 'pino';
import { type CrawlerConfig, loadConfig } from './config.js';
import { CONFIG_FILE_ENV, findConfigFile, readConfigFile } from './config-file.js';
import { CrawlerError } from './errors.js';
import { runPod } from './run-pod.js';

/**
 * A bad variable or option, or a POD_ID another live pod has: one line naming it on stderr,
 * exit 2, no stack. A lost frontier (Redis lost its data) or a superseded pod id (another
 * instance took it over while this process stalled), which the pod logged already: one line,
 * exit 1.
 */
function exitOnConfigError(error: unknown): never {
  if (error instanceof FrontierLostError || error instanceof MembershipSupersededError) {
    process.stderr.write(`shardline pod: ${error.message} (${error.code})\n`);
    process.exit(1);
  }
  if (!(error instanceof CrawlerError) && !(error instanceof MembershipPodIdInUseError))
    throw error;
  process.stderr.write(`shardline pod: ${error.message} (${error.code})\n`);
  process.exit(2);
}

let config: CrawlerConfig;
try {
  const named = process.env[CONFIG_FILE_ENV]?.trim()
    ? findConfigFile(undefined, process.env, undefined)
    : undefined;
  config = loadConfig(process.env, named === undefined ? undefined : readConfigFile(named));
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
try {
  await runPod({
    settings: config.pod,
    redis: { url: config.redisUrl, clusterNodes: config.redisClusterNodes },
    redisConnectTimeoutMs: config.redisConnectTimeoutMs,
    healthPort: config.healthPort,
    logger,
    exitOnSecondSignal: true,
    exitOnUncaughtError: true,
  });
} catch (error) {
  exitOnConfigError(error);
}
