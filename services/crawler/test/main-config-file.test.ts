/**
 * The pod's own entry point (`services/crawler/src/main.ts`, what Docker and Kubernetes run)
 * reads the config file named by SHARDLINE_CONFIG under its environment, like the CLI does.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SOURCE_NODE_FLAGS } from '../../../test/helpers/source-runtime.js';

const MAIN = new URL('../src/main.ts', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'shardline-main-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runMain(env: NodeJS.ProcessEnv) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(REDIS_|SHARDLINE_|MIN_DELAY)/.test(name)),
  );
  return spawnSync(process.execPath, [...SOURCE_NODE_FLAGS, MAIN], {
    env: { ...clean, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/** A loopback port with nothing listening on it (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('pod main: SHARDLINE_CONFIG', () => {
  it('takes the Redis address from the file (the pod tries it, rather than finding none)', async () => {
    const port = await closedPort();
    const file = join(dir, 'redis.yaml');
    writeFileSync(file, `redisUrl: redis://127.0.0.1:${port}\nredisConnectTimeoutMs: 500\n`);
    const run = runMain({ SHARDLINE_CONFIG: file });
    expect(run.stderr + run.stdout).toContain(`127.0.0.1:${port}`);
    expect(run.stderr + run.stdout).not.toContain('neither REDIS_URL nor REDIS_CLUSTER_NODES');
    expect(run.status).not.toBe(0);
  });

  it('names the file and the key of a bad value in one line, exit 2', () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'redisUrl: redis://127.0.0.1:1\nminDelayMs: soon\n');
    const run = runMain({ SHARDLINE_CONFIG: file });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`config file ${file}: key minDelayMs`);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('names a missing file and the variable that named it', () => {
    const run = runMain({ SHARDLINE_CONFIG: join(dir, 'absent.yaml') });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('SHARDLINE_CONFIG=');
    expect(run.stderr).toContain('not found');
  });
});
