import { spawn } from 'node:child_process';
import { sourceEnv } from '../../../test/helpers/source-runtime.js';
import { CLI, type CliResult } from './run-cli.js';

/** Options of {@link runCliWith}. */
export interface RunWith {
  stdin?: string;
  /** Environment of the child (REDIS_URL and friends are removed unless given here). */
  env?: Record<string, string>;
  cwd?: string;
  /**
   * Kills the child (SIGKILL) after this many ms; the result then has code `null` and the
   * output so far. For a test of a process that should exit by itself: never left running.
   */
  killAfterMs?: number;
}

/**
 * Runs the real `shardline` binary with a controlled environment: the Redis variables of
 * the test runner never leak into the child, so each test says which Redis it means.
 */
export function runCliWith(args: readonly string[], options: RunWith = {}): Promise<CliResult> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of [
    'REDIS_URL',
    'REDIS_CLUSTER_NODES',
    'KEY_PREFIX',
    'CRAWL_ID',
    'SHARDLINE_DEBUG',
  ]) {
    delete env[name];
  }
  Object.assign(env, options.env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: sourceEnv(env),
      cwd: options.cwd,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const killer =
      options.killAfterMs === undefined
        ? undefined
        : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin ?? '');
  });
}
