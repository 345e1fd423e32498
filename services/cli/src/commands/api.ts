/**
 * `shardline api`: serves the stats API and dashboard (settings from the environment, as
 * `services/api/src/config.ts` documents; `--host`/`--port` override API_HOST/API_PORT).
 * Redis is found like every other command: `--redis`/`--redis-cluster`, REDIS_URL /
 * REDIS_CLUSTER_NODES, else the embedded Redis in `--data-dir` (of `shardline crawl`/`up`).
 */
import { ApiConfigError, ApiErrorCode, StaticClusterView } from '@shardline/api/reader';
import { RedisRobotsCache } from '@shardline/crawler/settings';
import { type Command, Option } from 'commander';
import { loadConfig } from '../config.js';
import { findEmbeddedRedis } from '../embedded-redis.js';
import { CliError, CliErrorCode, usageError } from '../errors.js';
import { integerIn } from '../lib/parse.js';
import {
  embeddedRedisDir,
  type RedisFlags,
  resolveRedisTarget,
  useEmbeddedRedis,
} from '../lib/redis-connect.js';
import { withRedisOptions } from '../lib/session.js';

interface ApiFlags extends RedisFlags {
  host?: string;
  port?: number;
  pods?: string;
}

/** Registers `shardline api` on the program. */
export function registerApiCommand(program: Command): void {
  withRedisOptions(
    program
      .command('api')
      .description('serve the stats API (/v1/*, /metrics, /openapi.json) and the dashboard at /')
      .addHelpText(
        'after',
        [
          '',
          'Environment:',
          '  API_TOKEN   bearer token of the mutating routes (seeding, requeue, pause); at least',
          '              16 characters; unset = those routes answer 403',
          '  API_HOST, API_PORT, API_MAX_BODY_BYTES, API_MAX_SEED_ITEMS, KEY_PREFIX, LOG_LEVEL',
          '              (see services/api/README.md)',
        ].join('\n'),
      ),
  )
    .addOption(new Option('--host <address>', 'address to bind (default: API_HOST or 127.0.0.1)'))
    .addOption(
      new Option('--port <n>', 'port (default: API_PORT or 8080)').argParser(integerIn(0, 65_535)),
    )
    .addOption(
      new Option('--pods <ids>', 'fixed membership, comma-separated (default: the pod registry)'),
    )
    .action(async (flags: ApiFlags) => {
      // The server and dashboard load only when the API runs, not for every command.
      const { loadApiConfig, startApi } = await import('@shardline/api');
      let config: ReturnType<typeof loadApiConfig>;
      try {
        config = loadApiConfig();
      } catch (error) {
        // A bad variable (a too-short API_TOKEN…) is a configuration error, not a bug.
        if (error instanceof ApiConfigError) throw usageError(error.message);
        throw error;
      }
      const target = resolveRedisTarget(flags, loadConfig());
      // A stopped crawl's Redis is started from its data and stopped when the API stops.
      const embedded =
        target.kind === 'embedded' ? await useEmbeddedRedis(target.dataDir) : undefined;
      if (target.kind === 'cluster') {
        config.redisClusterNodes = target.nodes;
      } else {
        config.redisUrl = embedded?.url ?? (target.kind === 'single' ? target.url : '');
        delete config.redisClusterNodes;
      }
      if (flags.host !== undefined) config.host = flags.host;
      if (flags.port !== undefined) config.port = flags.port;
      const view = flags.pods
        ? new StaticClusterView(
            flags.pods
              .split(',')
              .map((id) => id.trim())
              .filter(Boolean),
          )
        : undefined;
      // The embedded Redis gets a new port when restarted (`down` then `up`): follow its port file.
      const dir = target.source.startsWith('embedded') ? embeddedRedisDir(flags) : undefined;
      const locate = dir === undefined ? undefined : () => findEmbeddedRedis(dir)?.url;
      const api = await startApi(config, view, {
        ...(locate ? { locate } : {}),
        // The domain page shows each host's robots.txt record from the pods' shared cache.
        robots: (redis) => {
          const cache = new RedisRobotsCache({ redis, prefix: config.keyPrefix });
          return (origin) => cache.get(origin);
        },
      }).catch(async (error: unknown) => {
        await embedded?.stop();
        // A port in use, an address not on this machine: one line, not an internal error.
        if ((error as { code?: string }).code !== ApiErrorCode.LISTEN) throw error;
        throw new CliError(CliErrorCode.IO, (error as Error).message);
      });
      process.stdout.write(`shardline api listening on ${api.url}\n`);
      // Serve until asked to stop; the action's promise resolves once closed.
      await new Promise<void>((resolve) => {
        const stop = () => void api.close().then(resolve);
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
        process.once('SIGHUP', stop);
      });
      await embedded?.stop();
    });
}
