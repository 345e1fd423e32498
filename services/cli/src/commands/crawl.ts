/**
 * `shardline crawl [seeds...]`: runs one crawler pod (the container's command). Settings come
 * from the config file and the environment over it (`loadSettings`), and flags override them; every pod setting
 * has a flag, generated from the crawler's settings table (`crawl-flags.ts`). Without
 * REDIS_URL / --redis / REDIS_CLUSTER_NODES / --redis-cluster an embedded `redis-server` is
 * started with its data in --data-dir (AOF on, so a crawl resumes). The pod joins the
 * membership before it claims; HEALTH_PORT / --health-port serves the probes and `/drain`.
 */

import { join } from 'node:path';
import type { CrawlerPod } from '@shardline/crawler';
import {
  type CrawlerConfig,
  CrawlerError,
  CrawlerErrorCode,
  type PodSettingOptions,
  PROCESS_SETTINGS,
  parseClusterNodes,
} from '@shardline/crawler/settings';
import { redisLabel } from '@shardline/frontier';
import { MembershipPodIdInUseError } from '@shardline/membership';
import { type Command, Option } from 'commander';
import { type Logger, pino } from 'pino';
import pretty from 'pino-pretty';
import { startEmbeddedRedis } from '../embedded-redis.js';
import { CliError, CliErrorCode } from '../errors.js';
import { startProgress } from '../lib/crawl-progress.js';
import { CrawlReport, formatSummary, nothingFetchedMessage } from '../lib/crawl-report.js';
import { DEFAULT_DATA_DIR, warcDirOf } from '../lib/data-dir.js';
import { type DeadLettersWhere, deadLettersCommand } from '../lib/dead-letters-command.js';
import { clip } from '../lib/domains.js';
import type { SeedCounts } from '../lib/seed-progress.js';
import { type SeedSource, seedSources } from '../lib/seed-sources.js';
import { SeedInterruptedError, seedLines } from '../lib/seeder.js';
import { loadSettings } from '../lib/settings-sources.js';
import {
  addPodSettingFlags,
  CONFIG_FLAG_HELP,
  checkPodSettings,
  intFlag,
  podOptionsFromFlags,
  portFlag,
  settingHelp,
} from '../local-cluster/crawl-flags.js';
import { signalJoined, stopWithSupervisor } from '../local-cluster/ready-signal.js';

/** The flags of `crawl` that are not pod settings. */
interface CrawlFlags {
  redis?: string;
  /** Hidden alias of --redis. */
  redisUrl?: string;
  redisCluster?: string;
  healthPort?: number;
  redisConnectTimeoutMs?: number;
  dataDir: string;
  config?: string;
  redisPort?: number;
  seedsFile?: string;
  progress?: boolean;
  json?: boolean;
  logLevel?: string;
}

/** The exit statuses and outputs of `shardline crawl` (the same table is in README.md). */
const CRAWL_HELP_AFTER = `
Output: logs on stderr (a failed URL once per host and error code, then at 10, 100, 1000…
failures; past a code's first 20 hosts, a line per power of ten of the code's failures); a
progress line on a terminal; at the end a summary on stderr (pages, bytes, rate, errors by code
with an example URL, pages with an error status, dead letters, robots, domains left with work;
--json: none) and one JSON line on stdout (the pod's stats plus "summary").

Exit status:
  0   the crawl ran (stopped by a signal, /drain or --exit-when-idle) and fetched something,
      or no seeds were given
  1   seeds were given and nothing could be fetched (SHARDLINE_ERR_CLI_NOTHING_FETCHED); Redis
      unreachable at start (REDIS_CONNECT_TIMEOUT_MS); the embedded redis-server failed; seeding
      stopped part-way; a stop that outlived stop grace + 5 s
  2   usage: a bad flag, option value or environment variable
  70  internal error (a bug: SHARDLINE_DEBUG=1 prints the stack)
`;

/** Logs on stderr: short and coloured on a terminal (pino-pretty), JSON lines otherwise. */
function crawlLogger(level: string): Logger {
  if (!process.stderr.isTTY) return pino({ level }, pino.destination(2));
  const stream = pretty({
    destination: 2,
    sync: true,
    colorize: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
  });
  return pino({ level }, stream);
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
    .addOption(new Option('--redis-url <url>', 'old name of --redis').hideHelp())
    .option(`--${redisClusterNodes.flag} <nodes>`, settingHelp(redisClusterNodes))
    .option(
      `--${redisConnectTimeoutMs.flag} <ms>`,
      settingHelp(redisConnectTimeoutMs),
      intFlag(redisConnectTimeoutMs.flag),
    )
    .option(`--${healthPort.flag} <n>`, settingHelp(healthPort), portFlag(healthPort.flag))
    .option(
      '--data-dir <dir>',
      'shardline state directory: the embedded Redis keeps its data in <data-dir>/redis, WARC files go to <data-dir>/warc',
      DEFAULT_DATA_DIR,
    )
    .option('--config <file>', CONFIG_FLAG_HELP)
    .option('--redis-port <n>', 'embedded Redis port (default: a free one)', portFlag('redis-port'))
    .option('--seeds-file <file>', 'file with one seed URL per line')
    .option('--progress', 'print a live progress line on stderr (default: when stderr is a TTY)')
    .option('--json', 'no human summary on stderr at the end (the JSON line on stdout stays)')
    .addOption(
      new Option(`--${logLevel.flag} <level>`, settingHelp(logLevel)).choices(logLevel.choices),
    );
  command.addHelpText('after', CRAWL_HELP_AFTER);
  addPodSettingFlags(command).action(
    async (seeds: string[], flags: CrawlFlags & Record<string, unknown>) => {
      await runCrawl(seeds, flags);
    },
  );
}

/** `shardline crawl` archives by default: WARC files in <data-dir>/warc unless told otherwise. */
function withWarcDefault(settings: PodSettingOptions, dataDir: string): PodSettingOptions {
  if (settings.warcDir !== undefined || settings.noWarc) return settings;
  return { ...settings, warcDir: warcDirOf(dataDir) };
}

/** A bad variable or option is a usage error (one line, status 2); anything else stays. */
function usage(error: unknown): unknown {
  if (error instanceof CrawlerError && error.code === CrawlerErrorCode.REDIS_UNREACHABLE) {
    return new CliError(CliErrorCode.REDIS_UNREACHABLE, error.message);
  }
  if (error instanceof CrawlerError && error.code === CrawlerErrorCode.LISTEN) {
    return new CliError(CliErrorCode.IO, error.message);
  }
  const bad =
    error instanceof CrawlerError &&
    (error.code === CrawlerErrorCode.CONFIG || error.code === CrawlerErrorCode.INVALID_OPTION);
  return bad ? new CliError(CliErrorCode.USAGE, error.message) : error;
}

/** Streams every seed source into the pod in batches; logs each rejected line. */
async function seedPod(
  pod: CrawlerPod,
  sources: SeedSource[],
  logger: Logger,
): Promise<SeedCounts> {
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
      // The pod could not join (its id is another live pod's): nothing was queued; say that.
      if (error.cause instanceof MembershipPodIdInUseError) throw error.cause;
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
  return total;
}

/** Where this crawl's dead letters are read (see {@link deadLettersCommand}). */
function deadLettersOf(
  flags: CrawlFlags,
  settings: { prefix?: unknown; crawlId?: unknown },
  embedded: unknown,
): DeadLettersWhere {
  const url = flags.redis ?? flags.redisUrl;
  return {
    ...(embedded && flags.dataDir !== DEFAULT_DATA_DIR ? { dataDir: flags.dataDir } : {}),
    ...(url !== undefined ? { redisLabel: redisLabel({ url }) } : {}),
    ...(flags.redisCluster !== undefined ? { redisCluster: flags.redisCluster } : {}),
    ...(typeof settings.prefix === 'string' ? { prefix: settings.prefix } : {}),
    ...(typeof settings.crawlId === 'string' ? { crawlId: settings.crawlId } : {}),
  };
}

/** Redis from flags over the environment: a flag beats any variable (--redis over nodes too). */
function redisTarget(flags: CrawlFlags, config: CrawlerConfig) {
  const url = flags.redis ?? flags.redisUrl;
  let clusterNodes = config.redisClusterNodes;
  if (flags.redisCluster !== undefined) {
    try {
      clusterNodes = parseClusterNodes(flags.redisCluster, '--redis-cluster');
    } catch (error) {
      throw usage(error);
    }
  }
  if (url !== undefined && flags.redisCluster === undefined) clusterNodes = undefined;
  return { url: url ?? config.redisUrl, clusterNodes };
}

async function runCrawl(seeds: string[], flags: CrawlFlags & Record<string, unknown>) {
  const { config } = loadSettings(flags);
  const sources = await seedSources({ urls: seeds, file: flags.seedsFile });
  const flagOptions = podOptionsFromFlags(flags);
  checkPodSettings(flagOptions, config.pod);
  const settings = withWarcDefault({ ...config.pod, ...flagOptions }, flags.dataDir);
  // The pod (undici, the pipeline…) loads only when a crawl runs, not for `--help`.
  const { loadHandler, runPod } = await import('@shardline/crawler');
  // A handler that cannot load is a usage error before Redis starts or a seed is queued.
  const pageHandler =
    settings.handler === undefined
      ? undefined
      : await loadHandler(settings.handler).catch((error: unknown) => {
          throw usage(error);
        });
  const logger = crawlLogger(flags.logLevel ?? config.logLevel);
  stopWithSupervisor((message) => logger.warn(message));
  const target = redisTarget(flags, config);
  let embedded: Awaited<ReturnType<typeof startEmbeddedRedis>> | undefined;
  if (!target.url && !target.clusterNodes) {
    // Fails with a one-line CliError (SHARDLINE_ERR_CLI_REDIS).
    embedded = await startEmbeddedRedis({
      dataDir: join(flags.dataDir, 'redis'),
      port: flags.redisPort ?? 0,
      onNotice: (message) => logger.warn(message),
    });
    logger.info(
      { url: embedded.url, dataDir: embedded.dataDir, sharedWith: embedded.sharedWith },
      embedded.started
        ? 'embedded redis'
        : `embedded redis: sharing the server of the running shardline process ${embedded.sharedWith}`,
    );
    target.url = embedded.url;
  }
  const report = new CrawlReport(logger);
  let seeded: SeedCounts = { lines: 0, queued: 0, duplicates: 0, overCap: 0, rejected: 0 };
  let nothingFetched: CrawlReport | undefined;
  try {
    await runPod({
      settings,
      ...(pageHandler ? { pageHandler } : {}),
      redis: target,
      redisConnectTimeoutMs: flags.redisConnectTimeoutMs ?? config.redisConnectTimeoutMs,
      healthPort: flags.healthPort ?? config.healthPort,
      logger,
      beforeStart: async (pod) => {
        if (sources.length > 0) seeded = await seedPod(pod, sources, logger);
        // Seeds were given and none was taken (a typo, no scheme): stop now, not idle for ever.
        if (seeded.lines > 0 && seeded.rejected === seeded.lines) {
          throw new CliError(CliErrorCode.NOTHING_FETCHED, nothingFetchedMessage(report, seeded));
        }
      },
      onResult: report.observe,
      whileRunning: (pod) => {
        signalJoined();
        return (flags.progress ?? process.stderr.isTTY)
          ? startProgress(pod, report, logger)
          : undefined;
      },
      afterStop: async (pod) => {
        const stats = pod.stats();
        const summary = report.summary(stats, await domainsLeft(pod));
        // stdout: one JSON line (the pod's stats and the summary) for scripts.
        process.stdout.write(`${JSON.stringify({ ...stats, summary })}\n`);
        if (!flags.json) {
          process.stderr.write(
            formatSummary(summary, deadLettersCommand(deadLettersOf(flags, settings, embedded))),
          );
        }
        if (seeded.lines > 0 && stats.fetched === 0) nothingFetched = report;
      },
    });
  } catch (error) {
    throw usage(error);
  } finally {
    await embedded?.stop();
  }
  if (nothingFetched) {
    throw new CliError(CliErrorCode.NOTHING_FETCHED, nothingFetchedMessage(nothingFetched, seeded));
  }
}

/**
 * Domains of the pod with URLs still queued or in flight (held by politeness, backoff or a
 * stop); undefined if Redis is gone or the count takes more than 2 s.
 */
async function domainsLeft(pod: CrawlerPod): Promise<number | undefined> {
  const timeout = new Promise<undefined>((done) => setTimeout(() => done(undefined), 2000).unref());
  return Promise.race([
    pod.frontier.inspector.domainsWithWork(pod.id).catch(() => undefined),
    timeout,
  ]);
}
