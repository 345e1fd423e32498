import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { hasStackTrace } from './run-cli.js';
import { runCliWith } from './run-cli-with.js';

const COMMANDS = [
  ['seed'],
  ['stats'],
  ['domains'],
  ['domain'],
  ['pods'],
  ['ring', 'show'],
  ['dead-letters'],
  ['pause'],
  ['resume'],
  ['items'],
  ['results'],
];

let server: RedisServer;
let dir: string;

beforeAll(async () => {
  server = await startRedis();
  dir = mkdtempSync(join(tmpdir(), 'shardline-conn-'));
});

afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('Redis-backed commands: help and connection', () => {
  it('--help on every command lists its usage and the connection options', async () => {
    const results = await Promise.all(COMMANDS.map((args) => runCliWith([...args, '--help'])));
    results.forEach((result, i) => {
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Usage: shardline ${COMMANDS[i]!.join(' ')}`);
      expect(result.stdout).toContain('--redis <url>');
      expect(result.stdout).toContain('--redis-cluster <nodes>');
    });
    const top = await runCliWith(['--help']);
    for (const name of [
      'seed',
      'stats',
      'domains',
      'domain',
      'pods',
      'dead-letters',
      'pause',
      'resume',
      'items',
      'results',
    ]) {
      expect(top.stdout).toMatch(new RegExp(`^\\s+${name}\\b`, 'm'));
    }
  });

  it('an unreachable Redis is one line naming it and the reason, exit 1, no stack', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const runs = await Promise.all([
      runCliWith(['stats', '--redis', url]),
      runCliWith(['domain', 'example.com', '--json'], { env: { REDIS_URL: url } }),
      runCliWith(['seed', '--pods', 'a', '--redis', url], { stdin: 'https://example.com/\n' }),
      runCliWith(['pods', '--redis-cluster', `127.0.0.1:${port}`]),
    ]);
    for (const result of runs.slice(0, 3)) {
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(`error: cannot reach Redis at ${url}: ECONNREFUSED\n`);
    }
    expect(runs[3]!.code).toBe(1);
    expect(runs[3]!.stderr).toBe(
      `error: cannot reach Redis at cluster 127.0.0.1:${port}: ECONNREFUSED\n`,
    );
    for (const result of runs) expect(hasStackTrace(result.stderr)).toBe(false);
  });

  it('a URL whose server is not Redis is one line quoting what answered, exit 1', async () => {
    const http = createServer((_, res) => res.end('hello'));
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
    const url = `redis://127.0.0.1:${(http.address() as AddressInfo).port}`;
    try {
      const result = await runCliWith(['stats', '--redis', url]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `error: cannot reach Redis at ${url}: not a Redis server: it answered "HTTP/1.1 400 Bad Request"; check the host and port\n`,
      );
    } finally {
      http.closeAllConnections();
      await new Promise((done) => http.close(done));
    }
  });

  it('rediss:// at a Redis without TLS says to use redis://, exit 1', async () => {
    const url = `rediss://127.0.0.1:${server.port}`;
    const result = await runCliWith(['stats', '--redis', url]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: cannot reach Redis at ${url}: the TLS handshake got no answer, but a Redis without TLS answers PING on that port: use redis:// instead of rediss://\n`,
    );
  });

  it('without --redis or REDIS_URL: the embedded Redis of `shardline crawl` if its port file is there', async () => {
    const cwd = join(dir, 'with-embedded');
    const redisDir = join(cwd, '.shardline', 'redis');
    mkdirSync(redisDir, { recursive: true });
    // A running crawl's server: it serves this data dir and its owner (this runner) lives.
    const embedded = await startRedis({ dir: redisDir });
    try {
      writeFileSync(
        join(redisDir, 'redis.port'),
        `${JSON.stringify({ port: embedded.port, pid: embedded.pid, owner: process.pid })}\n`,
      );
      const result = await runCliWith(['stats', '--json'], { cwd });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ queued: 0, domains: 0 });
    } finally {
      await embedded.stop();
    }
  });

  it('with no Redis configured and none embedded: one line saying how to give one', async () => {
    const cwd = join(dir, 'empty');
    mkdirSync(cwd, { recursive: true });
    const result = await runCliWith(['stats'], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')).toHaveLength(2);
    expect(result.stderr).toMatch(/^error: no Redis configured: pass --redis .*REDIS_URL/);
  });

  it('a malformed --redis is a usage error (exit 2)', async () => {
    const result = await runCliWith(['stats', '--redis', 'localhost:6379']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: --redis: expected a redis:// or rediss:// URL, got "localhost:6379"\n',
    );
  });

  it('a key prefix the frontier would refuse is a usage error on every command, flag or variable', async () => {
    const results = await Promise.all(
      COMMANDS.map((args) => runCliWith([...args, '--redis', server.url, '--prefix', 'a b'])),
    );
    results.forEach((result, i) => {
      expect({ command: COMMANDS[i], code: result.code, stderr: result.stderr }).toEqual({
        command: COMMANDS[i],
        code: 2,
        stderr:
          "error: option '--prefix <prefix>' argument 'a b' is invalid. not a key prefix: use 1-131 characters of [A-Za-z0-9._:-].\n",
      });
    });
    const fromEnv = await runCliWith(['stats', '--redis', server.url], {
      env: { KEY_PREFIX: '%%' },
    });
    expect({ code: fromEnv.code, stderr: fromEnv.stderr }).toEqual({
      code: 2,
      stderr: 'error: KEY_PREFIX must be 1-131 characters of [A-Za-z0-9._:-], got "%%"\n',
    });
  });
});
