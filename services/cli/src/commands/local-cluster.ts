/**
 * The local cluster, for users without an orchestrator: `shardline up --pods N` runs N
 * `shardline crawl` pods (ids `local-0…`) under one supervisor, `scale N` changes the count,
 * `status` lists the pods, `down` stops everything gracefully. The supervisor is found
 * through `<data-dir>/cluster.json`.
 */

import { resolve } from 'node:path';
import { redisLabel } from '@shardline/frontier';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { usageError } from '../errors.js';
import { DEFAULT_DATA_DIR } from '../lib/data-dir.js';
import { connectRedis, singleRedisTarget } from '../lib/redis-connect.js';
import { loadSettings } from '../lib/settings-sources.js';
import { ClusterClient, StaleClusterError } from '../local-cluster/control-client.js';
import { type ClusterFile, isAlive, removeClusterFile } from '../local-cluster/control-file.js';
import {
  addCrawlOptions,
  CONFIG_FLAG_HELP,
  checkPodSettings,
  crawlArgs,
  podOptionsFromArgs,
} from '../local-cluster/crawl-flags.js';
import { formatStatus } from '../local-cluster/format.js';
import { launchCluster } from '../local-cluster/launch.js';
import { readAll } from '../local-cluster/read-all.js';
import { runSupervisor } from '../local-cluster/run-supervisor.js';
import { type ClusterSpec, parseSpec, SUPERVISOR_COMMAND } from '../local-cluster/spec.js';
import type { ScaleReport, StoppedPod } from '../local-cluster/supervisor.js';

function count(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim())) {
      throw usageError(`${name} must be a non-negative integer, got ${JSON.stringify(value)}`);
    }
    return Number(value);
  };
}

function stoppedLine(pod: StoppedPod): string {
  if (!pod.wasRunning) return `removed ${pod.id} (was not running)`;
  const how = pod.signal ? `signal ${pod.signal}` : `code ${pod.code}`;
  return pod.killed
    ? `${pod.id} did not stop within the grace period: sent SIGKILL after ${pod.tookMs} ms (${how})`
    : `stopped ${pod.id} in ${pod.tookMs} ms (exit ${how})`;
}

/** Crawl settings that URLFrontier nodes take too (the rest are about fetching). */
const URLFRONTIER_FLAGS = new Set([
  '--prefix',
  '--min-delay-ms',
  '--per-host-concurrency',
  '--max-pages-per-host',
  '--max-pages-per-domain',
  '--lease-timeout-ms',
  '--session-timeout-ms',
  '--log-level',
]);

/**
 * `--urlfrontier-port BASE --no-fetch`: the pods are URLFrontier nodes on BASE, BASE+1, …,
 * given the crawl flags that mean something to them; a fetching flag is a usage error.
 */
function urlFrontierSpec(flags: Record<string, unknown>): ClusterSpec['urlfrontier'] {
  const port = flags.urlfrontierPort as number | undefined;
  if (port === undefined) {
    if (flags.fetch === false)
      throw usageError(
        '--no-fetch needs --urlfrontier-port: pods that fetch nothing serve URLFrontier clients',
      );
    return undefined;
  }
  if (flags.fetch !== false) {
    throw usageError(
      '--urlfrontier-port runs URLFrontier nodes, which hand URLs to a crawler instead of fetching them: add --no-fetch',
    );
  }
  if (flags.config !== undefined)
    throw usageError('--config is a crawl pod file; URLFrontier nodes take flags');
  const args = crawlArgs(flags);
  const passed: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]!;
    if (!flag.startsWith('--')) continue;
    if (!URLFRONTIER_FLAGS.has(flag)) {
      throw usageError(
        `${flag} is a crawl pod setting; URLFrontier nodes (--urlfrontier-port) do not fetch`,
      );
    }
    passed.push(flag);
    if (i + 1 < args.length && !args[i + 1]!.startsWith('--')) passed.push(args[++i]!);
  }
  return { port, args: passed };
}

/** Registers `up`, `scale`, `down`, `status` and the hidden supervisor command. */
export function registerLocalClusterCommands(program: Command, ctx?: CliContext): void {
  const out = () => ctx?.stdout ?? process.stdout;
  const err = () => ctx?.stderr ?? process.stderr;

  const up = program
    .command('up')
    .description('start a local cluster: N crawl pods (local-0…) under one supervisor')
    .requiredOption('--pods <n>', 'number of pods', count('--pods'))
    .option('--redis <url>', 'Redis of the pods (env REDIS_URL); none: embedded redis-server')
    .option(
      '--data-dir <dir>',
      'cluster.json, cluster.log and the embedded Redis',
      DEFAULT_DATA_DIR,
    )
    .option('--config <file>', CONFIG_FLAG_HELP)
    .option('--detach', 'run in the background (log in <data-dir>/cluster.log)')
    .option(
      '--grace-ms <n>',
      'SIGTERM → SIGKILL grace period of a stopping pod',
      count('--grace-ms'),
      35_000,
    )
    .option(
      '--urlfrontier-port <base>',
      'run URLFrontier gRPC nodes (shardline urlfrontier) on base, base+1, … instead of crawl pods; needs --no-fetch',
      count('--urlfrontier-port'),
    )
    .option(
      '--no-fetch',
      'the pods fetch nothing (with --urlfrontier-port: a crawler pulls via GetURLs)',
    );
  addCrawlOptions(up).action(async (flags: Record<string, unknown>) => {
    // Checked here so a bad file fails once, not in every pod; each pod reads the same file.
    const { config, file } = loadSettings({
      config: flags.config as string | undefined,
      dataDir: flags.dataDir as string,
    });
    const configArgs = file ? ['--config', file.path] : [];
    const urlfrontier = urlFrontierSpec(flags);
    // Once here, not by N pods that each refuse to start.
    if (!urlfrontier) checkPodSettings(podOptionsFromArgs(crawlArgs(flags)), config.pod);
    const spec: ClusterSpec = {
      pods: flags.pods as number,
      dataDir: resolve(flags.dataDir as string),
      redisUrl: (flags.redis as string | undefined) ?? config.redisUrl,
      crawlArgs: [...configArgs, ...crawlArgs(flags)],
      graceMs: flags.graceMs as number,
      ...(urlfrontier ? { urlfrontier } : {}),
    };
    if (spec.pods < 1) throw usageError('--pods must be at least 1');
    if (spec.urlfrontier && spec.urlfrontier.port + spec.pods - 1 > 65_535) {
      throw usageError(
        `--urlfrontier-port ${spec.urlfrontier.port} + ${spec.pods} pods passes port 65535`,
      );
    }
    // A Redis given must answer before any pod starts: one line now (in 3 s), not pods that
    // crash-loop on it, or wait a minute for a registry they never reach.
    if (spec.redisUrl !== undefined) {
      const source = flags.redis === undefined ? 'REDIS_URL' : '--redis';
      const connection = await connectRedis(singleRedisTarget(spec.redisUrl, source));
      await connection.close();
    }
    const code = await launchCluster(spec, {
      detach: flags.detach === true,
      stdout: out(),
      stderr: err(),
    });
    if (ctx) ctx.exitCode = code;
  });

  program
    .command('scale')
    .description('change the pod count of the running local cluster')
    .argument('<n>', 'pods wanted', count('<n>'))
    .option('--data-dir <dir>', 'data directory of the cluster', DEFAULT_DATA_DIR)
    .option('--no-wait', 'return once new pods are spawned, not once they have joined the registry')
    .option(
      '--join-timeout-ms <n>',
      'how long to wait for new pods to join the registry',
      count('--join-timeout-ms'),
      60_000,
    )
    .action(
      async (pods: number, flags: { dataDir: string; wait: boolean; joinTimeoutMs: number }) => {
        const client = ClusterClient.connect(flags.dataDir);
        const report = await client.scale<ScaleReport>(pods);
        for (const id of report.started) out().write(`started ${id}\n`);
        for (const pod of report.stopped) out().write(`${stoppedLine(pod)}\n`);
        // Like `up --detach`: a `seed` right after finds the new pods as owners.
        if (flags.wait) await client.waitJoined(report.started, flags.joinTimeoutMs);
        out().write(`local cluster: ${pods} pod(s)\n`);
      },
    );

  program
    .command('down')
    .description('stop the local cluster gracefully (pods, then the embedded Redis)')
    .option('--data-dir <dir>', 'data directory of the cluster', DEFAULT_DATA_DIR)
    .action(async (flags: { dataDir: string }) => {
      let client: ClusterClient;
      try {
        client = ClusterClient.connect(flags.dataDir);
      } catch (error) {
        if (!(error instanceof StaleClusterError)) throw error;
        await cleanStale(error.file, flags.dataDir, out());
        return;
      }
      const report = await client.down<{ stopped: StoppedPod[]; redisStopped: boolean }>();
      for (const pod of report.stopped) out().write(`${stoppedLine(pod)}\n`);
      if (report.redisStopped) out().write('stopped the embedded redis\n');
      out().write('local cluster down\n');
    });

  program
    .command('status')
    .description('pods of the running local cluster: pids, state, uptime, restarts')
    .option('--data-dir <dir>', 'data directory of the cluster', DEFAULT_DATA_DIR)
    .option('--json', 'print the status as JSON')
    .action(async (flags: { dataDir: string; json?: boolean }) => {
      const file = await ClusterClient.connect(flags.dataDir).status();
      const { token: _token, ...shown } = file;
      shown.redis = { ...shown.redis, url: redisLabel({ url: shown.redis.url }) };
      out().write(flags.json ? `${JSON.stringify(shown)}\n` : formatStatus(file, Date.now()));
    });

  program
    .command(SUPERVISOR_COMMAND, { hidden: true })
    .description('(internal) the local cluster supervisor; reads its spec as JSON on stdin')
    .action(async () => {
      const spec = parseSpec(await readAll(ctx?.stdin ?? process.stdin));
      const code = await runSupervisor(spec, { stdout: out(), stderr: err(), env: process.env });
      if (ctx) ctx.exitCode = code;
    });
}

/** `down` after the supervisor died: stop the pods it left, drop the control file. */
async function cleanStale(
  file: ClusterFile,
  dataDir: string,
  out: NodeJS.WritableStream,
): Promise<void> {
  const left = file.pods.filter((pod) => pod.pid !== undefined && isAlive(pod.pid));
  for (const pod of left) process.kill(pod.pid!, 'SIGTERM');
  const deadline = Date.now() + file.graceMs;
  while (left.some((pod) => isAlive(pod.pid!)) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const pod of left) {
    if (isAlive(pod.pid!)) {
      process.kill(pod.pid!, 'SIGKILL');
      out.write(
        `${pod.id} (pid ${pod.pid}) ignored SIGTERM for ${file.graceMs} ms: sent SIGKILL\n`,
      );
    } else {
      out.write(`stopped leftover ${pod.id} (pid ${pod.pid})\n`);
    }
  }
  removeClusterFile(dataDir);
  out.write(
    `the supervisor (pid ${file.supervisorPid}) was gone; removed its stale control file` +
      (file.redis.embedded ? ` (its embedded redis ${file.redis.url} may still be running)` : '') +
      '\n',
  );
}
