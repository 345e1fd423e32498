import { type ChildProcess, spawn } from 'node:child_process';
import { sourceEnv } from '../../../test/helpers/source-runtime.js';
import { CLI } from './run-cli.js';

/** A running `shardline` process whose output the test reads as it comes. */
export interface LiveCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit status (or the signal's name) once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; afterMs: number }>;
  /** Kills it with SIGKILL if it still runs (for afterEach). */
  kill(): void;
}

/**
 * Starts the real `shardline` binary (sources, see source-runtime.ts) with a controlled
 * environment: the runner's Redis variables never leak in.
 */
export function spawnCli(
  args: readonly string[],
  options: {
    env?: Record<string, string>;
    cwd?: string;
    /** Its own process group, as a terminal's foreground job: `process.kill(-pid)` signals it all. */
    detached?: boolean;
  } = {},
): LiveCli {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'KEY_PREFIX', 'SHARDLINE_DEBUG']) {
    delete env[name];
  }
  Object.assign(env, options.env);
  const startedAt = Date.now();
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: sourceEnv(env),
    cwd: options.cwd,
    detached: options.detached ?? false,
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    afterMs: number;
  }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, afterMs: Date.now() - startedAt })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Whether process `pid` is still running (a signal 0 reaches it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
