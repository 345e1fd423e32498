/**
 * A pod against a real redis-server that faults (issue 15): Redis restarted without
 * persistence under a running pod process must stop it with SHARDLINE_ERR_FRONTIER_LOST and a
 * non-zero exit (it used to re-join the empty registry and exit as idle: a silent "done");
 * Redis out of memory (maxmemory + noeviction) must make a pod wait — at start and
 * mid-crawl — without refetching a page, and leave the counters exact.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { SOURCE_NODE_FLAGS } from '../../../test/helpers/source-runtime.js';
import { CrawlerPod } from '../src/index.js';

const main = join(import.meta.dirname, '..', 'src', 'main.ts');

/** A site of `pages` pages in a chain (/p/0 → /p/1 → …); counts requests per path. */
async function chainSite(
  pages: number,
): Promise<{ server: Server; port: number; hits: Map<string, number> }> {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const n = Number(/^\/p\/(\d+)$/.exec(path)?.[1] ?? Number.NaN);
    if (Number.isNaN(n)) {
      res.writeHead(404).end();
      return;
    }
    const next = n + 1 < pages ? `<a href="/p/${n + 1}">next</a>` : '';
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body>${next}</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('pod under Redis faults', () => {
  it('stops with SHARDLINE_ERR_FRONTIER_LOST and a non-zero exit when Redis restarts empty', async () => {
    const redis: RedisServer = await startRedis();
    cleanups.push(() => redis.stop());
    const site = await chainSite(1000);
    cleanups.push(() => new Promise<void>((r) => site.server.close(() => r())));
    const seeder = new Redis(redis.port, redis.host);
    // The restart below drops this connection on purpose; ioredis reconnects.
    seeder.on('error', () => undefined);
    cleanups.push(() => seeder.disconnect());
    await new RedisFrontier({ redis: seeder, ownerOf: () => 'pod-lost' }).enqueue([
      `http://site.test:${site.port}/p/0`,
    ]);
    const child: ChildProcess = spawn(process.execPath, [...SOURCE_NODE_FLAGS, main], {
      env: {
        PATH: process.env.PATH ?? '',
        REDIS_URL: redis.url,
        POD_ID: 'pod-lost',
        RESOLVE: 'site.test:127.0.0.1',
        MIN_DELAY_MS: '100',
        EXIT_WHEN_IDLE: '300',
        SESSION_TIMEOUT_MS: '3000',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    cleanups.push(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    await vi.waitFor(() => expect(site.hits.get('/p/3')).toBe(1), {
      timeout: 20_000,
      interval: 50,
    });

    await redis.kill();
    await redis.restart(); // no AOF, no RDB: empty

    const code = await exited;
    expect(code).not.toBe(0);
    expect(out).toContain('SHARDLINE_ERR_FRONTIER_LOST');
    expect(out).toContain('Redis has no persistence');
    const logs = out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string; graceful?: boolean; faults?: object });
    // Not a finished crawl: no graceful leave, and the final stats say why it stopped.
    expect(logs.some((l) => l.msg === 'membership left' && l.graceful)).toBe(false);
    expect(logs.find((l) => l.msg === 'pod stopped')?.faults).toMatchObject({ frontierLost: 1 });
    // Whoever reads the emptied Redis (stats, /metrics, dashboard) sees why it is empty.
    const reader = new RedisFrontier({ redis: seeder, ownerOf: () => 'pod-lost' });
    expect(await reader.inspector.frontierLost()).toMatchObject({ pod: 'pod-lost', found: null });
  }, 60_000);

  it('waits out an OOM at start and mid-crawl: no page fetched twice, counters exact', async () => {
    const redis = await startRedis({ args: ['--maxmemory-policy', 'noeviction'] });
    cleanups.push(() => redis.stop());
    const site = await chainSite(40);
    cleanups.push(() => new Promise<void>((r) => site.server.close(() => r())));
    const client = new Redis(redis.port, redis.host);
    const admin = new Redis(redis.port, redis.host);
    cleanups.push(() => {
      client.disconnect();
      admin.disconnect();
    });
    const lines: { code?: string; msg?: string }[] = [];
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => void lines.push(JSON.parse(line)) },
    );
    const pod = new CrawlerPod({
      redis: client,
      logger,
      podId: 'pod-oom',
      assignment: { ownerOf: () => 'pod-oom', onChange: () => () => undefined },
      resolve: [`site.test:127.0.0.1`],
      minDelayMs: 20,
      leaseTimeoutMs: 600,
      heartbeatIntervalMs: 150,
      exitWhenIdle: { graceMs: 300 },
    });
    await pod.seed([`http://site.test:${site.port}/p/0`]);
    // Full before the pod starts: it waits instead of failing.
    await admin.config('SET', 'maxmemory', '1');
    const started = pod.start();
    await new Promise((r) => setTimeout(r, 500));
    await admin.config('SET', 'maxmemory', '0');
    await started;
    // Full again mid-crawl, for longer than a lease: leases in flight are kept alive.
    await vi.waitFor(() => expect(site.hits.get('/p/5')).toBe(1), {
      timeout: 20_000,
      interval: 20,
    });
    await admin.config('SET', 'maxmemory', '1');
    await new Promise((r) => setTimeout(r, 1500));
    await admin.config('SET', 'maxmemory', '0');
    await pod.done;

    for (let n = 0; n < 40; n++) expect(site.hits.get(`/p/${n}`), `/p/${n}`).toBe(1);
    const stats = pod.stats();
    expect(stats.fetched).toBe(40);
    expect(stats.faults.redisOom).toBeGreaterThanOrEqual(2);
    expect(
      lines.filter((l) => l.code === 'SHARDLINE_ERR_REDIS_OOM' && /out of memory/.test(l.msg ?? ''))
        .length,
    ).toBe(stats.faults.redisOom);
    const global = await pod.frontier.inspector.stats();
    const exact = await pod.frontier.inspector.domainStats('site.test');
    expect({ queued: global.queued, fetched: global.fetched }).toEqual({
      queued: exact.queued,
      fetched: exact.fetched,
    });
    expect(exact).toMatchObject({ queued: 0, fetched: 40, repeats: 0 });
  }, 60_000);

  it('stops promptly while Redis is full: a stopping pod is not held by its OOM waits', async () => {
    const redis = await startRedis({ args: ['--maxmemory-policy', 'noeviction'] });
    cleanups.push(() => redis.stop());
    const site = await chainSite(1000);
    cleanups.push(() => new Promise<void>((r) => site.server.close(() => r())));
    const client = new Redis(redis.port, redis.host);
    const admin = new Redis(redis.port, redis.host);
    cleanups.push(() => {
      client.disconnect();
      admin.disconnect();
    });
    const pod = new CrawlerPod({
      redis: client,
      logger: pino({ level: 'silent' }),
      podId: 'pod-stop',
      assignment: { ownerOf: () => 'pod-stop', onChange: () => () => undefined },
      resolve: ['site.test:127.0.0.1'],
      minDelayMs: 20,
      stopGraceMs: 500,
    });
    await pod.seed([`http://site.test:${site.port}/p/0`]);
    await pod.start();
    await vi.waitFor(() => expect(site.hits.get('/p/2')).toBe(1), {
      timeout: 20_000,
      interval: 20,
    });
    await admin.config('SET', 'maxmemory', '1');
    // Long enough for a page's links to wait on the refused enqueue.
    await vi.waitFor(() => expect(pod.stats().faults.redisOom).toBeGreaterThan(0), {
      timeout: 10_000,
    });
    const stopped = Date.now();
    await pod.stop();
    expect(Date.now() - stopped).toBeLessThan(5000);
    await admin.config('SET', 'maxmemory', '0');
  }, 60_000);
});
