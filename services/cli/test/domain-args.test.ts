/** Domain arguments are normalised to the frontier's domain key (issue 14). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { runCliWith } from './run-cli-with.js';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
  const seeded = await runCliWith([
    'seed',
    '--redis',
    redis.url,
    '--pods',
    'pod-a',
    'http://loop.test/a',
  ]);
  expect(seeded.code).toBe(0);
});
afterAll(() => redis.stop());

describe('domain arguments', () => {
  for (const name of ['LOOP.TEST', 'loop.test.', 'http://Loop.Test/x']) {
    it(`${JSON.stringify(name)} finds loop.test`, async () => {
      const result = await runCliWith(['domain', name, '--redis', redis.url, '--json']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ domain: 'loop.test', queued: 1 });
    }, 60_000);
  }

  it('a value that is no domain is a usage error naming why', async () => {
    const result = await runCliWith(['domain', 'not a domain', '--redis', redis.url]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/not a domain or URL/);
  });
});
