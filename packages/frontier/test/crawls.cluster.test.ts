/**
 * Crawls on a three-master Redis Cluster: the scripts that derive the shared politeness root
 * from a crawl's key root, the crawl-touch script (registry and domain set in one slot) and
 * the per-domain deletion all run on Cluster; deleting a crawl leaves no key of it on any master.
 */
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisCluster, startRedisCluster } from '../../../test/helpers/redis.js';
import { CrawlRegistry, RedisFrontier } from '../src/index.js';

describe('crawls on a Redis Cluster', () => {
  let cluster: RedisCluster;
  let redis: Cluster;
  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    redis = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 3 } });
  });
  afterAll(async () => {
    redis?.disconnect();
    await cluster?.stop();
  });

  const keysOnEveryMaster = async (prefix: string) => {
    const out: string[] = [];
    for (const node of redis.nodes('master')) {
      let cursor = '0';
      do {
        const [next, page] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        out.push(...page);
        cursor = next;
      } while (cursor !== '0');
    }
    return out.sort();
  };

  it('shares a host gate across crawls and deletes one crawl everywhere', async () => {
    const prefix = 'cc';
    const make = (crawlId: string) =>
      new RedisFrontier({ redis, prefix, crawlId, ownerOf: () => 'p', defaultDelayMs: 60_000 });
    const a = make('a');
    const b = make('b');
    const urls = Array.from({ length: 40 }, (_, i) => `https://d${i}.example/x`);
    expect((await a.enqueue(urls)).queued).toBe(40);
    expect((await b.enqueue(urls)).queued).toBe(40);
    expect((await a.claim({ pod: 'p', max: 100 })).leases).toHaveLength(40);
    // Every host's shared gate is closed for a minute: the other crawl gets nothing.
    expect((await b.claim({ pod: 'p', max: 100 })).leases).toEqual([]);
    expect(
      (await b.inspector.hostState('d3.example', 'd3.example')).nextAllowedAtMs,
    ).toBeGreaterThan(0);

    const before = (await keysOnEveryMaster(prefix)).filter((k) => !k.includes(':c:b:'));
    const done = await new CrawlRegistry({ redis, prefix }).delete('b', { batchDomains: 7 });
    expect(done.domains).toBe(40);
    const after = await keysOnEveryMaster(prefix);
    expect(after.filter((k) => k.includes(':c:b:'))).toEqual([]);
    expect(after).toEqual(before);
    expect((await a.inspector.domainStats('d3.example')).inFlight).toBe(1);
  });
});
