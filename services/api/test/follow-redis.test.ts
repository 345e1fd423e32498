/**
 * The API and its Redis: after Redis restarts on another port (`shardline down` then `up` give
 * the data dir's embedded Redis a new port), with a locator it follows, without one it stays on
 * 503; on a Redis whose user may not load the frontier's function library, it seeds by EVALSHA
 * and logs the refusal once.
 */
import { RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { StaticClusterView } from '../src/cluster-view.js';
import { loadApiConfig } from '../src/config.js';
import { type RunningApi, startApi } from '../src/main.js';
import { call, TOKEN } from './fixture.js';

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

describe('startApi on a Redis that refuses the function library', () => {
  it('seeds by EVALSHA and logs the refusal once', async () => {
    const server = await startRedis();
    servers.push(server);
    const admin = new Redis(server.url);
    await admin.call('ACL', 'SETUSER', 'nofn', 'on', 'nopass', '~*', '&*', '+@all', '-function');
    const url = `redis://nofn@${server.host}:${server.port}`;
    const config = loadApiConfig({
      REDIS_URL: url,
      API_PORT: '0',
      LOG_LEVEL: 'silent',
      API_TOKEN: TOKEN,
    });
    const refused = await startApi(config, new StaticClusterView(['pod-a']));
    try {
      const warn = vi.spyOn(refused.server.log, 'warn');
      for (const batch of [['http://fn.test/1', 'http://fn.test/2'], ['http://fn2.test/1']]) {
        const seeded = await call(refused.url, '/v1/seeds', {
          body: { urls: batch },
          token: TOKEN,
        });
        expect(seeded.status).toBe(200);
      }
      expect((await call(refused.url, '/v1/stats')).body.queued).toBe(3);
      const refusals = warn.mock.calls.filter(
        ([fields]) => (fields as { operation?: string }).operation === 'load-functions',
      );
      expect(refusals).toHaveLength(1);
      expect(String((refusals[0]![0] as { err: Error }).err.message)).toMatch(/NOPERM/);
    } finally {
      await refused.close();
      admin.disconnect();
    }
  });
});
