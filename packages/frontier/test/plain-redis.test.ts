/**
 * `plainRedisAnswers` against a real redis-server, an HTTP server and a closed port, and
 * `tlsRedisAddress` on the URLs operators write: what tells a `rediss://` URL pointed at a
 * Redis without TLS from a Redis that is simply not there.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { plainRedisAnswers, tlsRedisAddress } from '../src/index.js';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => redis?.stop());

describe('plainRedisAnswers', () => {
  it('is true for a Redis, also one that asks for a password first', async () => {
    expect(await plainRedisAnswers({ host: '127.0.0.1', port: redis.port }, 2000)).toBe(true);
    // A password set at run time: the connection that set it stays signed in to unset it.
    const admin = new Redis(redis.port, '127.0.0.1');
    try {
      await admin.config('SET', 'requirepass', 'secret');
      expect(await plainRedisAnswers({ host: '127.0.0.1', port: redis.port }, 2000)).toBe(true);
    } finally {
      await admin.config('SET', 'requirepass', '');
      admin.disconnect();
    }
  });

  it('is false for an HTTP server and for a closed port', async () => {
    const http = createServer((_, res) => res.end('hi'));
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
    try {
      const { port } = http.address() as AddressInfo;
      expect(await plainRedisAnswers({ host: '127.0.0.1', port }, 2000)).toBe(false);
    } finally {
      http.closeAllConnections();
      await new Promise((done) => http.close(done));
    }
    expect(await plainRedisAnswers({ host: '127.0.0.1', port: await freePort() }, 2000)).toBe(
      false,
    );
  });
});

describe('tlsRedisAddress', () => {
  it('reads host and port of rediss:// URLs only', () => {
    expect(tlsRedisAddress('rediss://:pw@cache.example:6380/2')).toEqual({
      host: 'cache.example',
      port: 6380,
    });
    expect(tlsRedisAddress('rediss://[::1]')).toEqual({ host: '::1', port: 6379 });
    expect(tlsRedisAddress('REDISS://h')).toEqual({ host: 'h', port: 6379 });
    expect(tlsRedisAddress('redis://h:6380')).toBeUndefined();
    expect(tlsRedisAddress(undefined)).toBeUndefined();
  });
});
