/**
 * `shardline up`: starts the supervisor as a child process in its own process group (so a
 * Ctrl-C reaches the supervisor alone and the pods stop in order, Redis last), waits until
 * every pod is running (has joined the registry), then either follows it in the foreground
 * or leaves it in the background (`--detach`, output to `<data-dir>/cluster.log`).
 */
import { spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { redisLabel } from '@shardline/frontier';
import { CliError, CliErrorCode } from '../errors.js';
import { createDataDir } from '../lib/data-dir.js';
import {
  type ClusterFile,
  clusterFilePath,
  isAlive,
  joinProgress,
  podId,
  readClusterFile,
} from './control-file.js';
import { type ClusterSpec, SHARDLINE_BIN, SUPERVISOR_COMMAND } from './spec.js';

/** Options of {@link launchCluster}. */
export interface LaunchOptions {
  detach: boolean;
  stdout: Writable;
  stderr: Writable;
  /** Give up waiting for the pods after this long. @default 60000 */
  readyTimeoutMs?: number;
}

/** The log file of a detached cluster. */
export function clusterLogPath(dataDir: string): string {
  return join(dataDir, 'cluster.log');
}

/** Starts the supervisor; resolves with the exit status of `shardline up`. */
export async function launchCluster(spec: ClusterSpec, options: LaunchOptions): Promise<number> {
  const running = readClusterFile(spec.dataDir);
  if (running && isAlive(running.supervisorPid)) {
    throw new CliError(
      CliErrorCode.IO,
      `a local cluster is already running in ${spec.dataDir} (supervisor pid ${running.supervisorPid}, ` +
        `${running.pods.length} pods): use \`shardline scale N\` or \`shardline down\``,
    );
  }
  createDataDir(spec.dataDir);
  const logPath = clusterLogPath(spec.dataDir);
  // The supervisor always writes to the log file, never to a pipe: it must outlive this
  // process (`--detach`, or a terminal closed under a foreground `up`) without EPIPE.
  const logFd = openSync(logPath, 'a');
  const follow = options.detach
    ? undefined
    : followFile(logPath, fstatSync(logFd).size, options.stdout);
  const child = spawn(process.execPath, [SHARDLINE_BIN, SUPERVISOR_COMMAND], {
    detached: true,
    stdio: ['pipe', logFd, logFd],
  });
  child.stdin!.end(JSON.stringify(spec));
  const exited = new Promise<number>((done) => {
    child.once('exit', (code, signal) => done(code ?? (signal ? 1 : 0)));
    child.once('error', () => done(1));
  });
  // From here on Ctrl-C (or SIGTERM) asks the supervisor for a graceful down.
  const forward = (signal: NodeJS.Signals) => {
    options.stderr.write(
      `${signal}: stopping the local cluster gracefully (pods hand off their domains)\n`,
    );
    child.kill('SIGTERM');
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  try {
    const ready = await waitReady(spec, child.pid!, exited, options.readyTimeoutMs ?? 60_000);
    if (!ready.ok) {
      if (child.exitCode === null) child.kill('SIGTERM');
      const tail = options.detach ? lastLines(logPath, 5) : '';
      throw new CliError(
        CliErrorCode.IO,
        `${ready.reason}${tail ? `; last lines of ${logPath}:\n${tail}` : ''}`,
      );
    }
    const file = ready.file;
    const pods = file.pods.map((pod) => `${pod.id} (pid ${pod.pid})`).join(', ');
    options.stderr.write(
      `local cluster up: ${file.pods.length} pod(s) ${pods}; supervisor pid ${file.supervisorPid}; ` +
        `redis ${redisLabel({ url: file.redis.url })}${file.redis.embedded ? ' (embedded)' : ''}; ` +
        `control file ${clusterFilePath(spec.dataDir)}; log ${logPath}\n`,
    );
    if (options.detach) {
      child.unref();
      return 0;
    }
    return await exited;
  } finally {
    process.off('SIGINT', forward);
    process.off('SIGTERM', forward);
    await follow?.stop();
    closeSync(logFd);
  }
}

/** `tail -f` of the log from `offset` to `out`, until stopped (then drained once more). */
function followFile(path: string, offset: number, out: Writable): { stop(): Promise<void> } {
  const fd = openSync(path, 'r');
  let position = offset;
  const buffer = Buffer.alloc(64 * 1024);
  const drain = () => {
    for (;;) {
      const bytes = readSync(fd, buffer, 0, buffer.length, position);
      if (bytes <= 0) return;
      position += bytes;
      out.write(Buffer.from(buffer.subarray(0, bytes)));
    }
  };
  const timer = setInterval(drain, 100);
  return {
    stop: async () => {
      clearInterval(timer);
      drain();
      closeSync(fd);
    },
  };
}

type Ready = { ok: true; file: ClusterFile } | { ok: false; reason: string };

async function waitReady(
  spec: ClusterSpec,
  pid: number,
  exited: Promise<number>,
  timeoutMs: number,
): Promise<Ready> {
  let exitCode: number | undefined;
  void exited.then((code) => {
    exitCode = code;
  });
  const ids = Array.from({ length: spec.pods }, (_, index) => podId(index));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exitCode !== undefined) {
      return {
        ok: false,
        reason: `the supervisor exited with status ${exitCode} before the pods were up`,
      };
    }
    const file = readClusterFile(spec.dataDir);
    if (file?.supervisorPid === pid) {
      const { crashLooped, waiting } = joinProgress(file.pods, ids);
      if (crashLooped) return { ok: false, reason: crashLooped };
      if (waiting.length === 0) return { ok: true, file };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    ok: false,
    reason: `the pods had not all joined the registry after ${timeoutMs} ms (is Redis writable?)`,
  };
}

function lastLines(path: string, count: number): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-count).join('\n');
  } catch (error) {
    return `(cannot read ${path}: ${(error as Error).message})`;
  }
}
