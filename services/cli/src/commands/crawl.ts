/**
 * `shardline crawl [seeds...]`: runs one crawler pod (the container's command). Settings come
 * from the environment (the crawler's `loadConfig`) and flags override them; every pod setting
 * has a flag, generated from the crawler's settings table (`crawl-flags.ts`). Without
 * REDIS_URL / --redis-url / REDIS_CLUSTER_NODES / --redis-cluster an embedded `redis-server` is
 * started with its data in --data-dir (AOF on, so a crawl resumes). The pod joins the
 * membership before it claims; HEALTH_PORT / --health-port serves the probes and `/drain`.
 */
import { join } from 'node:path';
import {
  type CrawlerConfig,
  CrawlerError,
  CrawlerErrorCode,
  type CrawlerPod,
  loadConfig,
  type PodSettingOptions,
  PROCESS_SETTINGS,
  parseClusterNodes,
  runPod,
} from '@shardline/crawler';
import type { Command } from 'commander';
import { type Logger, pino } from 'pino';
import { startEmbeddedRedis } from '../embedded-redis.js';
import { CliError, CliErrorCode } from '../errors.js';
import { clip } from '../lib/domains.js';
import type { SeedCounts } from '../lib/seed-progress.js';
import { type SeedSource, seedSources } from '../lib/seed-sources.js';
import { SeedInterruptedError, seedLines } from '../lib/seeder.js';
import {
  addPodSettingFlags,
  intFlag,
  podOptionsFromFlags,
  settingHelp,
} from '../local-cluster/crawl-flags.js';

/** The flags of `crawl` that are not pod settings. */
interface CrawlFlags {
  redisUrl?: string;
  redisCluster?: string;
  healthPort?: number;
  redisConnectTimeoutMs?: number;
  dataDir: string;
  redisPort?: number;
  seedsFile?: string;
  progress?: boolean;
  logLevel?: string;
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
  const { redisUrl, redisClusterNodes, healthPort, logLevel, redisConnectTimeoutMs } =
    PROCESS_SETTINGS;
  const command = program
    .command('crawl')
    .description('run a crawler pod (starts an embedded redis-server when no Redis is configured)')
    .argument('[seeds...]', 'seed URLs to enqueue before crawling')
    .option(`--${redisUrl.flag} <url>`, settingHelp(redisUrl))
    .option(`--${redisClusterNodes.flag} <nodes>`, settingHelp(redisClusterNodes))
    .option(
      `--${redisConnectTimeoutMs.flag} <ms>`,
      settingHelp(redisConnectTimeoutMs),
      intFlag(redisConnectTimeoutMs.flag),
    )
    .option(`--${healthPort.flag} <n>`, settingHelp(healthPort), intFlag(healthPort.flag))
    .option(
      '--data-dir <dir>',
      'shardline state directory: the embedded Redis keeps its data in <data-dir>/redis, WARC files go to <data-dir>/warc',
      './.shardline',
    )
    .option('--redis-port <n>', 'embedded Redis port (default: a free one)', intFlag('redis-port'))
    .option('--seeds-file <file>', 'file with one seed URL per line')
    .option('--progress', 'print a live progress line on stderr (default: when stderr is a TTY)')
    .option(`--${logLevel.flag} <level>`, settingHelp(logLevel));
  addPodSettingFlags(command).action(
    async (seeds: string[], flags: CrawlFlags & Record<string, unknown>) => {
      await runCrawl(seeds, flags);
    },
  );
}

/** `shardline crawl` archives by default: WARC files in <data-dir>/warc unless told otherwise. */
function withWarcDefault(settings: PodSettingOptions, dataDir: string): PodSettingOptions {
  if (settings.warcDir !== undefined || settings.noWarc) return settings;
  return { ...settings, warcDir: join(dataDir, 'warc') };
}

/** A bad variable or option is a usage error (one line, status 2); anything else stays. */
function usage(error: unknown): unknown {
  if (error instanceof CrawlerError && error.code === CrawlerErrorCode.REDIS_UNREACHABLE) {
    return new CliError(CliErrorCode.REDIS_UNREACHABLE, error.message);
  }
  const bad =
    error instanceof CrawlerError &&
    (error.code === CrawlerErrorCode.CONFIG || error.code === CrawlerErrorCode.INVALID_OPTION);
  return bad ? new CliError(CliErrorCode.USAGE, error.message) : error;
}

/** Streams every seed source into the pod in batches; logs each rejected line. */
async function seedPod(pod: CrawlerPod, sources: SeedSource[], logger: Logger): Promise<void> {
  const total = { lines: 0, queued: 0, duplicates: 0, overCap: 0, rejected: 0 };
  for (const source of sources) {
    let counts: SeedCounts;
    try {
      counts = await seedLines({ enqueue: (items) => pod.seed(items) }, source.lines(), {
        onReject: (r) =>
          logger.warn(
            { source: source.name, line: r.line, code: r.code, input: clip(r.input) },
            `seed ${source.unit} ${r.line} rejected: ${r.reason}`,
          ),
      });
    } catch (error) {
      if (!(error instanceof SeedInterruptedError)) throw error;
      const queued = total.queued + error.counts.queued;
      throw new CliError(
        CliErrorCode.SEED_INTERRUPTED,
        `seeding stopped after ${total.lines + error.counts.lines} lines (${queued} queued): ${error.message}`,
      );
    }
    total.lines += counts.lines;
    total.queued += counts.queued;
    total.duplicates += counts.duplicates;
    total.overCap += counts.overCap;
    total.rejected += counts.rejected;
  }
  logger.info(total, 'seeded');
}

/** Redis from flags over the environment: a flag beats any variable (--redis-url over nodes too). */
function redisTarget(flags: CrawlFlags, config: CrawlerConfig) {
  let clusterNodes = config.redisClusterNodes;
  if (flags.redisCluster !== undefined) {
    try {
      clusterNodes = parseClusterNodes(flags.redisCluster, '--redis-cluster');
    } catch (error) {
      throw usage(error);
    }
  }
  if (flags.redisUrl !== undefined && flags.redisCluster === undefined) clusterNodes = undefined;
  return { url: flags.redisUrl ?? config.redisUrl, clusterNodes };
}

async function runCrawl(seeds: string[], flags: CrawlFlags & Record<string, unknown>) {
  let config: CrawlerConfig;
  try {
    config = loadConfig();
  } catch (error) {
    throw usage(error);
  }
  const sources = await seedSources({ urls: seeds, file: flags.seedsFile });
  const logger = pino({ level: flags.logLevel ?? config.logLevel }, pino.destination(2));
  const target = redisTarget(flags, config);
  let embedded: Awaited<ReturnType<typeof startEmbeddedRedis>> | undefined;
  if (!target.url && !target.clusterNodes) {
    // Fails with a one-line CliError (SHARDLINE_ERR_CLI_REDIS).
    embedded = await startEmbeddedRedis({
      dataDir: join(flags.dataDir, 'redis'),
      port: flags.redisPort ?? 0,
    });
    logger.info(
      { url: embedded.url, dataDir: embedded.dataDir, reused: !embedded.started },
      'embedded redis',
    );
    target.url = embedded.url;
  }
  try {
    await runPod({
      settings: withWarcDefault({ ...config.pod, ...podOptionsFromFlags(flags) }, flags.dataDir),
      redis: target,
      redisConnectTimeoutMs: flags.redisConnectTimeoutMs ?? config.redisConnectTimeoutMs,
      healthPort: flags.healthPort ?? config.healthPort,
      logger,
      beforeStart: async (pod) => {
        if (sources.length > 0) await seedPod(pod, sources, logger);
      },
      whileRunning: (pod) =>
        (flags.progress ?? process.stderr.isTTY) ? progress(pod, logger) : undefined,
      afterStop: (pod) => process.stdout.write(`${JSON.stringify(pod.stats())}\n`),
    });
  } catch (error) {
    throw usage(error);
  } finally {
    await embedded?.stop();
  }
}

/** Prints the progress line on stderr every second; returns what ends it. */
function progress(pod: CrawlerPod, logger: Logger): () => void {
  const startedAt = Date.now();
  let last = { at: startedAt, fetched: 0 };
  const timer = setInterval(() => {
    void pod.frontier.stats().then(
      (frontier) => {
        const stats = pod.stats();
        const now = Date.now();
        const rate = ((stats.fetched - last.fetched) * 1000) / Math.max(1, now - last.at);
        last = { at: now, fetched: stats.fetched };
        process.stderr.write(`\r${progressLine(stats, frontier, now - startedAt, rate)}\x1b[K`);
      },
      (error: unknown) => logger.debug({ err: error }, 'progress: frontier stats failed'),
    );
  }, 1000);
  return () => {
    clearInterval(timer);
    process.stderr.write('\n');
  };
}
