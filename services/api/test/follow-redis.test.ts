/**
 * The API after its Redis restarts on another port (`shardline down` then `up` give the data
 * dir's embedded Redis a new port): with a locator it follows, without one it stays on 503.
 */
import { RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { StaticClusterView } from '../src/cluster-view.js';
import { loadApiConfig } from '../src/config.js';
import { type RunningApi, startApi } from '../src/main.js';
import { call } from './fixture.js';

const servers: RedisServer[] = [];
let api: RunningApi | undefined;

afterAll(async () => {
  await api?.close();
  for (const s of servers) await s.stop();
});

async function seeded(urls: number): Promise<RedisServer> {
  const server = await startRedis();
  servers.push(server);
  const redis = new Redis(server.url);
  const frontier = new RedisFrontier({ redis, ownerOf: () => 'pod-a' });
  await frontier.enqueue(Array.from({ length: urls }, (_, i) => `http://follow.test/${i}`));
  redis.disconnect();
  return server;
}

describe('startApi with a Redis locator', () => {
  it('answers from the new Redis after the old one stopped and another started elsewhere', async () => {
    const first = await seeded(3);
    let current: string | undefined = first.url;
    const config = loadApiConfig({ REDIS_URL: first.url, API_PORT: '0', LOG_LEVEL: 'silent' });
    api = await startApi(config, new StaticClusterView(['pod-a']), {
      locate: () => current,
    });
    expect((await call(api.url, '/v1/stats')).body.queued).toBe(3);

    await first.stop();
    current = undefined; // `down`: the port file is gone
    await vi.waitFor(async () => expect((await call(api!.url, '/readyz')).status).toBe(503));

    const second = await seeded(7);
    expect(second.port).not.toBe(first.port);
    current = second.url; // `up`: a new port file
    await vi.waitFor(
      async () => {
        const stats = await call(api!.url, '/v1/stats');
        expect([stats.status, stats.body.queued]).toEqual([200, 7]);
      },
      { timeout: 10_000, interval: 100 },
    );
    expect((await call(api.url, '/readyz')).status).toBe(200);
  });
});
