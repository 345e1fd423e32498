/**
 * `shardline stats` on a Redis that lost the frontier a pod worked on: the loss the pod
 * recorded is shown first, never a plain set of zero counters (issue 15).
 */
import { FrontierLostError, RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { runCliWith } from './run-cli-with.js';

let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  const frontier = new RedisFrontier({ redis, prefix: 'fl', ownerOf: () => 'pod-a' });
  await frontier.enqueue(['https://alpha.com/1']);
  const id = await frontier.identity();
  await redis.flushall(); // what a restart without persistence leaves
  await expect(frontier.checkIdentity(id, 'pod-a')).rejects.toBeInstanceOf(FrontierLostError);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

describe('shardline stats after the frontier was lost', () => {
  it('says so in the human and the JSON output', async () => {
    const human = await runCliWith(['stats', '--redis', server.url, '--prefix', 'fl']);
    expect(human.code).toBe(0);
    expect(human.stdout.split('\n')[0]).toMatch(
      /^FRONTIER LOST \(SHARDLINE_ERR_FRONTIER_LOST\): pod pod-a found at /,
    );
    const json = await runCliWith(['stats', '--json', '--redis', server.url, '--prefix', 'fl']);
    expect(JSON.parse(json.stdout).frontierLost).toMatchObject({ pod: 'pod-a', found: null });
  });
});
