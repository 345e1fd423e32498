/**
 * `shardline urlfrontier --port N`: a URLFrontier v2 gRPC node (the crawler-commons API, for
 * StormCrawler's URLFrontier spout and status updater or any gRPC client) that joins the pod
 * ring and serves the queues of the domains it owns, without fetching. `shardline up --pods K
 * --urlfrontier-port BASE --no-fetch` runs K of them on BASE, BASE+1, …; see
 * docs/urlfrontier.md.
 */

import { hostname } from 'node:os';
import { DEFAULT_PREFIX } from '@shardline/frontier';
import type { MembershipSupersededError } from '@shardline/membership';
import { type Command, Option } from 'commander';
import { pino } from 'pino';
import { loadConfig } from '../config.js';
import { CliError, CliErrorCode, usageError } from '../errors.js';
import { KEY_PREFIX_HELP, keyPrefixOption } from '../lib/parse.js';
import { type RedisFlags, resolveRedisTarget, useEmbeddedRedis } from '../lib/redis-connect.js';
import { withRedisOptions } from '../lib/session.js';
import { signalJoined, stopWithSupervisor } from '../local-cluster/ready-signal.js';

interface UrlFrontierFlags extends RedisFlags {
  port: number;
  host: string;
  advertise?: string;
  podId?: string;
  prefix?: string;
  leaseTimeoutMs?: number;
  minDelayMs?: number;
  perHostConcurrency?: number;
  maxPagesPerHost?: number;
  maxPagesPerDomain?: number;
  sessionTimeoutMs?: number;
  redisConnectTimeoutMs: number;
  logLevel: string;
}

function integer(flag: string, min: number, max: number) {
  return (value: string): number => {
    const n = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw usageError(
        `${flag} must be an integer in ${min}..${max}, got ${JSON.stringify(value)}`,
      );
    }
    return n;
  };
}

/** Registers `shardline urlfrontier`. */
export function registerUrlFrontierCommand(program: Command): void {
  withRedisOptions(
    program
      .command('urlfrontier')
      .description('serve the URLFrontier v2 gRPC API as a ring member (no fetching)'),
  )
    .requiredOption('--port <n>', 'gRPC port', integer('--port', 0, 65_535))
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .option('--advertise <host:port>', 'address ListNodes gives out (default: host:port)')
    .option('--pod-id <id>', 'ring member id (env POD_ID, default: urlfrontier-<hostname>-<port>)')
    .option('--prefix <prefix>', KEY_PREFIX_HELP, keyPrefixOption)
    .addOption(
      new Option(
        '--lease-timeout-ms <n>',
        'how long a handed-out URL stays invisible when delay_requestable is 0 (default 60000)',
      ).argParser(integer('--lease-timeout-ms', 1000, 31_536_000_000)),
    )
    .addOption(
      new Option(
        '--min-delay-ms <n>',
        'gap between two URLs handed out from one queue, cluster-wide (default 0)',
      ).argParser(integer('--min-delay-ms', 0, 86_400_000)),
    )
    .addOption(
      new Option(
        '--per-host-concurrency <n>',
        'URLs of one queue out at once, cluster-wide (default 100)',
      ).argParser(integer('--per-host-concurrency', 1, 100_000)),
    )
    .addOption(
      new Option(
        '--max-pages-per-host <n>',
        'URLs accepted per queue over the crawl (0 = no cap)',
      ).argParser(integer('--max-pages-per-host', 0, Number.MAX_SAFE_INTEGER)),
    )
    .addOption(
      new Option(
        '--max-pages-per-domain <n>',
        'URLs accepted per registrable domain over the crawl (0 = no cap)',
      ).argParser(integer('--max-pages-per-domain', 0, Number.MAX_SAFE_INTEGER)),
    )
    .addOption(
      new Option('--session-timeout-ms <n>', 'ring session timeout (default 10000)').argParser(
        integer('--session-timeout-ms', 300, 3_600_000),
      ),
    )
    .addOption(
      new Option(
        '--redis-connect-timeout-ms <ms>',
        'how long the first connection to Redis may take before the node gives up with one error line',
      )
        .env('REDIS_CONNECT_TIMEOUT_MS')
        .default(10_000)
        .argParser(integer('--redis-connect-timeout-ms', 1, 3_600_000)),
    )
    .addOption(
      new Option('--log-level <level>', 'log level')
        .choices(['trace', 'debug', 'info', 'warn', 'error'])
        .default('info'),
    )
    .action(async (flags: UrlFrontierFlags) => {
      const config = loadConfig();
      const target = resolveRedisTarget(flags, config);
      const embedded =
        target.kind === 'embedded' ? await useEmbeddedRedis(target.dataDir) : undefined;
      const log = pino({ level: flags.logLevel });
      stopWithSupervisor((message) => log.warn(message));
      // gRPC and the crawler's client load when a node runs, not for every command.
      const [crawler, { UrlFrontierNode, UrlFrontierError, UrlFrontierErrorCode }] =
        await Promise.all([import('@shardline/crawler'), import('@shardline/urlfrontier')]);
      const connection = crawler.openPodRedis(
        target.kind === 'cluster'
          ? { clusterNodes: target.nodes }
          : { url: embedded?.url ?? (target.kind === 'single' ? target.url : '') },
        log,
      );
      const redis = connection.client;
      try {
        // One line naming the URL and the cause (at once for a server that is not Redis).
        await crawler
          .waitForRedis(connection, flags.redisConnectTimeoutMs)
          .catch((error: unknown) => {
            if (!(error instanceof crawler.CrawlerError)) throw error;
            throw new CliError(CliErrorCode.REDIS_UNREACHABLE, error.message);
          });
        const node = await UrlFrontierNode.start({
          redis,
          podId:
            flags.podId ??
            config.podId ??
            `urlfrontier-${hostname()}-${flags.port}`.replace(/[^A-Za-z0-9._:-]/g, '-'),
          port: flags.port,
          host: flags.host,
          ...(flags.advertise === undefined ? {} : { advertise: flags.advertise }),
          prefix: flags.prefix ?? config.keyPrefix ?? DEFAULT_PREFIX,
          leaseTimeoutMs: flags.leaseTimeoutMs,
          minDelayMs: flags.minDelayMs,
          perHostConcurrency: flags.perHostConcurrency,
          maxPagesPerHost: flags.maxPagesPerHost,
          maxPagesPerDomain: flags.maxPagesPerDomain,
          sessionTimeoutMs: flags.sessionTimeoutMs,
          logger: log,
        }).catch((error: unknown) => {
          // A taken port is the machine's state, not a bug: one line, exit 1.
          if (error instanceof UrlFrontierError && error.code === UrlFrontierErrorCode.LISTEN) {
            throw new CliError(CliErrorCode.LISTEN, error.message);
          }
          throw error;
        });
        process.stdout.write(`shardline urlfrontier ${node.podId} listening on ${node.address}\n`);
        signalJoined();
        const superseded = await new Promise<MembershipSupersededError | undefined>((resolve) => {
          const stop = () => resolve(undefined);
          process.once('SIGTERM', stop);
          process.once('SIGINT', stop);
          // Another instance took this node's id over while it stalled: stop serving at once.
          node.membership.once('superseded', resolve);
        });
        if (superseded) {
          log.fatal({ code: superseded.code }, superseded.message);
          await node.stop({ graceful: false });
          throw superseded;
        }
        // Graceful: the node's domains move to the others; its leases stay with their clients.
        await node.stop();
      } finally {
        redis.disconnect();
        await embedded?.stop();
      }
    });
}
