/**
 * The supervisor process (`shardline local-cluster-supervisor`, started by `shardline up`):
 * starts the embedded Redis when no Redis is configured, the pods, the control channel,
 * and keeps `cluster.json` current until `down` or SIGTERM / SIGINT stops everything.
 */

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { type EmbeddedRedis, startEmbeddedRedis } from '../embedded-redis.js';
import { CliError, CliErrorCode } from '../errors.js';
import { createDataDir, warcDirOf } from '../lib/data-dir.js';
import {
  type ClusterFile,
  isAlive,
  readClusterFile,
  removeClusterFile,
  writeClusterFile,
} from './control-file.js';
import { startControlServer } from './control-server.js';
import type { ClusterSpec } from './spec.js';
import { SHARDLINE_BIN } from './spec.js';
import { type StoppedPod, Supervisor } from './supervisor.js';

/** What `down` answers. */
export interface DownReport {
  stopped: StoppedPod[];
  /** True when the supervisor stopped the embedded Redis it had started. */
  redisStopped: boolean;
}

/** Runs the supervisor until the cluster is down; resolves with the process exit status. */
export async function runSupervisor(
  spec: ClusterSpec,
  io: { stdout: Writable; stderr: Writable; env: NodeJS.ProcessEnv },
): Promise<number> {
  createDataDir(spec.dataDir);
  const existing = readClusterFile(spec.dataDir);
  if (existing && existing.supervisorPid !== process.pid && isAlive(existing.supervisorPid)) {
    throw new CliError(
      CliErrorCode.IO,
      `a local cluster is already running in ${spec.dataDir} (supervisor pid ${existing.supervisorPid})`,
    );
  }
  let embedded: EmbeddedRedis | undefined;
  if (!spec.redisUrl) embedded = await startEmbeddedRedis({ dataDir: join(spec.dataDir, 'redis') });
  const redisUrl = spec.redisUrl ?? embedded!.url;
  const log = (message: string) => io.stderr.write(`supervisor | ${message}\n`);
  if (embedded)
    log(`embedded redis ${redisUrl}${embedded.started ? '' : ' (already running, reused)'}`);

  const token = randomBytes(24).toString('hex');
  const startedAtMs = Date.now();
  let closed = false;
  let port = 0;
  const supervisor = new Supervisor({
    command: spec.urlfrontier
      ? [process.execPath, SHARDLINE_BIN, 'urlfrontier', ...spec.urlfrontier.args]
      : [process.execPath, SHARDLINE_BIN, 'crawl', ...spec.crawlArgs],
    ...(spec.urlfrontier
      ? { podArgs: (index: number) => ['--port', String(spec.urlfrontier!.port + index)] }
      : {}),
    // The pods get the Redis through the environment, never argv (it may hold a password).
    // WARC files in <data-dir>/warc, as `shardline crawl` keeps them (a flag or WARC_DIR wins).
    env: {
      ...io.env,
      REDIS_URL: redisUrl,
      WARC_DIR: io.env.WARC_DIR ?? warcDirOf(spec.dataDir),
    },
    stdout: io.stdout,
    stderr: io.stderr,
    graceMs: spec.graceMs,
    onChange: () => {
      if (!closed && port !== 0) writeClusterFile(spec.dataDir, snapshot());
    },
  });
  const snapshot = (): ClusterFile => ({
    version: 1,
    supervisorPid: process.pid,
    port,
    token,
    dataDir: spec.dataDir,
    startedAtMs,
    redis: { url: redisUrl, embedded: embedded?.started ?? false },
    graceMs: supervisor.graceMs,
    pods: supervisor.status(),
  });

  let resolveFinished!: () => void;
  const finished = new Promise<void>((done) => {
    resolveFinished = done;
  });
  let downing: Promise<DownReport> | undefined;
  const down = (): Promise<DownReport> => {
    downing ??= (async () => {
      log('stopping every pod');
      const stopped = await supervisor.down();
      closed = true;
      // The pods are gone: the control file must not name them any more.
      removeClusterFile(spec.dataDir);
      const redisStopped = embedded?.started ?? false;
      if (embedded) await embedded.stop();
      if (redisStopped) log('embedded redis stopped');
      log('local cluster down');
      // Answer the `down` request before the server closes.
      setImmediate(resolveFinished);
      return { stopped, redisStopped };
    })();
    return downing;
  };
  const server = await startControlServer(token, {
    status: snapshot,
    scale: (pods) => supervisor.scale(pods),
    down,
  });
  port = server.port;
  writeClusterFile(spec.dataDir, snapshot());
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: shutting down`);
    void down();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  log(
    `control on 127.0.0.1:${port}; starting ${spec.pods} ${spec.urlfrontier ? `URLFrontier node(s) on port ${spec.urlfrontier.port}…` : 'pod(s)'}`,
  );
  // Rejects only when a `down` came first; the cluster is then on its way down anyway.
  await supervisor.scale(spec.pods).catch((error: unknown) => {
    log(`initial start of ${spec.pods} pod(s) cut short: ${(error as Error).message}`);
  });
  await finished;
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  await server.close();
  return 0;
}
