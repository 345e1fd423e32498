/**
 * Runs one pod as a process does: Redis client → pod → health server → signals → start →
 * done → close. `main.ts` (the pod from the environment) and `shardline crawl` (plus an
 * embedded Redis, seeds, a progress line and a final stats line) both run pods through it.
 */
import type { Logger } from 'pino';
import type { EnvPodOptions } from './config.js';
import { DEFAULT_REDIS_CONNECT_TIMEOUT_MS } from './config.js';
import { CrawlerPod } from './crawler-pod.js';
import { loadHandler } from './handlers/load-handler.js';
import type { PageHandler } from './handlers/page-api.js';
import { type HealthServer, servePodHealth } from './health-server.js';
import type { PodStats } from './pod-options.js';
import { openPodRedis, type RedisTarget, waitForRedis } from './redis-client.js';
import type { CrawlResult } from './results.js';
import { POD_SETTINGS } from './settings.js';

/** Options of {@link runPod}. */
export interface RunPodOptions {
  /** The pod's settings (from `loadConfig`, flags on top). */
  settings: EnvPodOptions;
  /** Where Redis is. */
  redis: RedisTarget;
  /** Told of every lease's result (see `PodLiveOptions.onResult`). */
  onResult?: (result: CrawlResult) => void;
  /**
   * The page handler, already loaded (the CLI loads `settings.handler` before it starts an
   * embedded Redis). @default the module `settings.handler` names, loaded before Redis
   */
  pageHandler?: PageHandler;
  /** How long the first connection may take before runPod gives up. @default 10000 */
  redisConnectTimeoutMs?: number;
  /** Serve `/healthz`, `/readyz`, `POST /drain` on this port. @default off */
  healthPort?: number;
  logger: Logger;
  /** After the pod is built, before it starts (the CLI seeds here). */
  beforeStart?: (pod: CrawlerPod) => Promise<void>;
  /** Once the pod runs; may return what ends it when the pod stops (a progress timer). */
  whileRunning?: (pod: CrawlerPod) => (() => void) | undefined;
  /** After the pod has stopped and its health server closed, before Redis is closed. */
  afterStop?: (pod: CrawlerPod) => void | Promise<void>;
  /** A second SIGTERM / SIGINT exits at once with status 130. @default false */
  exitOnSecondSignal?: boolean;
  /**
   * An uncaught exception or rejection, or a failed start, stops the pod without leaving (the
   * others treat it as crashed) and exits with status 1. @default false (they are rethrown)
   */
  exitOnUncaughtError?: boolean;
}

/** How long a crashing pod may take to stop before the process exits anyway. */
const CRASH_EXIT_MS = 5000;
/**
 * After a signal, how long past `stopGraceMs` the stop (leave, hand-off, close) may take
 * before the process exits anyway: with Redis gone those steps would wait forever.
 */
const STOP_MARGIN_MS = 5000;
/** The signals that stop a pod: SIGHUP too (the terminal closed). */
const STOP_SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

/**
 * Runs a pod until it stops (SIGTERM / SIGINT, `POST /drain`, `exitWhenIdle`) and returns its
 * final stats. Rejects with the pod's `SHARDLINE_ERR_CRAWLER_INVALID_OPTION` (a bad option) or
 * `SHARDLINE_ERR_CRAWLER_CONFIG` (a handler that cannot load) before anything connects.
 */
export async function runPod(o: RunPodOptions): Promise<PodStats> {
  const { logger } = o;
  // A handler that cannot load fails here, before the pod connects, joins the ring or seeds:
  // a bad module must not move domains to a pod that would leave again at once.
  const pageHandler =
    o.pageHandler ??
    (o.settings.handler === undefined ? undefined : await loadHandler(o.settings.handler));
  // Reconnects back off and log one line per step; no per-attempt stack.
  const connection = openPodRedis(o.redis, logger);
  const redis = connection.client;
  let pod: CrawlerPod;
  try {
    pod = new CrawlerPod({
      ...o.settings,
      redis,
      logger,
      ...(o.onResult ? { onResult: o.onResult } : {}),
      ...(pageHandler ? { pageHandler } : {}),
    });
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  if (!o.settings.contactUrl) {
    // Crawler etiquette: a site's operator should be able to reach the crawler's.
    logger.warn(
      'no contact URL: set --contact-url / CONTACT_URL so the sites you crawl can reach you (it goes in the User-Agent)',
    );
  }
  const stopping = new AbortController();
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1 && o.exitOnSecondSignal) process.exit(130);
    if (signals > 1) return;
    logger.info({ signal }, 'stopping');
    stopping.abort();
    const limitMs = (o.settings.stopGraceMs ?? POD_SETTINGS.stopGraceMs.default) + STOP_MARGIN_MS;
    setTimeout(() => {
      logger.error(
        { signal, limitMs, redis: connection.label, redisCause: connection.lastCause() },
        `stop did not finish within ${limitMs} ms (is Redis reachable?): exiting`,
      );
      process.exit(1);
    }, limitMs).unref();
    void pod.stop();
  };
  const crash = async (error: unknown): Promise<never> => {
    logger.fatal(
      { err: error },
      'fatal error: stopping without leaving (others treat it as a crash)',
    );
    setTimeout(() => process.exit(1), CRASH_EXIT_MS).unref();
    try {
      await pod.stop({ graceful: false });
    } catch (stopError) {
      logger.error({ err: stopError }, 'stop after a crash failed');
    }
    process.exit(1);
  };
  const onCrash = (error: unknown) => void crash(error);
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  if (o.exitOnUncaughtError) {
    process.on('uncaughtException', onCrash);
    process.on('unhandledRejection', onCrash);
  }
  let health: HealthServer | undefined;
  let stopWatching: (() => void) | undefined;
  let started = false;
  try {
    try {
      await waitForRedis(
        connection,
        o.redisConnectTimeoutMs ?? DEFAULT_REDIS_CONNECT_TIMEOUT_MS,
        stopping.signal,
      );
    } catch (error) {
      // A signal while waiting is a stop like any other, not an error.
      if (stopping.signal.aborted) return pod.stats();
      throw error;
    }
    if (o.healthPort !== undefined) {
      health = await servePodHealth({ port: o.healthPort, pod, redis, logger });
    }
    await o.beforeStart?.(pod);
    if (stopping.signal.aborted) return pod.stats();
    try {
      await pod.start();
    } catch (error) {
      if (o.exitOnUncaughtError) await crash(error);
      throw error;
    }
    started = true;
    stopWatching = o.whileRunning?.(pod);
    await pod.done;
  } finally {
    stopWatching?.();
    await pod.stop();
    await health?.close();
    if (started) await o.afterStop?.(pod);
    if (redis.status === 'ready') {
      await redis
        .quit()
        .catch((error: unknown) => logger.warn({ err: error }, 'redis quit failed'));
    } else {
      redis.disconnect();
    }
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
  }
  return pod.stats();
}
