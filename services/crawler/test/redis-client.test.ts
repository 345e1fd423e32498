/**
 * `createRedisClient` on a three-master Redis Cluster (REDIS_CLUSTER_NODES): two pods join the
 * membership over the Cluster, share a small crawl and fetch every reachable URL once.
 */
import { Cluster, Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisCluster, startRedisCluster } from '../../../test/helpers/redis.js';
import { startTestWeb, type TestWeb } from '../../../test/web/index.js';
import { CrawlerPod, createRedisClient, loadConfig } from '../src/index.js';

let web: TestWeb;
let cluster: RedisCluster;
const clients: (Redis | Cluster)[] = [];

beforeAll(async () => {
  [web, cluster] = await Promise.all([
    startTestWeb({ hosts: 8, seed: 4, pagesPerHost: [2, 4], behaviours: 'none' }),
    startRedisCluster(3),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
  await Promise.all([web?.close(), cluster?.stop()]);
});

describe('createRedisClient', () => {
  it('opens a Redis for a URL and a Cluster for REDIS_CLUSTER_NODES', async () => {
    const plain = createRedisClient({ url: 'redis://127.0.0.1:1', clusterNodes: [] });
    expect(plain).toBeInstanceOf(Redis);
    plain.disconnect();
    const env = {
      REDIS_URL: 'redis://127.0.0.1:1',
      REDIS_CLUSTER_NODES: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(','),
    };
    const config = loadConfig(env);
    const client = createRedisClient({
      url: config.redisUrl,
      clusterNodes: config.redisClusterNodes,
    });
    clients.push(client);
    expect(client).toBeInstanceOf(Cluster);
    expect(await client.ping()).toBe('PONG');
  });

  it('lets two pods on a Redis Cluster share a crawl through the membership', async () => {
    web.clearLog();
    const pods = ['ca', 'cb'].map((id) => {
      const redis = createRedisClient({ clusterNodes: cluster.nodes });
      clients.push(redis);
      return new CrawlerPod({
        redis,
        podId: id,
        prefix: 'cl',
        minDelayMs: 50,
        resolve: web.resolveOverrides,
        exitWhenIdle: { graceMs: 1000 },
        logger: pino({ level: 'silent' }),
      });
    });
    const [a, b] = pods as [CrawlerPod, CrawlerPod];
    await Promise.all([a.start(), b.start()]);
    const end = Date.now() + 15_000;
    while (a.membership!.members().length < 2 || a.membership!.epoch !== b.membership!.epoch) {
      if (Date.now() > end) throw new Error('pods did not agree on a ring');
      await new Promise((r) => setTimeout(r, 20));
    }
    await a.seed(web.seeds);
    await Promise.all([a.done, b.done]);
    const truth = web.groundTruth({ userAgentToken: 'shardline' });
    const counts = web.fetchCounts();
    const wrong = [...truth.reachableAllowed].filter((url) => counts.get(url) !== 1);
    expect(wrong).toEqual([]);
    expect([...counts.keys()].filter((url) => !truth.reachableAllowed.has(url))).toEqual([]);
    expect(a.stats().fetched + b.stats().fetched).toBe(truth.reachableAllowed.size);
  }, 40_000);
});
