/**
 * Seeding streams (issue 15): both `seed` and `crawl` read their input in bounded batches
 * through one implementation; an over-long line or a line that is not UTF-8 is one rejected
 * line (number, length / code), the others are queued; a file of 50,000 hosts works.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { sourceEnv } from '../../../test/helpers/source-runtime.js';
import { CLI, hasStackTrace } from './run-cli.js';
import { runCliWith } from './run-cli-with.js';

let server: RedisServer;
let redis: Redis;
let dir: string;
let prefixes = 0;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  dir = mkdtempSync(join(tmpdir(), 'shardline-seed-stream-'));
});

afterAll(async () => {
  redis.disconnect();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

function fresh() {
  const prefix = `s${++prefixes}`;
  const frontier = new RedisFrontier({ redis, prefix, ownerOf: () => 'pod-a', defaultDelayMs: 0 });
  return { prefix, frontier };
}

describe('seed input streams', () => {
  it('an over-long line is one rejected line (number and length); the lines after it are queued', async () => {
    const { prefix, frontier } = fresh();
    const file = join(dir, 'long.txt');
    const long = `https://long.test/${'a'.repeat(5_000_000)}`;
    writeFileSync(file, `https://ok.test/1\n${long}\nhttps://ok.test/2\n`);
    const result = await runCliWith([
      'seed',
      '--redis',
      server.url,
      '--prefix',
      prefix,
      '--pods',
      'pod-a',
      '--seeds-file',
      file,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^line 2: SHARDLINE_ERR_CLI_LINE_TOO_LONG: line is 5,000,018 bytes, over the 65,536-byte limit/m,
    );
    expect(hasStackTrace(result.stderr)).toBe(false);
    expect(result.stdout).toContain('queued 2, duplicate 0, over-cap 0, rejected 1');
    expect((await frontier.inspector.domainStats('ok.test')).queued).toBe(2);
    expect((await frontier.inspector.domainStats('long.test')).queued).toBe(0);
  });

  it('a line that is not UTF-8 is rejected with SHARDLINE_ERR_URL_ENCODING, never queued as another URL', async () => {
    const { prefix, frontier } = fresh();
    const file = join(dir, 'latin1.txt');
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from('https://enc.test/good\nhttps://enc.test/caf'),
        Buffer.from([0xe9]),
        Buffer.from('\nhttps://enc.test/also-good\n'),
      ]),
    );
    const result = await runCliWith([
      'seed',
      '--redis',
      server.url,
      '--prefix',
      prefix,
      '--pods',
      'pod-a',
      '--file',
      file,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^line 2: SHARDLINE_ERR_URL_ENCODING: not valid UTF-8/m);
    expect((await frontier.inspector.domainStats('enc.test')).queued).toBe(2);
    const queued: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { leases } = await frontier.claim({ pod: 'pod-a', max: 10 });
      for (const lease of leases) {
        queued.push(lease.url);
        await frontier.complete(lease);
      }
    }
    expect(queued.sort()).toEqual(['https://enc.test/also-good', 'https://enc.test/good']);
  });

  it('crawl --seeds-file with 50,000 distinct hosts queues them all', async () => {
    const { prefix, frontier } = fresh();
    const file = join(dir, 'hosts.txt');
    const lines = Array.from({ length: 50_000 }, (_, i) => `http://h${i}.wide.test/`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const env: Record<string, string | undefined> = { ...process.env, REDIS_URL: server.url };
    delete env.REDIS_CLUSTER_NODES;
    const child = spawn(
      process.execPath,
      [CLI, 'crawl', '--prefix', prefix, '--seeds-file', file, '--log-level', 'info'],
      { stdio: ['ignore', 'pipe', 'pipe'], env: sourceEnv(env) },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      await vi.waitFor(() => expect(stderr).toContain('"msg":"seeded"'), {
        timeout: 90_000,
        interval: 200,
      });
    } finally {
      child.kill('SIGTERM');
    }
    await exited;
    expect(stderr).not.toContain('Maximum call stack');
    const seeded = stderr.split('\n').find((l) => l.includes('"msg":"seeded"'))!;
    expect(JSON.parse(seeded)).toMatchObject({ lines: 50_000, queued: 50_000, rejected: 0 });
    expect((await frontier.inspector.stats()).enqueued).toBe(50_000);
  }, 120_000);
});
