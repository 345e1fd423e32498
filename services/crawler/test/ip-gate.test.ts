/**
 * Per-IP politeness, judged by the servers' own request logs: hosts of several domains on one
 * address (127.0.0.2), owned by two pods, share one gap and one concurrency; hosts on another
 * address (127.0.0.3) have their own gate and do not wait for them; a pass whose pod died stops counting.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { CrawlerPod, type CrawlerPodOptions } from '../src/index.js';
import { IpGate } from '../src/ip-gate.js';
import {
  type LoggingServer,
  STAMP_SLACK_MS,
  startLoggingServer,
} from './fixtures/logging-server.js';

let server: RedisServer;
let redis: Redis;
let n = 0;
const WAIT = { timeout: 20_000, interval: 50 };

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

/** Two pods on one frontier; `owners` maps each domain to the pod (`a` or `b`) that owns it. */
function twoPods(
  owners: Record<string, 'a' | 'b'>,
  resolve: string[],
  options: Partial<CrawlerPodOptions>,
): [CrawlerPod, CrawlerPod] {
  n += 1;
  const make = (id: 'a' | 'b') =>
    new CrawlerPod({
      redis,
      podId: `ip-${id}`,
      prefix: `ipg${n}`,
      minDelayMs: 0,
      maxDepth: 0,
      resolve,
      assignment: { ownerOf: (domain) => `ip-${owners[domain]}`, onChange: () => () => undefined },
      logger: pino({ level: 'silent' }),
      ...options,
    });
  return [make('a'), make('b')];
}

/** Sorted start times (ms) of the requests a server saw. */
function starts(web: LoggingServer): number[] {
  return web.log.map((e) => e.startMs).sort((x, y) => x - y);
}

function gaps(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - (times[i] as number));
}

describe('per-IP politeness', () => {
  it('spaces requests to one address across hosts and pods, and leaves other addresses alone', async () => {
    const [shared, other] = await Promise.all([
      startLoggingServer('127.0.0.2'),
      startLoggingServer('127.0.0.3'),
    ]);
    const onShared = ['alpha.test', 'beta.test', 'gamma.test'];
    const onOther = ['delta.test', 'epsilon.test', 'zeta.test'];
    const resolve = [
      ...onShared.map((h) => `${h}:127.0.0.2`),
      ...onOther.map((h) => `${h}:127.0.0.3`),
    ];
    const [a, b] = twoPods(
      {
        'alpha.test': 'a',
        'gamma.test': 'a',
        'beta.test': 'b',
        'delta.test': 'b',
        'epsilon.test': 'a',
        'zeta.test': 'b',
      },
      resolve,
      { perIpDelayMs: 250 },
    );
    try {
      const urls = [
        ...onShared.flatMap((h) => [1, 2, 3].map((i) => `${shared.origin(h)}/p${i}`)),
        ...onOther.flatMap((h) => [1, 2].map((i) => `${other.origin(h)}/p${i}`)),
      ];
      await a.seed(urls);
      await Promise.all([a.start(), b.start()]);
      // Three robots.txt and nine pages on the shared address; three and six on the other.
      await vi.waitFor(() => expect(shared.log).toHaveLength(12), WAIT);
      await vi.waitFor(() => expect(other.log).toHaveLength(9), WAIT);
      // Both pods sent to the shared address (each owns some of its domains).
      expect(new Set(shared.log.map((e) => e.host))).toEqual(new Set(onShared));
      for (const web of [shared, other]) {
        for (const gap of gaps(starts(web))) {
          expect(gap).toBeGreaterThanOrEqual(250 - web.stampSlackMs());
        }
      }
      // The addresses did not wait for each other: one gate for both would keep every start
      // of either at least the delay from every other.
      const merged = [...starts(shared), ...starts(other)].sort((x, y) => x - y);
      expect(Math.min(...gaps(merged))).toBeLessThan(250 - STAMP_SLACK_MS);
      expect(a.stats().ipGate.waits + b.stats().ipGate.waits).toBeGreaterThan(0);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await Promise.all([shared.close(), other.close()]);
    }
  }, 30_000);

  it('keeps to the per-IP concurrency across pods', async () => {
    const shared = await startLoggingServer('127.0.0.2', { responseDelayMs: 150 });
    const hosts = ['alpha.test', 'beta.test', 'gamma.test', 'delta.test'];
    const [a, b] = twoPods(
      { 'alpha.test': 'a', 'gamma.test': 'a', 'beta.test': 'b', 'delta.test': 'b' },
      hosts.map((h) => `${h}:127.0.0.2`),
      { perIpConcurrency: 1 },
    );
    try {
      await a.seed(hosts.flatMap((h) => [1, 2].map((i) => `${shared.origin(h)}/p${i}`)));
      await Promise.all([a.start(), b.start()]);
      await vi.waitFor(() => expect(shared.log.filter((e) => e.endMs > 0)).toHaveLength(12), WAIT);
      const sorted = shared.log.slice().sort((x, y) => x.startMs - y.startMs);
      for (let i = 1; i < sorted.length; i++) {
        // Each request starts only after the previous one at the address has ended.
        expect(sorted[i]!.startMs).toBeGreaterThanOrEqual(
          sorted[i - 1]!.endMs - shared.stampSlackMs(),
        );
      }
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await shared.close();
    }
  }, 30_000);

  it('frees the slot of a pass whose pod died once its lifetime is over', async () => {
    n += 1;
    const options = { redis, prefix: `ipg${n}`, concurrency: 1, passLifetimeMs: 400 };
    const dead = new IpGate({ ...options, pod: 'dead' });
    const alive = new IpGate({ ...options, pod: 'alive' });
    // Taken and never closed: the pod was killed mid-request.
    await dead.acquire('192.0.2.7');
    const startedAt = Date.now();
    const pass = await alive.acquire('192.0.2.7');
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(300);
    expect(alive.stats().waits).toBe(1);
    pass.done();
    // Nothing constrains the address any more: its keys leave Redis by themselves.
    await vi.waitFor(
      async () => expect(await redis.keys(`ipg${n}:{ip:192.0.2.7}:*`)).toEqual([]),
      WAIT,
    );
  });

  it('hands out no pass while an earlier one has not sent, then counts the delay from the send', async () => {
    n += 1;
    const options = { redis, prefix: `ipg${n}`, delayMs: 100 };
    const slow = new IpGate({ ...options, pod: 'slow' });
    const other = new IpGate({ ...options, pod: 'other' });
    // Taken, but its request is slow to leave (a long connect, a busy pod).
    const first = await slow.acquire('192.0.2.9');
    let secondAt = 0;
    const second = other.acquire('192.0.2.9').then((pass) => {
      secondAt = Date.now();
      return pass;
    });
    await new Promise((r) => setTimeout(r, 400));
    expect(secondAt).toBe(0);
    const sentAt = Date.now();
    first.sent(sentAt);
    (await second).done();
    expect(secondAt - sentAt).toBeGreaterThanOrEqual(100 - 5);
    first.done();
  });

  it('stops waiting when the signal aborts', async () => {
    n += 1;
    const gate = new IpGate({ redis, prefix: `ipg${n}`, pod: 'p', delayMs: 60_000 });
    await gate.acquire('192.0.2.8');
    const controller = new AbortController();
    const waiting = gate.acquire('192.0.2.8', controller.signal);
    controller.abort(new Error('stopping'));
    await expect(waiting).rejects.toThrow('stopping');
  });
});
