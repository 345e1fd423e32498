/**
 * What every Redis-backed command opens: the connection, the frontier, the ring
 * ({@link resolveOwnership}) and the API's {@link StatsReader}, so the CLI reads exactly
 * what `GET /v1/*` reads. Also the shared flags (`--redis`, `--redis-cluster`, `--prefix`,
 * `--crawl-id`, `--data-dir`, `--pods`) and the mapping of API/connection errors to one-line
 * errors. A session works in one crawl: its frontier, its ring (the crawl's pods) and its
 * counters.
 */

import { ApiErrorCode, HttpError, StatsReader } from '@shardline/api/reader';
import {
  CrawlDeletingError,
  CrawlRegistry,
  crawlKeyPrefix,
  DEFAULT_CRAWL,
  DEFAULT_PREFIX,
  isCrawlId,
  isKeyPrefix,
  KEY_PREFIX_RULE,
  RedisFrontier,
} from '@shardline/frontier';
import { type Command, Option } from 'commander';
import type { Cluster, Redis } from 'ioredis';
import { loadConfig } from '../config.js';
import { CliError, CliErrorCode, usageError } from '../errors.js';
import { DEFAULT_DATA_DIR } from './data-dir.js';
import { type Ownership, resolveOwnership } from './ownership.js';
import {
  CRAWL_ID_HINT,
  crawlIdOption,
  KEY_PREFIX_HELP,
  keyPrefixOption,
  podList,
} from './parse.js';
import {
  connectRedis,
  isConnectionError,
  type RedisFlags,
  resolveRedisTarget,
  unreachable,
} from './redis-connect.js';

/** Flags shared by the Redis-backed commands. */
export interface SessionFlags extends RedisFlags {
  prefix?: string;
  crawlId?: string;
  pods?: string[];
}

/** An open session; `close` once the command is done. */
export interface Session {
  redis: Redis | Cluster;
  frontier: RedisFrontier;
  ownership: Ownership;
  reader: StatsReader;
  prefix: string;
  /** The crawl the session works in. */
  crawlId: string;
  /** Prefix of the crawl's own keys: its registry (ring), counters, results stream. */
  crawlPrefix: string;
  label: string;
}

/** Adds `--redis`, `--redis-cluster`, `--data-dir`, `--prefix`, `--crawl-id` and `--pods`. */
export function withConnectionOptions(command: Command): Command {
  return withRedisOptions(command)
    .addOption(new Option('--prefix <prefix>', KEY_PREFIX_HELP).argParser(keyPrefixOption))
    .addOption(
      new Option(
        '--crawl-id <id>',
        'the crawl (namespace) to act on (env CRAWL_ID, default "default")',
      ).argParser(crawlIdOption),
    )
    .addOption(
      new Option(
        '--pods <ids>',
        'owner pods, comma-separated (default: the live pods of the registry)',
      ).argParser(podList),
    );
}

/** Adds `--redis`, `--redis-cluster` and `--data-dir`: where Redis is (see `resolveRedisTarget`). */
export function withRedisOptions(command: Command): Command {
  return command
    .addOption(new Option('--redis <url>', 'Redis URL (env REDIS_URL)'))
    .addOption(
      new Option(
        '--redis-cluster <nodes>',
        'Redis Cluster seed nodes host:port,… (env REDIS_CLUSTER_NODES)',
      ),
    )
    .addOption(
      new Option(
        '--data-dir <dir>',
        'shardline state directory; its embedded Redis (redis/) is used when no Redis is given',
      ).default(DEFAULT_DATA_DIR),
    );
}

/** Maps the errors a session can raise to one-line `CliError`s. */
export function toCommandError(error: unknown, label: string): unknown {
  if (error instanceof CliError) return error;
  if (error instanceof CrawlDeletingError) return new CliError(CliErrorCode.CRAWL, error.message);
  if (isConnectionError(error)) return unreachable(label, error);
  if (error instanceof HttpError) {
    if (error.code === ApiErrorCode.UNKNOWN_DOMAIN) {
      return new CliError(CliErrorCode.UNKNOWN_DOMAIN, error.message);
    }
    if (error.code === ApiErrorCode.CURSOR) return usageError(`--cursor: ${error.message}`);
    return new CliError(CliErrorCode.UNSUPPORTED, error.message);
  }
  return error;
}

/**
 * Opens a session, runs `body`, and closes it whatever happens; errors come back as
 * one-line `CliError`s (see {@link toCommandError}). Unless told not to (`seed` starts
 * crawls; `crawl list|delete` name theirs otherwise), notes on stderr when the crawl has
 * written nothing yet: its figures are all zero, and a mistyped `--crawl-id` would otherwise
 * look like an empty crawl.
 */
export async function withSession<T>(
  flags: SessionFlags,
  body: (session: Session) => Promise<T>,
  { noteUnknownCrawl = true }: { noteUnknownCrawl?: boolean } = {},
): Promise<T> {
  const env = loadConfig();
  const target = resolveRedisTarget(flags, env);
  // --prefix is checked by its parser; the variable here, before anything connects.
  const prefix = flags.prefix ?? env.keyPrefix ?? DEFAULT_PREFIX;
  if (!isKeyPrefix(prefix)) {
    throw usageError(`KEY_PREFIX must be ${KEY_PREFIX_RULE}, got ${JSON.stringify(prefix)}`);
  }
  const connection = await connectRedis(target);
  try {
    const crawlId = flags.crawlId ?? crawlIdFromEnv(env.crawlId ?? DEFAULT_CRAWL);
    const crawlPrefix = crawlKeyPrefix(prefix, crawlId);
    // The crawl's pods form its ring: their registry lives under the crawl's prefix.
    const ownership = await resolveOwnership(connection.client, {
      prefix: crawlPrefix,
      pods: flags.pods,
    });
    const frontier = new RedisFrontier({
      redis: connection.client,
      ownerOf: ownership.ownerOf,
      prefix,
      crawlId,
      // The command still works (a refused function library falls back to EVALSHA); the
      // operator learns why Redis works harder, as the embedded Redis's notices say theirs.
      onBackgroundError: (error, operation) =>
        process.stderr.write(`note: frontier ${operation}: ${error.message}\n`),
    });
    const reader = new StatsReader(frontier.inspector, ownership.cluster);
    if (noteUnknownCrawl) await noteIfCrawlUnknown(connection.client, prefix, crawlId);
    return await body({
      redis: connection.client,
      frontier,
      ownership,
      reader,
      prefix,
      crawlId,
      crawlPrefix,
      label: connection.label,
    });
  } catch (error) {
    throw toCommandError(error, connection.label);
  } finally {
    await connection.close();
  }
}

/** `CRAWL_ID` from the environment, checked like `--crawl-id`. */
function crawlIdFromEnv(value: string): string {
  if (!isCrawlId(value)) {
    throw usageError(`CRAWL_ID: ${JSON.stringify(value)} is not a crawl id: ${CRAWL_ID_HINT}`);
  }
  return value;
}

async function noteIfCrawlUnknown(redis: Redis | Cluster, prefix: string, crawlId: string) {
  if (crawlId === DEFAULT_CRAWL) return;
  if ((await new CrawlRegistry({ redis, prefix }).get(crawlId)) !== null) return;
  process.stderr.write(
    `note: crawl ${JSON.stringify(crawlId)} does not exist in prefix ${prefix} yet (no pod or seed has written to it; \`shardline crawl list\` shows the crawls)\n`,
  );
}

/** Refuses, in one line, to write to a crawl that `crawl delete` is deleting. */
export async function refuseDeletingCrawl(session: Session): Promise<void> {
  const crawl = await new CrawlRegistry({ redis: session.redis, prefix: session.prefix }).get(
    session.crawlId,
  );
  if (crawl?.state === 'deleting') {
    throw new CliError(
      CliErrorCode.CRAWL,
      `crawl ${JSON.stringify(session.crawlId)} is being deleted: finish with \`shardline crawl delete ${session.crawlId}\` or use another --crawl-id`,
    );
  }
}
