import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { resolveRedisTarget } from '../src/lib/redis-connect.js';

describe('loadConfig', () => {
  it('reads the Redis settings and the debug switch; blank values count as unset', () => {
    expect(
      loadConfig({
        REDIS_URL: ' redis://127.0.0.1:7001 ',
        REDIS_CLUSTER_NODES: '',
        KEY_PREFIX: 'k1',
        SHARDLINE_DEBUG: '1',
      }),
    ).toEqual({
      debug: true,
      redisUrl: 'redis://127.0.0.1:7001',
      clusterNodes: undefined,
      keyPrefix: 'k1',
    });
    expect(loadConfig({})).toEqual({
      debug: false,
      redisUrl: undefined,
      clusterNodes: undefined,
      keyPrefix: undefined,
    });
  });

  it('feeds resolveRedisTarget: flags win over the environment', () => {
    const env = loadConfig({ REDIS_URL: 'redis://10.0.0.1:6380' });
    expect(resolveRedisTarget({}, env)).toEqual({
      kind: 'single',
      url: 'redis://10.0.0.1:6380',
      source: 'REDIS_URL',
    });
    expect(resolveRedisTarget({ redis: 'redis://127.0.0.1:7002' }, env)).toMatchObject({
      url: 'redis://127.0.0.1:7002',
      source: '--redis',
    });
  });

  it('a non-empty REDIS_CLUSTER_NODES replaces REDIS_URL, as compose and Kubernetes set both', () => {
    const both = loadConfig({
      REDIS_URL: 'redis://redis:6379',
      REDIS_CLUSTER_NODES: 'redis-1:6379,redis-2:6379',
    });
    expect(resolveRedisTarget({}, both)).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'redis-1', port: 6379 },
        { host: 'redis-2', port: 6379 },
      ],
      source: 'REDIS_CLUSTER_NODES',
    });
    const empty = loadConfig({ REDIS_URL: 'redis://redis:6379', REDIS_CLUSTER_NODES: '' });
    expect(resolveRedisTarget({}, empty)).toMatchObject({ kind: 'single', source: 'REDIS_URL' });
  });
});
