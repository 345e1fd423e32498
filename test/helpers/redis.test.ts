import { Cluster, Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { startRedis, startRedisCluster } from './redis.js';

describe('test redis helper', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('starts a server on a free port that is never 6379, and AOF survives kill -9', async () => {
    const server = await startRedis({ appendonly: true });
    cleanups.push(() => server.stop());
    expect(server.port).not.toBe(6379);
    const client = new Redis(server.port, '127.0.0.1', {
      lazyConnect: true,
      maxRetriesPerRequest: null,
    });
    cleanups.push(async () => client.disconnect());
    await client.connect();
    await client.set('k', 'v');
    const pidBefore = server.pid;
    await server.restart();
    expect(server.pid).not.toBe(pidBefore);
    expect(await client.get('k')).toBe('v');
  });

  it('without AOF a restart starts empty', async () => {
    const server = await startRedis();
    cleanups.push(() => server.stop());
    const client = new Redis(server.port, '127.0.0.1', { maxRetriesPerRequest: null });
    cleanups.push(async () => client.disconnect());
    await client.set('k', 'v');
    await server.restart();
    expect(await client.get('k')).toBeNull();
  });

  it('starts a three-master cluster that serves every slot', async () => {
    const cluster = await startRedisCluster(3);
    cleanups.push(() => cluster.stop());
    const client = new Cluster(cluster.nodes);
    cleanups.push(async () => client.disconnect());
    for (let i = 0; i < 30; i++) await client.set(`key-${i}`, String(i));
    const masters = client.nodes('master');
    expect(masters).toHaveLength(3);
    const sizes = await Promise.all(masters.map((node) => node.dbsize()));
    expect(sizes.every((n) => n > 0)).toBe(true);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(30);
  });
});
