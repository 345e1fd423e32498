import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { RedisRobotsCache } from '../src/robots-cache.js';
import type { RobotsCacheRecord } from '../src/robots-cache-record.js';

let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
});
afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

const record = (fetchedAtMs: number): RobotsCacheRecord => ({
  v: 1,
  robots: { source: 'allow-all' } as unknown as RobotsCacheRecord['robots'],
  fetchedAtMs,
  expiresAtMs: fetchedAtMs + 60_000,
});

describe('RedisRobotsCache', () => {
  it('stores a record per origin with the TTL it is given', async () => {
    const cache = new RedisRobotsCache({ redis, prefix: 'rc1' });
    expect(await cache.get('http://a.test')).toBeUndefined();
    await cache.set('http://a.test', record(1000), 60_000);
    expect(await cache.get('http://a.test')).toEqual(record(1000));
    const ttl = await redis.pttl(cache.key('http://a.test'));
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('does not share records above maxRecordBytes', async () => {
    const cache = new RedisRobotsCache({ redis, prefix: 'rc2', maxRecordBytes: 10 });
    await cache.set('http://b.test', record(1), 60_000);
    expect(await redis.exists(cache.key('http://b.test'))).toBe(0);
  });
});
