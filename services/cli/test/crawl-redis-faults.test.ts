/**
 * `shardline crawl` against a Redis that does not answer (issue 15): at start it gives up
 * after REDIS_CONNECT_TIMEOUT_MS with one line naming the URL and the cause; while waiting,
 * and while Redis is gone mid-crawl, every stop signal ends the process within its grace;
 * reconnects log one warning per backoff step, never a stack per attempt.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startRedis } from '../../../test/helpers/redis.js';
import { hasStackTrace } from './run-cli.js';
import { type LiveCli, spawnCli } from './spawn-cli.js';

const live: LiveCli[] = [];
afterEach(() => {
  for (const cli of live.splice(0)) cli.kill();
});
function start(args: string[], env: Record<string, string>): LiveCli {
  const cli = spawnCli(args, { env });
  live.push(cli);
  return cli;
}

describe('crawl with an unreachable Redis', () => {
  it('gives up after REDIS_CONNECT_TIMEOUT_MS with one line naming the URL and cause, exit 1', async () => {
    const cli = start(['crawl', 'http://a.test/'], {
      REDIS_URL: 'redis://127.0.0.1:1',
      REDIS_CONNECT_TIMEOUT_MS: '1500',
    });
    const { code, afterMs } = await cli.exited;
    expect(code).toBe(1);
    expect(afterMs).toBeLessThan(30_000);
    const errors = cli
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('error: '));
    expect(errors).toEqual([
      expect.stringMatching(
        /^error: cannot reach Redis at redis:\/\/127\.0\.0\.1:1: ECONNREFUSED \(gave up after 1500 ms; REDIS_CONNECT_TIMEOUT_MS/,
      ),
    ]);
    expect(hasStackTrace(cli.stderr())).toBe(false);
    expect(cli.stderr()).not.toContain('ExperimentalWarning');
    // One warning per backoff step (100, 200, 400, 800 ms…), not one every 50 ms.
    const warnings = cli
      .stderr()
      .split('\n')
      .filter((l) => l.includes('redis unreachable'));
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings.length).toBeLessThan(8);
  }, 60_000);

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${signal} while waiting for Redis ends the process promptly`, async () => {
      const cli = start(['crawl', 'http://a.test/'], {
        REDIS_URL: 'redis://127.0.0.1:1',
        REDIS_CONNECT_TIMEOUT_MS: '600000',
      });
      await vi.waitFor(() => expect(cli.stderr()).toContain('redis unreachable'), {
        timeout: 30_000,
        interval: 100,
      });
      const sentAt = Date.now();
      cli.child.kill(signal);
      await cli.exited;
      expect(Date.now() - sentAt).toBeLessThan(10_000);
      expect(hasStackTrace(cli.stderr())).toBe(false);
    }, 60_000);
  }
});

describe('crawl against a server that is not Redis', () => {
  it('exits 1 at once with one line quoting what answered; no line per reconnect', async () => {
    // A Redis URL with the wrong port: an HTTP server answers there.
    const http = createServer((_, res) => res.end('hello'));
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
    const { port } = http.address() as AddressInfo;
    try {
      const cli = start(['crawl', 'http://a.test/'], {
        REDIS_URL: `redis://127.0.0.1:${port}`,
        REDIS_CONNECT_TIMEOUT_MS: '600000',
      });
      const { code } = await cli.exited;
      expect(code).toBe(1);
      const errors = cli
        .stderr()
        .split('\n')
        .filter((l) => l.startsWith('error: '));
      expect(errors).toEqual([
        `error: cannot reach Redis at redis://127.0.0.1:${port}: not a Redis server: it answered "HTTP/1.1 400 Bad Request"; check the host and port`,
      ]);
      expect(cli.stderr()).not.toMatch(/wake subscriber|Please report this/);
      expect(hasStackTrace(cli.stderr())).toBe(false);
    } finally {
      http.closeAllConnections();
      await new Promise((done) => http.close(done));
    }
  }, 60_000);

  it('rediss:// at a Redis without TLS: exits 1 well before its connect timeout, saying to use redis://', async () => {
    const server = await startRedis();
    try {
      // The TLS handshake is never answered: before, the pod waited out its whole timeout.
      const cli = start(['crawl', 'http://a.test/'], {
        REDIS_URL: `rediss://127.0.0.1:${server.port}`,
        REDIS_CONNECT_TIMEOUT_MS: '600000',
      });
      const { code } = await cli.exited;
      expect(code).toBe(1);
      expect(
        cli
          .stderr()
          .split('\n')
          .filter((l) => l.startsWith('error: ')),
      ).toEqual([
        `error: cannot reach Redis at rediss://127.0.0.1:${server.port}: the TLS handshake got no answer, but a Redis without TLS answers PING on that port: use redis:// instead of rediss://`,
      ]);
      expect(hasStackTrace(cli.stderr())).toBe(false);
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe('crawl when Redis goes away mid-crawl', () => {
  it('warns per backoff step and SIGTERM still ends it within stop grace + margin', async () => {
    const server = await startRedis();
    try {
      const cli = start(
        ['crawl', '--stop-grace-ms', '500', '--log-level', 'info', 'http://a.test/'],
        { REDIS_URL: server.url },
      );
      await vi.waitFor(() => expect(cli.stderr()).toContain('"msg":"seeded"'), {
        timeout: 30_000,
        interval: 100,
      });
      await server.kill();
      await vi.waitFor(() => expect(cli.stderr()).toContain('redis unreachable'), {
        timeout: 30_000,
        interval: 100,
      });
      const sentAt = Date.now();
      cli.child.kill('SIGTERM');
      const { code } = await cli.exited;
      expect(Date.now() - sentAt).toBeLessThan(15_000);
      expect(code).not.toBe(0);
      expect(hasStackTrace(cli.stderr())).toBe(false);
    } finally {
      await server.stop();
    }
  }, 90_000);
});
