/**
 * The health endpoints over real HTTP, in front of a real pod on a real Redis: readiness
 * follows the membership and Redis, `/drain` is for loopback callers only and answers once
 * the pod has left the registry.
 */
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { MembershipReader } from '@shardline/membership';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { CrawlerErrorCode } from '../src/errors.js';
import { CrawlerPod, HealthServer, isLoopback, servePodHealth } from '../src/index.js';

let server: RedisServer;
let redis: Redis;
let pod: CrawlerPod;
let health: HealthServer;
let paused = false;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
  pod = new CrawlerPod({
    redis,
    podId: 'health-1',
    prefix: 'h1',
    sessionTimeoutMs: 3000,
    logger: pino({ level: 'silent' }),
  });
  // The same wiring as main.ts and `shardline crawl`.
  health = await servePodHealth({
    port: 0,
    host: '0.0.0.0',
    pingTimeoutMs: 300,
    pod,
    redis,
    logger: pino({ level: 'silent' }),
  });
});

afterAll(async () => {
  if (paused) process.kill(server.pid, 'SIGCONT');
  await health?.close();
  await pod?.stop();
  await redis?.quit();
  await server?.stop();
});

function call(
  method: string,
  path: string,
  from?: string,
): Promise<{ status: number; body: string }> {
  const host = from ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const req = request(
      { host, port: health.port, method, path, ...(from ? { localAddress: from } : {}) },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: body.trim() }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A non-loopback address of this machine (the server binds 0.0.0.0, so it answers there). */
function externalAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (!a.internal && a.family === 'IPv4') return a.address;
  }
  throw new Error('no non-loopback IPv4 interface to test /drain refusal from');
}

describe('isLoopback', () => {
  it('accepts IPv4 127/8, ::1 and IPv4-mapped loopback, nothing else', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) {
      expect(isLoopback(a)).toBe(true);
    }
    for (const a of ['10.0.0.1', '::ffff:10.0.0.1', '192.0.2.2', 'fd00::2', '::', '', undefined]) {
      expect(isLoopback(a)).toBe(false);
    }
  });
});

describe('HealthServer in front of a pod', () => {
  it('is live but not ready before the pod has joined and started its loop', async () => {
    expect(await call('GET', '/healthz')).toEqual({ status: 200, body: 'ok' });
    expect((await call('GET', '/readyz')).status).toBe(503);
  });

  it('is ready once the pod joined the membership and runs its loop', async () => {
    await pod.start();
    expect(await call('GET', '/readyz')).toEqual({ status: 200, body: 'ready' });
    const members = await new MembershipReader(redis, 'h1').members();
    expect(members.map((m) => m.id)).toEqual(['health-1']);
  });

  it('answers 503 while Redis does not answer PING, 200 again once it does', async () => {
    process.kill(server.pid, 'SIGSTOP');
    paused = true;
    try {
      expect(await call('GET', '/readyz')).toEqual({ status: 503, body: 'redis unavailable' });
      // Liveness never touches Redis.
      expect((await call('GET', '/healthz')).status).toBe(200);
    } finally {
      process.kill(server.pid, 'SIGCONT');
      paused = false;
    }
    await vi.waitFor(async () => expect((await call('GET', '/readyz')).status).toBe(200), {
      timeout: 10_000,
      interval: 50,
    });
  });

  it('refuses /drain from a non-loopback address and other methods and paths', async () => {
    const refused = await call('POST', '/drain', externalAddress());
    expect(refused).toEqual({ status: 403, body: 'loopback only' });
    expect((await call('GET', '/drain')).status).toBe(405);
    expect((await call('POST', '/readyz')).status).toBe(405);
    expect((await call('GET', '/nope')).status).toBe(404);
    expect(pod.ready).toBe(true);
  });

  it('drains on a loopback POST /drain and answers once the pod has left', async () => {
    expect(await call('POST', '/drain')).toEqual({ status: 200, body: 'drained' });
    // Answered after the leave: the registry no longer lists the pod.
    expect(await new MembershipReader(redis, 'h1').members()).toEqual([]);
    expect((await call('GET', '/readyz')).status).toBe(503);
    expect((await call('GET', '/healthz')).status).toBe(503);
    // A second drain is idempotent.
    expect((await call('POST', '/drain')).status).toBe(200);
  });
});

describe('HealthServer listen', () => {
  it('names the address and the cause when the port is taken', async () => {
    const ok = {
      live: () => true,
      ready: () => true,
      ping: async () => 'PONG',
      drain: async () => undefined,
    };
    const first = new HealthServer({ ...ok, port: 0, host: '127.0.0.1' });
    await first.listen();
    try {
      const second = new HealthServer({ ...ok, port: first.port, host: '127.0.0.1' });
      await expect(second.listen()).rejects.toMatchObject({
        code: CrawlerErrorCode.LISTEN,
        message: `health server: cannot listen on 127.0.0.1:${first.port}: the port is in use by another process; choose another --health-port (HEALTH_PORT)`,
      });
    } finally {
      await first.close();
    }
  });
});

describe('HealthServer options', () => {
  it('names a bad option', () => {
    const ok = {
      port: 0,
      live: () => true,
      ready: () => true,
      ping: async () => 'PONG',
      drain: async () => undefined,
    };
    expect(() => new HealthServer({ ...ok, port: 70_000 })).toThrow(/port/);
    expect(() => new HealthServer({ ...ok, ping: 'x' as never })).toThrow(/ping/);
    expect(() => new HealthServer({ ...ok, pingTimeoutMs: 0 })).toThrow(/pingTimeoutMs/);
  });
});
