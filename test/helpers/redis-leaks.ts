/**
 * Vitest global setup: every throwaway redis-server of the run (redis.ts) keeps its temp dir
 * under one run directory, and `stop()` removes it. A dir still there at the end belongs to
 * a server some test never stopped; its worker's exit hook does not run when vitest ends the
 * worker with a signal, so the server would outlive the run. The teardown kills each such
 * server and fails the run naming it, so a leak is fixed rather than left to pile up.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The variable that carries the run directory to the workers (they inherit the environment). */
export const RUN_DIR_ENV = 'SHARDLINE_TEST_RUN_DIR';

export function setup(): () => void {
  const runDir = mkdtempSync(join(tmpdir(), 'shardline-test-run-'));
  process.env[RUN_DIR_ENV] = runDir;
  return () => {
    const leaks = leftServers(runDir);
    rmSync(runDir, { recursive: true, force: true });
    if (leaks.length > 0) {
      // Vitest reports an error thrown here but keeps the run's exit status: set it too.
      process.exitCode = 1;
      throw new Error(
        `${leaks.length} test redis-server(s) left running (killed now): ${leaks.join('; ')}; stop every startRedis() server in the test's afterAll/afterEach`,
      );
    }
  };
}

/** Kills the live redis-servers whose dirs were never removed; describes each. */
function leftServers(runDir: string): string[] {
  const leaks: string[] = [];
  for (const name of readdirSync(runDir)) {
    const log = join(runDir, name, 'redis.log');
    if (!existsSync(log)) continue;
    // Each start (a restart too) logs its pid and port: the live one is among them.
    const text = readFileSync(log, 'utf8');
    const pids = [...text.matchAll(/\bpid=(\d+)/g)].map((m) => Number(m[1]));
    const port = /\bport=(\d+)/.exec(text)?.[1];
    for (const pid of new Set(pids)) {
      if (port === undefined || !isRedisServer(pid, port)) continue;
      process.kill(pid, 'SIGKILL');
      leaks.push(`pid ${pid} (dir ${name})`);
    }
  }
  return leaks;
}

/**
 * Whether `pid` is a live redis-server on `port` (the title it gives itself,
 * `redis-server 127.0.0.1:<port>`, `[cluster]` after it in cluster mode): not a pid
 * reused since by another process or Redis.
 */
function isRedisServer(pid: number, port: string): boolean {
  try {
    const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    return new RegExp(`^redis-server \\S*:${port}\\b`).test(title);
  } catch {
    return false;
  }
}
