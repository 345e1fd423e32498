import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

describe('loadConfig', () => {
  it('maps variables onto pod options and leaves unset ones to the defaults', () => {
    const config = loadConfig({
      REDIS_URL: 'redis://127.0.0.1:7000',
      POD_ID: 'pod-7',
      CONCURRENCY: '32',
      PER_HOST_CONCURRENCY: '2',
      MIN_DELAY_MS: '250',
      ADAPTIVE_DELAY_FACTOR: '1.5',
      RESOLVE: '*.test:127.0.0.1, a.example:10.0.0.1',
      ALLOW_PRIVATE_ADDRESSES: 'yes',
      SAME_DOMAIN_ONLY: 'false',
      EXIT_WHEN_IDLE: '1500',
      RESULTS_JSONL: '/tmp/out.jsonl',
      MAX_DEPTH: '',
      LOG_LEVEL: 'debug',
    });
    expect(config).toEqual({
      redisUrl: 'redis://127.0.0.1:7000',
      logLevel: 'debug',
      redisConnectTimeoutMs: 10_000,
      pod: {
        podId: 'pod-7',
        concurrency: 32,
        perHostConcurrency: 2,
        minDelayMs: 250,
        adaptiveDelayFactor: 1.5,
        resolve: ['*.test:127.0.0.1', 'a.example:10.0.0.1'],
        allowPrivateAddresses: true,
        sameDomainOnly: false,
        exitWhenIdle: { graceMs: 1500 },
        resultsJsonl: '/tmp/out.jsonl',
      },
    });
    expect(loadConfig({ EXIT_WHEN_IDLE: 'true' }).pod.exitWhenIdle).toBe(true);
    expect(loadConfig({})).toEqual({ logLevel: 'info', redisConnectTimeoutMs: 10_000, pod: {} });
  });

  it('reads the membership, health and Redis Cluster settings (empty = unset)', () => {
    const config = loadConfig({
      POD_WEIGHT: '2.5',
      SESSION_TIMEOUT_MS: '15000',
      RING_VNODES: '1024',
      RING_SEED: '7',
      HEALTH_PORT: '8081',
      REDIS_CLUSTER_NODES: ' redis-1:6379, redis-2:6380 ,[::1]:7000',
    });
    expect(config.pod).toEqual({
      podWeight: 2.5,
      sessionTimeoutMs: 15_000,
      ringVnodes: 1024,
      ringSeed: 7,
    });
    expect(config.healthPort).toBe(8081);
    expect(config.redisClusterNodes).toEqual([
      { host: 'redis-1', port: 6379 },
      { host: 'redis-2', port: 6380 },
      { host: '::1', port: 7000 },
    ]);
    const empty = loadConfig({ REDIS_CLUSTER_NODES: '', HEALTH_PORT: ' ' });
    expect(empty.redisClusterNodes).toBeUndefined();
    expect(empty.healthPort).toBeUndefined();
  });

  it.each([
    ['CONCURRENCY', 'many', /CONCURRENCY must be a non-negative integer; got "many"/],
    ['MIN_DELAY_MS', '-5', /MIN_DELAY_MS/],
    ['ALLOW_PRIVATE_ADDRESSES', 'maybe', /ALLOW_PRIVATE_ADDRESSES must be true\/false/],
    ['REDIS_URL', 'localhost:6379', /REDIS_URL must be a redis:\/\//],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL/],
    ['POD_WEIGHT', 'x', /POD_WEIGHT must be a number/],
    ['SESSION_TIMEOUT_MS', '10s', /SESSION_TIMEOUT_MS must be a non-negative integer/],
    ['HEALTH_PORT', '70000', /HEALTH_PORT must be a port number/],
    ['REDIS_CLUSTER_NODES', 'a:1,b', /REDIS_CLUSTER_NODES must be a comma list of host:port/],
    ['REDIS_CLUSTER_NODES', 'a:0', /REDIS_CLUSTER_NODES/],
  ])('names the variable when %s=%s is malformed', (name, value, message) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'SHARDLINE_ERR_CRAWLER_CONFIG' });
    expect((error as Error).message).toMatch(message);
  });
});
