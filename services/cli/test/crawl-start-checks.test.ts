/**
 * Settings `shardline crawl` cannot use fail in one line before anything starts. A page handler
 * that cannot load: no embedded Redis, no membership join (which would move domains to a pod
 * about to leave), no seed queued. Directories it cannot create or write: at once, where Node's
 * recursive mkdir spun for ever. A value out of a setting's bounds: named by its flag or
 * variable, before the embedded Redis starts (for `up`, before any pod does). The real binary
 * against a real redis-server.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { runCliWith } from './run-cli-with.js';

let server: RedisServer;
let redis: Redis;
let dir: string;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  dir = mkdtempSync(join(tmpdir(), 'shardline-handler-'));
  writeFileSync(
    join(dir, 'typo.mjs'),
    'const a = 1;\nexport default async function (page ctx) {}\n',
  );
  writeFileSync(
    join(dir, 'throws.mjs'),
    'export default () => {};\nconst config = JSON.parse("{");\n',
  );
  writeFileSync(join(dir, 'typo.ts'), 'export default (page: string ctx) => {};\n');
});

afterAll(async () => {
  redis.disconnect();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('shardline crawl --handler that cannot load', () => {
  it('is one line naming the file and the line, before the pod joins or seeds', async () => {
    const handler = join(dir, 'typo.mjs');
    const result = await runCliWith([
      'crawl',
      '--redis',
      server.url,
      '--prefix',
      'h1',
      '--handler',
      handler,
      'https://example.com/',
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: `error: handler ${handler}: cannot load it (SyntaxError at typo.mjs:2: Unexpected identifier 'ctx')\n`,
    });
    // Nothing reached Redis: no registry entry, no ring, no queued seed.
    expect(await redis.keys('h1:*')).toEqual([]);
  });

  it('locates a top-level throw, and keeps a TypeScript error on one line', async () => {
    const crawl = (file: string) =>
      runCliWith(['crawl', '--redis', server.url, '--prefix', 'h2', '--handler', join(dir, file)]);
    const thrown = await crawl('throws.mjs');
    expect(thrown.code).toBe(2);
    // The JSON.parse message differs between Node versions; where it came from does not.
    expect(thrown.stderr).toMatch(
      /^error: handler .*throws\.mjs: cannot load it \(.+, at throws\.mjs:2:\d+\)\n$/,
    );
    const typed = await crawl('typo.ts');
    expect(typed.code).toBe(2);
    expect(typed.stderr).toMatch(
      /^error: handler .*typo\.ts: cannot load it \(.*typo\.ts:1:\d+: ERROR: [^\n]+\)\n$/,
    );
    expect(await redis.keys('h2:*')).toEqual([]);
  });

  it('does not start the embedded Redis for a handler file that is not there', async () => {
    const dataDir = join(dir, 'data');
    const result = await runCliWith(
      ['crawl', '--data-dir', dataDir, '--handler', './missing.mjs', 'https://example.com/'],
      { cwd: dir },
    );
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: `error: handler ./missing.mjs: no such file (${join(dir, 'missing.mjs')}); give the path of a .mjs, .js or .ts module\n`,
    });
    expect(existsSync(join(dataDir, 'redis'))).toBe(false);
  });
});

describe('shardline crawl with directories it cannot use', () => {
  it('a data directory behind a file, or under procfs, is one line', async () => {
    const file = join(dir, 'typo.mjs');
    const blocked = await runCliWith([
      'crawl',
      '--data-dir',
      join(file, 'state'),
      'https://example.com/',
    ]);
    expect({ code: blocked.code, stderr: blocked.stderr }).toEqual({
      code: 1,
      stderr: `error: cannot create the directory ${join(file, 'state', 'redis')} (ENOTDIR): give --data-dir a directory you can write to\n`,
    });
    if (!existsSync('/proc/self')) return;
    const proc = await runCliWith([
      'crawl',
      '--data-dir',
      '/proc/shardline',
      'https://example.com/',
    ]);
    expect({ code: proc.code, stderr: proc.stderr }).toEqual({
      code: 1,
      stderr:
        'error: cannot create the directory /proc/shardline/redis (ENOENT): give --data-dir a directory you can write to\n',
    });
  });

  it('a WARC directory it cannot write is a usage error before the pod joins', async () => {
    const result = await runCliWith([
      'crawl',
      '--redis',
      server.url,
      '--prefix',
      'h3',
      '--warc-dir',
      join(dir, 'typo.mjs'),
      'https://example.com/',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^error: WARC directory \(warcDir, --warc-dir\) .*typo\.mjs: cannot write there \(ENOTDIR\)\n$/,
    );
    expect(await redis.keys('h3:*')).toEqual([]);
  });
});

describe('settings out of their bounds', () => {
  const RESOLVE_RULE =
    'host:address, host:port:address, *.suffix:address or host:[ipv6] entries ("slow.test=127.0.0.2": no address after the host)';

  it('crawl names the flag or the variable, and starts no Redis', async () => {
    const dataDir = join(dir, 'bounds-crawl');
    const byFlag = await runCliWith([
      'crawl',
      '--data-dir',
      dataDir,
      '--resolve',
      'slow.test=127.0.0.2',
      'https://slow.test/',
    ]);
    expect({ code: byFlag.code, stderr: byFlag.stderr }).toEqual({
      code: 2,
      stderr: `error: --resolve must be ${RESOLVE_RULE}, got "slow.test=127.0.0.2"\n`,
    });
    const byEnv = await runCliWith(['crawl', '--data-dir', dataDir, 'https://slow.test/'], {
      env: { CLAIM_LEAD_MS: '5000' },
    });
    expect({ code: byEnv.code, stderr: byEnv.stderr }).toEqual({
      code: 2,
      stderr:
        'error: environment variable CLAIM_LEAD_MS must be an integer in [0, 1000], got 5000\n',
    });
    expect(existsSync(dataDir)).toBe(false);
  });

  it('up refuses once, before its Redis and pods start', async () => {
    const dataDir = join(dir, 'bounds-up');
    const result = await runCliWith([
      'up',
      '--pods',
      '2',
      '--data-dir',
      dataDir,
      '--detach',
      '--log-level',
      'warn',
      '--resolve',
      'slow.test:127.0.0.2,slow.test=127.0.0.2',
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: `error: --resolve must be ${RESOLVE_RULE}, got "slow.test:127.0.0.2,slow.test=127.0.0.2"\n`,
    });
    expect(existsSync(dataDir)).toBe(false);
  });
});
