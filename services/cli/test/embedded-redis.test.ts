import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { findEmbeddedRedis, startEmbeddedRedis } from '../src/embedded-redis.js';
import { CliError } from '../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'sl-embedded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('startEmbeddedRedis', () => {
  it('starts redis-server with AOF in the data dir, is reused by a second start, and keeps data', async () => {
    const dataDir = join(dir, 'redis');
    expect(findEmbeddedRedis(dataDir)).toBeUndefined();
    const first = await startEmbeddedRedis({ dataDir });
    expect(first.started).toBe(true);
    expect(JSON.parse(readFileSync(join(dataDir, 'redis.port'), 'utf8'))).toMatchObject({
      port: first.port,
      owner: process.pid,
    });
    expect(findEmbeddedRedis(dataDir)).toMatchObject({ url: first.url, port: first.port });
    const second = await startEmbeddedRedis({ dataDir });
    expect(second).toMatchObject({ started: false, port: first.port });
    const client = new Redis(first.url);
    expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
    // A host hash with a folded queue, and an archive hash of up to 512 finished domains,
    // stay listpack (docs/operations.md).
    expect(await client.config('GET', 'hash-max-listpack-value')).toEqual([
      'hash-max-listpack-value',
      '1024',
    ]);
    expect(await client.config('GET', 'hash-max-listpack-entries')).toEqual([
      'hash-max-listpack-entries',
      '512',
    ]);
    // Seen buckets of ~800 fingerprints stay intsets.
    expect(await client.config('GET', 'set-max-intset-entries')).toEqual([
      'set-max-intset-entries',
      '2048',
    ]);
    await client.set('k', 'v');
    await client.quit();
    await second.stop(); // not its server: a no-op
    await first.stop();
    expect(existsSync(join(dataDir, 'redis.port'))).toBe(false);
    expect(findEmbeddedRedis(dataDir)).toBeUndefined();
    const third = await startEmbeddedRedis({ dataDir });
    const again = new Redis(third.url);
    expect(await again.get('k')).toBe('v');
    await again.quit();
    await third.stop();
  });

  it('fails with one clear line when redis-server is missing', async () => {
    const failed = startEmbeddedRedis({
      dataDir: join(dir, 'missing'),
      executable: 'no-such-redis-server',
    });
    await expect(failed).rejects.toBeInstanceOf(CliError);
    await expect(failed).rejects.toMatchObject({
      exitCode: 1,
      code: 'SHARDLINE_ERR_CLI_REDIS',
      message: expect.stringMatching(/not found on PATH/),
    });
  });
});
