/**
 * RobotsLoader fetching: what each status, an unreachable host, a redirect chain and an
 * oversized or binary file turn into, the beforeFetch and onFetch hooks on every hop, and
 * the options it refuses. Caching is in robots-loader-cache.test.ts.
 */
import { createServer } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { CrawlerErrorCode } from '../src/errors.js';
import { RobotsLoader } from '../src/robots-loader.js';
import type { RobotsLoaderOptions } from '../src/robots-loader-options.js';
import type { TestServer } from './fixtures/test-server.js';
import { HOUR, robotsHosts, UA } from './robots-loader-fixture.js';

describe('RobotsLoader', () => {
  const hosts = robotsHosts();
  const { behaviours, count, origin } = hosts;
  // Tests read what the server saw; it exists only once the fixture's beforeAll ran.
  let server: TestServer;
  let clock = Date.now();
  const loader = (extra: Partial<RobotsLoaderOptions> = {}) =>
    new RobotsLoader({ fetcher: hosts.fetcher, now: () => clock, ...extra });

  beforeAll(() => {
    server = hosts.server;
  });

  it('fetches, parses and then answers from memory', async () => {
    const robots = loader();
    const first = await robots.load(`${origin('rules.test')}/any/page?x=1`);
    expect(first.from).toBe('fetch');
    expect(first.origin).toBe(origin('rules.test'));
    expect(first.robots.isAllowed(`${origin('rules.test')}/no-bots/x`, UA)).toBe(false);
    expect(first.robots.isAllowed(`${origin('rules.test')}/private`, UA)).toBe(true); // our group wins
    expect(first.robots.isAllowed(`${origin('rules.test')}/private`, 'otherbot')).toBe(false);
    expect(first.robots.crawlDelayMs(UA)).toBe(2000);
    expect(first.expiresAtMs).toBe(clock + 24 * HOUR);
    expect(first.hops).toHaveLength(1);
    expect(first.hops[0]?.timings.sentAtMs).toBeDefined();
    const second = await robots.load(origin('rules.test'));
    expect(second.from).toBe('memory');
    expect(second.robots).toBe(first.robots);
    expect(count('rules.test')).toBe(1);
    const seen = server.requests.find((r) => r.host.startsWith('rules.test'));
    expect(seen?.headers['user-agent']).toBe(UA);
  });

  it('treats 4xx as allow-all for the full TTL', async () => {
    const robots = loader();
    for (const host of ['missing.test', 'forbidden.test']) {
      const result = await robots.load(origin(host));
      expect(result.robots.source).toBe('allow-all');
      expect(result.robots.isAllowed(`${origin(host)}/anything`, UA)).toBe(true);
      expect(result.expiresAtMs).toBe(clock + 24 * HOUR);
    }
  });

  it('treats 5xx as disallow-all and retries after unreachableRetryMs', async () => {
    let status = 500;
    behaviours.set('flaky.test', (res) => {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status === 200 ? 'User-agent: *\nDisallow: /recovered\n' : 'oops');
    });
    const robots = loader({ unreachableRetryMs: 60_000 });
    const down = await robots.load(origin('flaky.test'));
    expect(down.robots.source).toBe('disallow-all');
    expect(down.robots.isAllowed(`${origin('flaky.test')}/page`, UA)).toBe(false);
    expect(down.expiresAtMs).toBe(clock + 60_000);
    expect(down.unreachable).toBe(1);

    clock += 59_000;
    const cached = await robots.load(origin('flaky.test'));
    expect(cached).toMatchObject({ from: 'memory', unreachable: 1 });
    expect(count('flaky.test')).toBe(1);

    // Still down at the retry: the count goes on.
    clock += 2_000;
    expect(await robots.load(origin('flaky.test'))).toMatchObject({
      from: 'fetch',
      unreachable: 2,
    });

    status = 200;
    clock += 61_000;
    const up = await robots.load(origin('flaky.test'));
    expect(up.from).toBe('fetch');
    expect(up.unreachable).toBe(0);
    expect(count('flaky.test')).toBe(3);
    expect(up.robots.isAllowed(`${origin('flaky.test')}/page`, UA)).toBe(true);
    expect(up.robots.isAllowed(`${origin('flaky.test')}/recovered`, UA)).toBe(false);
  });

  it('honours a Retry-After longer than unreachableRetryMs on a 503', async () => {
    const result = await loader({ unreachableRetryMs: 60_000 }).load(origin('busy.test'));
    expect(result.robots.source).toBe('disallow-all');
    expect(result.expiresAtMs).toBe(clock + 900_000);
  });

  it('treats an unreachable host as disallow-all with the short TTL', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = s.address() as { port: number };
        s.close(() => resolve(p));
      });
    });
    const result = await loader().load(`http://down.test:${port}/`);
    expect(result.robots.source).toBe('disallow-all');
    expect(result.hops[0]?.error?.code).toBe('SHARDLINE_ERR_FETCH_CONNECT');
    expect(result.expiresAtMs).toBe(clock + 300_000);
  });

  it('follows a chain of five redirects but not six', async () => {
    const robots = loader();
    const five = await robots.load(origin('chain5.test'));
    expect(five.hops).toHaveLength(6);
    expect(five.robots.source).toBe('parsed');
    expect(five.robots.isAllowed(`${origin('chain5.test')}/end-of-chain`, UA)).toBe(false);
    expect(count('chain5.test')).toBe(6);

    const six = await robots.load(origin('chain6.test'));
    expect(six.hops).toHaveLength(6);
    expect(count('chain6.test')).toBe(6); // the sixth redirect was never requested
    expect(six.robots.source).toBe('allow-all');
  });

  it('passes every hop through beforeFetch, awaiting it, and reports hop timings', async () => {
    const gateCalls: string[] = [];
    const released: number[] = [];
    const reported: string[] = [];
    const robots = loader({
      beforeFetch: async (hopOrigin) => {
        gateCalls.push(hopOrigin);
        await new Promise((resolve) => setTimeout(resolve, 50));
        released.push(Date.now());
      },
      onFetch: (hop) => reported.push(`${hop.status} ${hop.origin}`),
    });
    const before = server.requests.length;
    const result = await robots.load(origin('hop-away.test'));
    expect(gateCalls).toEqual([origin('hop-away.test'), origin('target.test')]);
    expect(reported).toEqual([`302 ${origin('hop-away.test')}`, `200 ${origin('target.test')}`]);
    const arrivals = server.requests.slice(before).map((r) => r.atMs);
    expect(arrivals).toHaveLength(2);
    expect(arrivals[0]).toBeGreaterThanOrEqual(released[0]!);
    expect(arrivals[1]).toBeGreaterThanOrEqual(released[1]!);
    expect(result.origin).toBe(origin('hop-away.test'));
    expect(result.robots.isAllowed(`${origin('hop-away.test')}/moved-rules`, UA)).toBe(false);
  });

  it('does not cache when beforeFetch rejects', async () => {
    let refuse = true;
    const robots = loader({
      beforeFetch: async () => {
        if (refuse) throw new Error('gate closed');
      },
    });
    await expect(robots.load(origin('rules.test'))).rejects.toThrow('gate closed');
    refuse = false;
    expect((await robots.load(origin('rules.test'))).from).toBe('fetch');
  });

  it('parses only the first 500 KiB of a 2 MiB robots.txt', async () => {
    const result = await loader().load(origin('huge.test'));
    expect(result.robots.source).toBe('parsed');
    expect(result.robots.truncated).toBe(true);
    expect(result.robots.isAllowed(`${origin('huge.test')}/early`, UA)).toBe(false);
    expect(result.robots.isAllowed(`${origin('huge.test')}/late`, UA)).toBe(true);
  });

  it('survives a binary robots.txt', async () => {
    const result = await loader().load(origin('binary.test'));
    expect(result.robots.source).toBe('parsed');
    expect(typeof result.robots.isAllowed(`${origin('binary.test')}/x`, UA)).toBe('boolean');
  });

  it('counts a throwing onFetch observer and still answers', async () => {
    const robots = loader({
      onFetch: () => {
        throw new Error('observer bug');
      },
    });
    const result = await robots.load(origin('rules.test'));
    expect(result).toMatchObject({ from: 'fetch', unreachable: 0 });
    expect(robots.stats().onFetchErrors).toBe(1);
  });

  it('validates options and arguments', async () => {
    expect(() => loader({ ttlMs: 25 * HOUR })).toThrow(/RobotsLoaderOptions\.ttlMs/);
    expect(() => loader({ maxBytes: 1000 })).toThrow(/maxBytes/);
    expect(() => new RobotsLoader({} as RobotsLoaderOptions)).toThrow(
      expect.objectContaining({ code: CrawlerErrorCode.INVALID_OPTION }),
    );
    await expect(loader().load('ftp://example.com/')).rejects.toMatchObject({
      code: CrawlerErrorCode.INVALID_ARGUMENT,
    });
  });
});
