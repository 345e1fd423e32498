import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { sourceEnv } from '../../../test/helpers/source-runtime.js';
import { startEmbeddedRedis } from '../src/embedded-redis.js';
import { CLI } from './run-cli.js';
import { runCliWith } from './run-cli-with.js';

const children: ChildProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Starts `shardline api` and resolves with its URL once it says it listens. */
function startApiCommand(
  args: string[],
): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'KEY_PREFIX', 'API_TOKEN']) {
    delete env[name];
  }
  const child = spawn(process.execPath, [CLI, 'api', '--port', '0', ...args], {
    env: sourceEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve({ url: match[1]!, child, output: () => out + err });
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    child.once('exit', (code) => reject(new Error(`api exited ${code}: ${err}`)));
  });
}

/** A throwaway Redis stopped after the file (each its own: a shared variable would stop the last twice). */
async function redisForTest(): Promise<RedisServer> {
  const server = await startRedis();
  cleanups.push(() => server.stop());
  return server;
}

describe('shardline api', () => {
  it('serves the stats of the Redis given by --redis and stops on SIGTERM', async () => {
    const redis = await redisForTest();
    const seeded = await runCliWith(
      ['seed', 'https://www.example.com/a', '--redis', redis.url, '--pods', 'pod-a'],
      {},
    );
    expect(seeded.code).toBe(0);
    const { url, child } = await startApiCommand(['--redis', redis.url, '--pods', 'pod-a']);
    expect(url.startsWith('http://127.0.0.1:')).toBe(true);
    const stats = (await (await fetch(`${url}/v1/stats`)).json()) as { queued: number };
    expect(stats.queued).toBe(1);
    const exited = new Promise<number | null>((done) => child.once('exit', done));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('says once, with the cause, that its Redis is not a Redis server; requests answer 503', async () => {
    const http = createServer((_, res) => res.end('hello'));
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
    cleanups.push(() => {
      http.closeAllConnections();
      http.close();
    });
    const port = (http.address() as AddressInfo).port;
    const { url, output } = await startApiCommand([
      '--redis',
      `redis://127.0.0.1:${port}`,
      '--pods',
      'pod-a',
    ]);
    for (let i = 0; i < 3; i++) expect((await fetch(`${url}/v1/stats`)).status).toBe(503);
    await vi.waitFor(() => expect(output()).toContain('redis unreachable at'), { timeout: 10_000 });
    const told = output()
      .split('\n')
      .filter(
        (line) => line.includes('redis unreachable at') || line.includes('redis unavailable'),
      );
    expect(told).toHaveLength(1);
    expect(told[0]).toContain(
      `redis unreachable at redis://127.0.0.1:${port} (not a Redis server: it answered \\"HTTP/1.1 400 Bad Request\\"`,
    );
  });

  it('says once that a rediss:// URL names a Redis without TLS, long before a connect timeout', async () => {
    const redis = await redisForTest();
    const target = `rediss://127.0.0.1:${redis.port}`;
    const { url, output } = await startApiCommand(['--redis', target, '--pods', 'pod-a']);
    // ioredis gives up on the handshake only after 10 s, and then says only ETIMEDOUT.
    await vi.waitFor(() => expect(output()).toContain('redis unreachable at'), { timeout: 8_000 });
    const told = output()
      .split('\n')
      .filter((line) => line.includes('redis unreachable at'));
    expect(told).toHaveLength(1);
    expect(told[0]).toContain(
      `redis unreachable at ${target} (the TLS handshake got no answer, but a Redis without TLS answers PING on that port: use redis:// instead of rediss://)`,
    );
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
  });

  it('finds the embedded Redis of shardline crawl/up through --data-dir', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shardline-api-cmd-'));
    const embedded = await startEmbeddedRedis({ dataDir: join(dir, 'redis') });
    cleanups.push(async () => {
      await embedded.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    const { url } = await startApiCommand(['--data-dir', dir]);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
  });

  it('a port in use, or out of range, is one line: exit 1 and 2, never an internal error', async () => {
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    cleanups.push(() => new Promise<void>((done) => taken.close(() => done())));
    const port = (taken.address() as AddressInfo).port;
    const busy = await runCliWith([
      'api',
      '--redis',
      'redis://127.0.0.1:1',
      '--port',
      String(port),
    ]);
    expect({ code: busy.code, stderr: busy.stderr }).toEqual({
      code: 1,
      stderr: `error: cannot listen on 127.0.0.1:${port}: the port is in use by another process; choose another --port (API_PORT) or --host (API_HOST)\n`,
    });
    const range = await runCliWith(['api', '--port', '70000']);
    expect(range.code).toBe(2);
    expect(range.stderr).toBe(
      "error: option '--port <n>' argument '70000' is invalid. expected an integer from 0 to 65535.\n",
    );
  });

  it('without any Redis says so in one line and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shardline-api-none-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const result = await runCliWith(['api', '--port', '0', '--data-dir', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('no Redis configured');
  });
});
