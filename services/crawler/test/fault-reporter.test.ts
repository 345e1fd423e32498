/** The pod's fault counts reach Redis, where the API and the dashboard read them. */
import { RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { FaultReporter, flattenFaults } from '../src/fault-reporter.js';

let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

describe('FaultReporter', () => {
  it('publishes stats().faults flattened, again when a count changes, and once more on stop', async () => {
    const frontier = new RedisFrontier({ redis, ownerOf: () => 'pod-f' });
    const faults = { membership: 0, frontier: { 'register-pod': 0, forward: 1 }, redisOom: 0 };
    const reporter = new FaultReporter({
      frontier,
      pod: 'pod-f',
      faults: () => faults,
      intervalMs: 50,
      log: pino({ level: 'silent' }),
    });
    reporter.start();
    await vi.waitFor(async () =>
      expect(await frontier.inspector.podFaults('pod-f')).toEqual(flattenFaults(faults)),
    );
    expect(flattenFaults(faults)).toEqual({
      membership: 0,
      'frontier.register-pod': 0,
      'frontier.forward': 1,
      redisOom: 0,
    });
    faults.redisOom = 3;
    await vi.waitFor(async () =>
      expect((await frontier.inspector.podFaults('pod-f')).redisOom).toBe(3),
    );
    faults.membership = 2;
    await reporter.stop();
    expect((await frontier.inspector.podFaults('pod-f')).membership).toBe(2);
  });
});
