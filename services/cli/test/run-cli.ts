import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { sourceEnv } from '../../../test/helpers/source-runtime.js';

/** The `shardline` bin; spawned with {@link sourceEnv}, it runs `src/main.ts`, not `dist/`. */
export const CLI = join(import.meta.dirname, '..', 'bin', 'shardline.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `shardline` binary as a child process, feeding `stdin`. */
export function runCli(args: readonly string[], stdin = ''): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: sourceEnv(),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** No stack-trace lines (`    at …`) in the output. */
export function hasStackTrace(text: string): boolean {
  return /^\s+at\s/m.test(text);
}
