/**
 * Parts of a pod that `buildPod` makes from its settings alone: the frontier client, the WARC
 * archive, the per-IP gate, the wake channel's connection, the closing signal.
 */
import { setMaxListeners } from 'node:events';
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import type { DnsCache } from '@shardline/dns';
import { notRedisReason, RedisFrontier } from '@shardline/frontier';
import { makeDirectory } from '@shardline/warc';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import { PodArchive } from './archive/pod-archive.js';
import { parseBudget } from './duration.js';
import { CrawlerError, CrawlerErrorCode } from './errors.js';
import type { Fetcher } from './fetcher.js';
import { IpGate } from './ip-gate.js';
import type { CrawlerPodOptions } from './pod-options.js';
import type { PodSettings } from './settings.js';

/** The crawler's version (the `warcinfo` record's software). */
const CRAWLER_VERSION = (createRequire(import.meta.url)('../package.json') as { version: string })
  .version;

/**
 * The pod's frontier client. It asks for owners lazily (from its first enqueue or claim on),
 * so frontier and membership can refer to each other through `ownerOf`.
 */
export function newFrontier(
  options: CrawlerPodOptions,
  s: PodSettings,
  log: Logger,
  ownerOf: (domain: string) => string,
): RedisFrontier {
  return new RedisFrontier({
    redis: options.redis,
    ownerOf,
    prefix: s.prefix,
    crawlId: s.crawlId,
    leaseTimeoutMs: s.leaseTimeoutMs,
    maxRetries: s.maxRetries,
    maxDepth: s.maxDepth,
    maxAcceptedPerDomain: s.maxPagesPerDomain,
    maxAcceptedPerHost: s.maxPagesPerHost,
    domainBudget: s.domainBudget === undefined ? null : (parseBudget(s.domainBudget) ?? null),
    defaultDelayMs: s.minDelayMs,
    defaultConcurrency: s.perHostConcurrency,
    adaptiveDelayFactor: s.adaptiveDelayFactor,
    adaptiveDelay: s.adaptiveDelay,
    maxDelayMs: s.maxDelayMs,
    refetchAfterMs: s.refetchAfterMs,
    refetchAdaptive: s.refetchAdaptive,
    refetchMinMs: s.refetchMinMs,
    refetchMaxMs: s.refetchMaxMs,
    backoffBaseMs: s.backoffBaseMs,
    backoffMaxMs: s.backoffMaxMs,
    archiveIdleDomains: !s.keepIdleDomains,
    packAfterDomains: s.packAfterDomains,
    redisFunctions: !s.evalScripts,
    onBackgroundError: (error, operation) =>
      log.warn({ err: error, operation }, 'frontier background operation failed'),
  });
}

/** The pod's WARC archive, unless `noWarc` or no `warcDir`. */
export function newArchive(
  s: PodSettings,
  fetcher: Fetcher,
  dns: DnsCache,
  log: Logger,
): PodArchive | undefined {
  if (s.warcDir === undefined || s.noWarc) return undefined;
  writableDirectory(s.warcDir, 'WARC directory (warcDir, --warc-dir)');
  return new PodArchive({
    dir: s.warcDir,
    pod: s.podId,
    maxFileBytes: s.warcMaxBytes,
    info: {
      software: `shardline/${CRAWLER_VERSION}`,
      format: 'WARC File Format 1.1',
      conformsTo: 'https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/',
      pod: s.podId,
      'http-header-user-agent': fetcher.userAgent,
      robots: `obey (RFC 9309, token ${s.userAgentToken})`,
    },
    requestHeaders: fetcher.requestHeaders,
    dns,
    logger: log,
  });
}

/**
 * Creates `dir` if missing and checks it can be written, when the pod is built: a directory
 * the pod cannot use is one `SHARDLINE_ERR_CRAWLER_CONFIG` line before it joins or claims.
 */
function writableDirectory(dir: string, label: string): void {
  try {
    makeDirectory(dir);
    accessSync(dir, constants.W_OK);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new CrawlerError(
      CrawlerErrorCode.CONFIG,
      `${label} ${dir}: cannot write there (${code ?? message})`,
      { cause: error },
    );
  }
}

/** The per-IP gate when `perIpDelayMs` or `perIpConcurrency` asks for one. */
export function buildIpGate(
  options: CrawlerPodOptions,
  s: PodSettings,
  log: Logger,
): IpGate | undefined {
  if (s.perIpDelayMs === 0 && s.perIpConcurrency === 0) return undefined;
  return new IpGate({
    redis: options.redis,
    prefix: s.prefix,
    pod: s.podId,
    delayMs: s.perIpDelayMs,
    concurrency: s.perIpConcurrency,
    // A pass outlives any request it covers (connect + the whole fetch), then stops counting.
    passLifetimeMs: s.connectTimeoutMs + s.fetchTimeoutMs + 10_000,
    onError: (error, operation) => log.warn({ err: error, operation }, 'per-IP gate call failed'),
  });
}

/**
 * Every robots.txt request in flight (and every robots send waiting at the gate) listens to the
 * pod's one closing signal and stops listening when it ends: hundreds at once at the start of a
 * crawl, none left behind, so Node's "possible leak" warning past 10 listeners does not apply.
 */
export function unlimitedListeners(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}

/**
 * The wake channel's own connection, for a plain client (closed by the pod). No ready check:
 * its INFO is refused once the connection is in subscriber mode. A Cluster's duplicate() takes
 * start-up nodes first: call it bare.
 */
export function duplicateSubscriber(
  redis: Redis | Cluster,
  log: Logger,
): Redis | Cluster | undefined {
  if (typeof (redis as Redis).duplicate !== 'function') return undefined;
  const duplicate = redis.isCluster
    ? (redis as Cluster).duplicate()
    : (redis as Redis).duplicate({ enableReadyCheck: false });
  // Connection errors are the main client's to report (one line per backoff step), and so is
  // a server that is not Redis: without a ready check this connection reconnects ~10×/s then.
  duplicate.on('error', (error: NodeJS.ErrnoException) => {
    if (typeof error.code === 'string' && error.code.startsWith('E')) {
      log.debug({ code: error.code }, 'wake subscriber: connection error');
    } else if (notRedisReason(error) !== undefined) {
      log.debug({ err: error }, 'wake subscriber: not a Redis server');
    } else log.warn({ err: error }, 'wake subscriber error');
  });
  return duplicate;
}

/** How long the wake connection's QUIT may take before it is dropped. */
const SUBSCRIBER_QUIT_MS = 2000;

/**
 * Closes the wake connection: QUIT when the server answers it in time, else the socket is
 * dropped. It inherits the pod's wait-through-reconnects setting, so a QUIT to a server gone
 * (or one that is not Redis) would otherwise wait forever and hold the pod's stop.
 */
export async function closeSubscriber(subscriber: Redis | Cluster, log: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), SUBSCRIBER_QUIT_MS);
  });
  // Settled either way, so a QUIT that fails after it was given up on is not an unhandled rejection.
  const quitting = subscriber.quit().then(
    () => 'quit' as const,
    (error: unknown) => ({ error }),
  );
  const outcome = await Promise.race([quitting, late]);
  clearTimeout(timer);
  if (outcome === 'quit') return;
  // A server that is not Redis fails the QUIT too, and so does a connection its server has
  // just closed (one that is not Redis hangs up after its error reply): the main client has
  // said why, and there is nothing left to close.
  if (
    outcome !== 'late' &&
    notRedisReason(outcome.error) === undefined &&
    !isClosedConnection(outcome.error)
  ) {
    log.warn({ err: outcome.error }, 'wake subscriber close failed');
  }
  subscriber.disconnect();
}

/** ioredis's rejection of a command whose connection closed under it. */
function isClosedConnection(error: unknown): boolean {
  return error instanceof Error && error.message === 'Connection is closed.';
}
