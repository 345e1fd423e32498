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
    expect(loadConfig({})).toEqual({ logLevel: 'info', pod: {} });
  });

  it.each([
    ['CONCURRENCY', 'many', /CONCURRENCY must be a non-negative integer; got "many"/],
    ['MIN_DELAY_MS', '-5', /MIN_DELAY_MS/],
    ['ALLOW_PRIVATE_ADDRESSES', 'maybe', /ALLOW_PRIVATE_ADDRESSES must be true\/false/],
    ['REDIS_URL', 'localhost:6379', /REDIS_URL must be a redis:\/\//],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL/],
    ['POD_WEIGHT', 'x', /POD_WEIGHT must be a number/],
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
