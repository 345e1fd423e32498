/**
 * `shardline crawl [seeds...]`: runs one crawler pod (the container's command). Settings come
 * from the environment (the crawler's `loadConfig`) and flags override them. Without
 * REDIS_URL / --redis-url / REDIS_CLUSTER_NODES / --redis-cluster an embedded `redis-server` is
 * started with its data in --data-dir (AOF on, so a crawl resumes). The pod joins the
 * membership before it claims; HEALTH_PORT / --health-port serves the probes and `/drain`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CrawlerError,
  CrawlerPod,
  type CrawlerPodOptions,
  createRedisClient,
  type HealthServer,
  loadConfig,
  parseClusterNodes,
  servePodHealth,
} from '@shardline/crawler';
import { type Command, Option } from 'commander';
import { pino } from 'pino';
import { startEmbeddedRedis } from '../embedded-redis.js';
import { CliError, CliErrorCode } from '../errors.js';

interface CrawlFlags {
  redisUrl?: string;
  redisCluster?: string;
  healthPort?: number;
  podWeight?: string;
  sessionTimeoutMs?: number;
  dataDir: string;
  redisPort?: number;
  seedsFile?: string;
  podId?: string;
  prefix?: string;
  concurrency?: number;
  perHostConcurrency?: number;
  minDelayMs?: number;
  robotsRetryMs?: number;
  robotsMaxRetries?: number;
  userAgent?: string;
  contactUrl?: string;
  resolve: string[];
  allowPrivateAddresses?: boolean;
  maxDepth?: number;
  sameDomainOnly?: boolean;
  maxPagesPerDomain?: number;
  resultsJsonl?: string;
  exitWhenIdle?: boolean | string;
  enqueueSitemaps?: boolean;
  progress?: boolean;
  logLevel?: string;
}

function int(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim())) {
      throw new CliError(
        CliErrorCode.USAGE,
        `--${name} must be a non-negative integer, got ${JSON.stringify(value)}`,
      );
    }
    return Number(value);
  };
}

function collect(value: string, previous: string[]): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ];
}

/** One progress line: pages, rate, queue, errors. */
export function progressLine(
  stats: ReturnType<CrawlerPod['stats']>,
  frontier: Record<string, number>,
  elapsedMs: number,
  rate: number,
): string {
  const errors = Object.values(stats.errors).reduce((a, b) => a + b, 0);
  return (
    `pages ${stats.fetched}  ${rate.toFixed(0)}/s  queued ${frontier.queued ?? 0}` +
    `  in flight ${stats.inFlight}  retries ${stats.retried}  dead ${stats.dead}` +
    `  errors ${errors}  ${(elapsedMs / 1000).toFixed(0)}s`
  );
}

/** Registers `shardline crawl`. */
export function registerCrawlCommand(program: Command): void {
  program
    .command('crawl')
    .description('run a crawler pod (starts an embedded redis-server when no Redis is configured)')
    .argument('[seeds...]', 'seed URLs to enqueue before crawling')
    .option('--redis-url <url>', 'Redis to use (env REDIS_URL); none: embedded redis-server')
    .option(
      '--redis-cluster <nodes>',
      'Redis Cluster start-up nodes host:port,host:port… (env REDIS_CLUSTER_NODES); wins over --redis-url',
    )
    .option(
      '--health-port <n>',
      'serve /healthz, /readyz, POST /drain on 0.0.0.0:n (env HEALTH_PORT; default off)',
      int('health-port'),
    )
    .option('--pod-weight <w>', 'capacity weight on the ring (env POD_WEIGHT, default 1)')
    .option(
      '--session-timeout-ms <n>',
      'membership session timeout (env SESSION_TIMEOUT_MS, default 10000)',
      int('session-timeout-ms'),
    )
    .option(
      '--data-dir <dir>',
      'shardline state directory; the embedded Redis keeps its data in <data-dir>/redis',
      './.shardline',
    )
    .option('--redis-port <n>', 'embedded Redis port (default: a free one)', int('redis-port'))
    .option('--seeds-file <file>', 'file with one seed URL per line')
    .option('--pod-id <id>', 'pod id (env POD_ID, default hostname)')
    .option('--prefix <prefix>', 'Redis key prefix (env KEY_PREFIX, default sl)')
    .option(
      '--concurrency <n>',
      'global fetch slots (env CONCURRENCY, default 64)',
      int('concurrency'),
    )
    .option(
      '--per-host-concurrency <n>',
      'requests in flight per host (env PER_HOST_CONCURRENCY, default 1)',
      int('per-host-concurrency'),
    )
    .option(
      '--min-delay-ms <n>',
      'minimum gap per host (env MIN_DELAY_MS, default 1000)',
      int('min-delay-ms'),
    )
    .option(
      '--robots-retry-ms <n>',
      'retry an unreachable robots.txt after this long; its host waits (env ROBOTS_RETRY_MS, default 300000)',
      int('robots-retry-ms'),
    )
    .option(
      '--robots-max-retries <n>',
      'unreachable robots.txt retries before the host is dead-lettered (env ROBOTS_MAX_RETRIES, default 12)',
      int('robots-max-retries'),
    )
    .option('--user-agent <token>', 'User-Agent product token (env USER_AGENT, default shardline)')
    .option('--contact-url <url>', 'contact URL in the User-Agent (env CONTACT_URL)')
    .option(
      '--resolve <host:addr>',
      'DNS override, repeatable or comma-separated (env RESOLVE)',
      collect,
      [],
    )
    .option('--allow-private-addresses', 'allow private/loopback/link-local/metadata addresses')
    .option('--max-depth <n>', 'deepest link depth (env MAX_DEPTH, default 64)', int('max-depth'))
    .option('--same-domain-only', 'follow links to the same domain only')
    .option(
      '--max-pages-per-domain <n>',
      'URLs accepted per domain (0 = no cap)',
      int('max-pages-per-domain'),
    )
    .option('--results-jsonl <file>', 'also append results to this JSONL file')
    .option('--enqueue-sitemaps', 'enqueue the sitemaps robots.txt lists')
    .addOption(
      new Option(
        '--exit-when-idle [graceMs]',
        'stop once nothing is queued or in flight (for graceMs, default 2000)',
      ),
    )
    .option('--progress', 'print a live progress line on stderr (default: when stderr is a TTY)')
    .option('--log-level <level>', 'pino level (env LOG_LEVEL, default info)')
    .action(async (seeds: string[], flags: CrawlFlags) => {
      await runCrawl(seeds, flags);
    });
}

async function runCrawl(seeds: string[], flags: CrawlFlags): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof CrawlerError) throw new CliError(CliErrorCode.USAGE, error.message);
    throw error;
  }
  const options: Omit<CrawlerPodOptions, 'redis'> = { ...config.pod };
  const set = <K extends keyof CrawlerPodOptions>(
    key: K,
    value: CrawlerPodOptions[K] | undefined,
  ) => {
    if (value !== undefined) options[key as keyof typeof options] = value as never;
  };
  set('podId', flags.podId);
  if (flags.podWeight !== undefined) {
    const weight = Number(flags.podWeight);
    if (!(weight > 0) || !Number.isFinite(weight)) {
      throw new CliError(
        CliErrorCode.USAGE,
        `--pod-weight must be a number > 0, got ${JSON.stringify(flags.podWeight)}`,
      );
    }
    options.podWeight = weight;
  }
  set('sessionTimeoutMs', flags.sessionTimeoutMs);
  set('prefix', flags.prefix);
  set('concurrency', flags.concurrency);
  set('perHostConcurrency', flags.perHostConcurrency);
  set('minDelayMs', flags.minDelayMs);
  set('robotsRetryMs', flags.robotsRetryMs);
  set('robotsMaxRetries', flags.robotsMaxRetries);
  set('userAgentToken', flags.userAgent);
  set('contactUrl', flags.contactUrl);
  if (flags.resolve.length > 0) options.resolve = flags.resolve;
  set('allowPrivateAddresses', flags.allowPrivateAddresses);
  set('maxDepth', flags.maxDepth);
  set('sameDomainOnly', flags.sameDomainOnly);
  set('maxPagesPerDomain', flags.maxPagesPerDomain);
  set('resultsJsonl', flags.resultsJsonl);
  set('enqueueSitemaps', flags.enqueueSitemaps);
  if (flags.exitWhenIdle !== undefined) {
    options.exitWhenIdle =
      flags.exitWhenIdle === true
        ? true
        : { graceMs: int('exit-when-idle')(flags.exitWhenIdle as string) };
  }
  const allSeeds = [...seeds];
  if (flags.seedsFile) {
    let text: string;
    try {
      text = readFileSync(flags.seedsFile, 'utf8');
    } catch (error) {
      throw new CliError(
        CliErrorCode.IO,
        `cannot read ${flags.seedsFile}: ${(error as Error).message}`,
      );
    }
    for (const line of text.split('\n')) {
      const url = line.trim();
      if (url && !url.startsWith('#')) allSeeds.push(url);
    }
  }

  const logger = pino({ level: flags.logLevel ?? config.logLevel }, pino.destination(2));
  let clusterNodes = config.redisClusterNodes;
  if (flags.redisCluster !== undefined) {
    try {
      clusterNodes = parseClusterNodes(flags.redisCluster, '--redis-cluster');
    } catch (error) {
      throw new CliError(CliErrorCode.USAGE, (error as Error).message);
    }
  }
  // A flag beats the environment: --redis-url over REDIS_CLUSTER_NODES too.
  if (flags.redisUrl !== undefined && flags.redisCluster === undefined) clusterNodes = undefined;
  const redisUrl = flags.redisUrl ?? config.redisUrl;
  let embedded: Awaited<ReturnType<typeof startEmbeddedRedis>> | undefined;
  if (!redisUrl && !clusterNodes) {
    // Fails with a one-line CliError (SHARDLINE_ERR_CLI_REDIS).
    embedded = await startEmbeddedRedis({
      dataDir: join(flags.dataDir, 'redis'),
      port: flags.redisPort ?? 0,
    });
    logger.info(
      { url: embedded.url, dataDir: embedded.dataDir, reused: !embedded.started },
      'embedded redis',
    );
  }
  const redis = createRedisClient({ url: redisUrl ?? embedded?.url, clusterNodes });
  redis.on('error', (error) => logger.warn({ err: error }, 'redis error (reconnecting)'));
  let pod: CrawlerPod;
  try {
    pod = new CrawlerPod({ ...options, redis, logger });
  } catch (error) {
    await redis.quit();
    await embedded?.stop();
    if (error instanceof CrawlerError) throw new CliError(CliErrorCode.USAGE, error.message);
    throw error;
  }
  const onSignal = () => void pod.stop();
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  let timer: NodeJS.Timeout | undefined;
  let health: HealthServer | undefined;
  const healthPort = flags.healthPort ?? config.healthPort;
  try {
    if (healthPort !== undefined) {
      health = await servePodHealth({ port: healthPort, pod, redis, logger });
    }
    if (allSeeds.length > 0) {
      const report = await pod.seed(allSeeds);
      logger.info(
        { queued: report.queued, duplicates: report.duplicates, rejected: report.rejected },
        'seeded',
      );
    }
    await pod.start();
    if (flags.progress ?? process.stderr.isTTY) {
      const startedAt = Date.now();
      let last = { at: startedAt, fetched: 0 };
      timer = setInterval(() => {
        void pod.frontier.stats().then((frontier) => {
          const stats = pod.stats();
          const now = Date.now();
          const rate = ((stats.fetched - last.fetched) * 1000) / Math.max(1, now - last.at);
          last = { at: now, fetched: stats.fetched };
          process.stderr.write(`\r${progressLine(stats, frontier, now - startedAt, rate)}\x1b[K`);
        });
      }, 1000);
    }
    await pod.done;
  } finally {
    if (timer) {
      clearInterval(timer);
      process.stderr.write('\n');
    }
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    await pod.stop();
    await health?.close();
    process.stdout.write(`${JSON.stringify(pod.stats())}\n`);
    await redis.quit().catch(() => undefined);
    await embedded?.stop();
  }
}
