/**
 * The pod's entry point as a container runs it: a bad environment variable or option is one
 * line naming it on stderr and exit status 2, before anything connects.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SOURCE_NODE_FLAGS } from '../../../test/helpers/source-runtime.js';

const main = join(import.meta.dirname, '..', 'src', 'main.ts');

function run(env: Record<string, string>) {
  return spawnSync(process.execPath, [...SOURCE_NODE_FLAGS, main], {
    // Port 1: nothing may be reached; a config error must end the process first.
    env: { PATH: process.env.PATH ?? '', REDIS_URL: 'redis://127.0.0.1:1', ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
}

describe('main.ts', () => {
  it.each([
    [{ ROBOTS_MAX_RETRIES: '-1' }, /ROBOTS_MAX_RETRIES must be a non-negative integer; got "-1"/],
    [{ ROBOTS_RETRY_MS: '0' }, /robotsRetryMs must be an integer in \[1, 86400000\]; got 0/],
  ])('%o: one line on stderr, exit 2', (env, message) => {
    const result = run(env);
    expect(result.status).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(lines[0]).toMatch(/^shardline pod: .*\(SHARDLINE_ERR_CRAWLER_[A-Z_]+\)$/);
  });
});
