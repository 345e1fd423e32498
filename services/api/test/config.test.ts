import { describe, expect, it } from 'vitest';
import { loadApiConfig } from '../src/config.js';
import { ApiConfigError } from '../src/errors.js';

describe('loadApiConfig', () => {
  it('binds to loopback with mutating routes off by default', () => {
    expect(loadApiConfig({})).toEqual({
      redisUrl: 'redis://127.0.0.1:6379',
      keyPrefix: 'sl',
      host: '127.0.0.1',
      port: 8080,
      token: undefined,
      maxBodyBytes: 2 * 1024 * 1024,
      maxSeedItems: 10_000,
      ringVnodes: 8192,
      ringSeed: 0,
      logLevel: 'info',
    });
  });

  it('reads every variable', () => {
    const config = loadApiConfig({
      REDIS_URL: 'redis://redis:6380/1',
      KEY_PREFIX: 'crawl1',
      API_HOST: '0.0.0.0',
      API_PORT: '9000',
      API_TOKEN: 'a-long-enough-token',
      API_MAX_BODY_BYTES: '65536',
      API_MAX_SEED_ITEMS: '500',
      RING_VNODES: '256',
      RING_SEED: '7',
      LOG_LEVEL: 'silent',
    });
    expect(config).toMatchObject({
      redisUrl: 'redis://redis:6380/1',
      keyPrefix: 'crawl1',
      host: '0.0.0.0',
      port: 9000,
      token: 'a-long-enough-token',
      maxBodyBytes: 65536,
      maxSeedItems: 500,
      ringVnodes: 256,
      ringSeed: 7,
      logLevel: 'silent',
    });
  });

  it('names the variable and the value it refuses', () => {
    const cases: [Record<string, string>, string][] = [
      [{ API_PORT: '70000' }, 'API_PORT'],
      [{ API_PORT: '80a' }, 'API_PORT'],
      [{ REDIS_URL: 'http://x' }, 'REDIS_URL'],
      [{ API_TOKEN: 'short' }, 'API_TOKEN'],
      [{ API_MAX_BODY_BYTES: '10' }, 'API_MAX_BODY_BYTES'],
      [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    ];
    for (const [env, name] of cases) {
      let error: unknown;
      try {
        loadApiConfig(env);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ApiConfigError);
      expect((error as ApiConfigError).code).toBe('SHARDLINE_ERR_API_CONFIG');
      expect((error as ApiConfigError).variable).toBe(name);
      expect((error as Error).message).toContain(name);
    }
    // The token itself never appears in an error message.
    try {
      loadApiConfig({ API_TOKEN: 'short' });
    } catch (e) {
      expect((e as Error).message).not.toContain('short"');
    }
  });
});
