/**
 * On a terminal `shardline crawl` logs short pretty lines (pino-pretty), not JSON; elsewhere
 * JSON lines (issue 14). The terminal is a real pty from util-linux `script`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { SOURCE_NODE_FLAGS } from '../../../test/helpers/source-runtime.js';
import { CLI } from './run-cli.js';
import { runCliWith } from './run-cli-with.js';

const run = promisify(execFile);
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.stop());

const crawlArgs = (prefix: string) => [
  'crawl',
  '--prefix',
  prefix,
  '--exit-when-idle',
  '--idle-grace-ms',
  '200',
  'http://127.0.0.1:9/',
];

describe('crawl logs', () => {
  it('are pretty on a terminal', async () => {
    const command = [process.execPath, ...SOURCE_NODE_FLAGS, CLI, ...crawlArgs('tty')]
      .map((a) => `'${a}'`)
      .join(' ');
    const { stdout } = await run('script', ['-qec', command, '/dev/null'], {
      env: { ...process.env, REDIS_URL: redis.url, NO_COLOR: '1' },
      timeout: 90_000,
    }).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
    expect(stdout).toMatch(/WARN.*fetch failed: http:\/\/127\.0\.0\.1:9\//);
    expect(stdout).not.toContain('"level":40');
  }, 120_000);

  it('are JSON lines elsewhere', async () => {
    const result = await runCliWith(crawlArgs('pipe'), { env: { REDIS_URL: redis.url } });
    expect(result.stderr).toMatch(/^\{"level":40,.*"msg":"fetch failed: /m);
  }, 120_000);
});
