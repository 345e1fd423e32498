import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrawlerErrorCode } from '../src/errors.js';
import { Fetcher } from '../src/fetcher.js';
import type { RobotsCacheRecord, RobotsSharedCache } from '../src/robots-cache-record.js';
import { RobotsLoader } from '../src/robots-loader.js';
import type { RobotsLoaderOptions } from '../src/robots-loader-options.js';
import { startTestServer, type TestServer, testDns } from './fixtures/test-server.js';

const UA = 'shardline/0.1 (+https://example.com/bot)';
const HOUR = 3_600_000;

/** The interface as the pod will use it, over a Map instead of Redis. */
class MemorySharedCache implements RobotsSharedCache {
  readonly records = new Map<string, { record: RobotsCacheRecord; ttlMs: number }>();
  gets = 0;
  async get(origin: string): Promise<RobotsCacheRecord | undefined> {
    this.gets += 1;
    // Round-trip through JSON as a real store would.
    const hit = this.records.get(origin);
    return hit ? (JSON.parse(JSON.stringify(hit.record)) as RobotsCacheRecord) : undefined;
  }
  async set(origin: string, record: RobotsCacheRecord, ttlMs: number): Promise<void> {
    this.records.set(origin, { record, ttlMs });
  }
}

/** robots.txt behaviour per virtual host (the part of the Host header before the port). */
type Behaviour = (res: import('node:http').ServerResponse, hop: number) => void;

describe('RobotsLoader', () => {
  let server: TestServer;
  let fetcher: Fetcher;
  const behaviours = new Map<string, Behaviour>();
  const hits = new Map<string, number>();
  let clock = Date.now();

  const origin = (host: string) => `http://${host}:${server.port}`;
  const count = (host: string) => hits.get(host) ?? 0;
  const loader = (extra: Partial<RobotsLoaderOptions> = {}) =>
    new RobotsLoader({ fetcher, now: () => clock, ...extra });
  const robots200 =
    (body: string | Buffer, headers: Record<string, string> = {}): Behaviour =>
    (res) => {
      res.writeHead(200, { 'content-type': 'text/plain', ...headers });
      res.end(body);
    };

  beforeAll(async () => {
    server = await startTestServer();
    const route = (path: string) =>
      server.route(path, (req, res) => {
        const host = (req.headers.host ?? '').split(':')[0] ?? '';
        hits.set(host, count(host) + 1);
        const behaviour = behaviours.get(host);
        if (!behaviour) {
          res.writeHead(404);
          res.end();
          return;
        }
        const hop = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('hop') ?? '0');
        behaviour(res, hop);
      });
    route('/robots.txt');
    route('/moved');
    fetcher = new Fetcher({ dns: testDns(), contactUrl: 'https://example.com/bot' });

    behaviours.set(
      'rules.test',
      robots200(
        'User-agent: *\nDisallow: /private\n\nUser-agent: shardline\nDisallow: /no-bots\nCrawl-delay: 2\n',
      ),
    );
    behaviours.set('missing.test', (res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>nope</h1>');
    });
    behaviours.set('forbidden.test', (res) => {
      res.writeHead(403);
      res.end();
    });
    behaviours.set('busy.test', (res) => {
      res.writeHead(503, { 'retry-after': '900' });
      res.end();
    });
    const chain =
      (length: number): Behaviour =>
      (res, hop) => {
        if (hop < length) {
          res.writeHead(301, { location: `/moved?hop=${hop + 1}` });
          res.end();
        } else {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('User-agent: *\nDisallow: /end-of-chain\n');
        }
      };
    behaviours.set('chain5.test', chain(5));
    behaviours.set('chain6.test', chain(6));
    behaviours.set('hop-away.test', (res) => {
      res.writeHead(302, { location: `http://target.test:${server.port}/robots.txt` });
      res.end();
    });
    behaviours.set('target.test', robots200('User-agent: *\nDisallow: /moved-rules\n'));
    const padding = `# ${'x'.repeat(1022)}\n`.repeat(2048); // 2 MiB of comments
    behaviours.set(
      'huge.test',
      robots200(`User-agent: *\nDisallow: /early\n${padding}Disallow: /late\n`),
    );
    const binary = Buffer.alloc(64 * 1024);
    for (let i = 0; i < binary.length; i++) binary[i] = (i * 7919 + 13) % 256;
    behaviours.set(
      'binary.test',
      robots200(binary, { 'content-type': 'application/octet-stream' }),
    );
    behaviours.set('slow.test', (res) =>
      setTimeout(() => robots200('User-agent: *\nDisallow: /slow\n')(res, 0), 300),
    );
    behaviours.set('shared.test', robots200('User-agent: *\nDisallow: /shared\n'));
    behaviours.set(
      'maxage.test',
      robots200('User-agent: *\nDisallow: /m\n', { 'cache-control': 'public, max-age=60' }),
    );
    behaviours.set(
      'nostore.test',
      robots200('User-agent: *\nDisallow: /n\n', { 'cache-control': 'no-store' }),
    );
    behaviours.set(
      'longage.test',
      robots200('User-agent: *\nDisallow: /m\n', { 'cache-control': 'max-age=999999' }),
    );
  });

  afterAll(async () => {
    await fetcher.close();
    await server.close();
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

  it('keeps the unreachable count in the shared record, so another loader continues it', async () => {
    let status = 503;
    behaviours.set('shared-down.test', (res) => {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status === 200 ? 'User-agent: *\nDisallow: /x\n' : 'down');
    });
    const shared = new MemorySharedCache();
    const a = loader({ unreachableRetryMs: 60_000, sharedCache: shared });
    expect((await a.load(origin('shared-down.test'))).unreachable).toBe(1);
    const stored = shared.records.get(origin('shared-down.test'));
    expect(stored?.record).toMatchObject({ unreachable: 1, expiresAtMs: clock + 60_000 });
    // Kept past its expiry (not used then) so the next fetch can read the count.
    expect(stored!.ttlMs).toBeGreaterThan(60_000);

    // Another pod's loader, after the retry time: it fetches and counts on from the record.
    clock += 61_000;
    const b = loader({ unreachableRetryMs: 60_000, sharedCache: shared });
    expect(await b.load(origin('shared-down.test'))).toMatchObject({
      from: 'fetch',
      unreachable: 2,
    });
    expect(shared.records.get(origin('shared-down.test'))?.record.unreachable).toBe(2);
    // Within the retry time a third loader takes the answer, count included, from the record.
    const c = loader({ unreachableRetryMs: 60_000, sharedCache: shared });
    expect(await c.load(origin('shared-down.test'))).toMatchObject({
      from: 'shared-cache',
      unreachable: 2,
    });

    status = 200;
    clock += 61_000;
    const up = await a.load(origin('shared-down.test'));
    expect(up).toMatchObject({ from: 'fetch', unreachable: 0 });
    expect(shared.records.get(origin('shared-down.test'))?.record.unreachable).toBeUndefined();
    expect(count('shared-down.test')).toBe(3);
  });

  it("a caller's signal ends only its wait; the loader's signal abandons the request, caching nothing", async () => {
    behaviours.set('hang.test', (res) => {
      setTimeout(() => {
        if (!res.destroyed) {
          res.writeHead(500);
          res.end();
        }
      }, 1500);
    });
    const shared = new MemorySharedCache();
    const closing = new AbortController();
    const robots = loader({ sharedCache: shared, signal: closing.signal });
    const caller = new AbortController();
    const other = robots.load(origin('hang.test'));
    const mine = robots.load(origin('hang.test'), { signal: caller.signal });
    caller.abort();
    await expect(mine).rejects.toMatchObject({ code: CrawlerErrorCode.ABORTED });
    // The shared load goes on for the other caller until the loader itself is aborted.
    await new Promise((r) => setTimeout(r, 100));
    closing.abort();
    await expect(other).rejects.toMatchObject({ code: CrawlerErrorCode.ABORTED });
    expect(shared.records.has(origin('hang.test'))).toBe(false);
    expect(robots.stats().size).toBe(0);
    await expect(robots.load(origin('hang.test'), { signal: caller.signal })).rejects.toMatchObject(
      { code: CrawlerErrorCode.ABORTED },
    );
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

  it('coalesces 20 concurrent loads of one origin into one request', async () => {
    const robots = loader();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => robots.load(origin('slow.test'))),
    );
    expect(count('slow.test')).toBe(1);
    expect(new Set(results.map((r) => r.robots)).size).toBe(1);
    expect(robots.stats().coalesced).toBe(19);
    expect(results[0]?.robots.isAllowed(`${origin('slow.test')}/slow`, UA)).toBe(false);
  });

  it('answers from the shared cache without fetching, and refetches an expired record', async () => {
    const shared = new MemorySharedCache();
    const podA = loader({ sharedCache: shared });
    const fetched = await podA.load(origin('shared.test'));
    expect(fetched.from).toBe('fetch');
    const stored = shared.records.get(origin('shared.test'));
    expect(stored?.ttlMs).toBe(24 * HOUR);
    expect(count('shared.test')).toBe(1);

    const podB = loader({ sharedCache: shared });
    const fromShared = await podB.load(origin('shared.test'));
    expect(fromShared.from).toBe('shared-cache');
    expect(fromShared.expiresAtMs).toBe(fetched.expiresAtMs);
    expect(fromShared.robots.isAllowed(`${origin('shared.test')}/shared`, UA)).toBe(false);
    expect(count('shared.test')).toBe(1);

    // A record whose expiry passed (the store kept it too long) is not used.
    clock += 25 * HOUR;
    const podC = loader({ sharedCache: shared });
    expect((await podC.load(origin('shared.test'))).from).toBe('fetch');
    expect(count('shared.test')).toBe(2);
  });

  it('falls back to fetching when the shared cache fails', async () => {
    const broken: RobotsSharedCache = {
      get: async () => {
        throw new Error('redis down');
      },
      set: async () => {
        throw new Error('redis down');
      },
    };
    const robots = loader({ sharedCache: broken });
    const result = await robots.load(origin('rules.test'));
    expect(result.from).toBe('fetch');
    expect(result.robots.source).toBe('parsed');
    // Neither failure is thrown, and neither goes unseen: the read and the write are counted.
    expect(robots.stats().sharedCacheErrors).toBe(2);
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

  it('honours a shorter Cache-Control max-age (floored by minTtlMs) and caps a longer one at 24 h', async () => {
    const short = await loader({ minTtlMs: 0 }).load(origin('maxage.test'));
    expect(short.expiresAtMs).toBe(clock + 60_000);
    const floored = await loader({ minTtlMs: 120_000 }).load(origin('maxage.test'));
    expect(floored.expiresAtMs).toBe(clock + 120_000);
    const long = await loader().load(origin('longage.test'));
    expect(long.expiresAtMs).toBe(clock + 24 * HOUR);
  });

  it('a no-store robots.txt with minTtlMs 0 is not kept: the next load fetches again', async () => {
    const robots = loader({ minTtlMs: 0 });
    const first = await robots.load(origin('nostore.test'));
    expect(first.expiresAtMs).toBe(clock);
    expect((await robots.load(origin('nostore.test'))).from).toBe('fetch');
    expect(count('nostore.test')).toBe(2);
    expect(robots.stats().size).toBe(0);
  });

  it('bounds the in-process cache', async () => {
    const robots = loader({ maxEntries: 2 });
    await robots.load(origin('rules.test'));
    await robots.load(origin('missing.test'));
    await robots.load(origin('forbidden.test'));
    expect(robots.stats().size).toBe(2);
    const before = count('rules.test');
    expect((await robots.load(origin('rules.test'))).from).toBe('fetch');
    expect(count('rules.test')).toBe(before + 1);
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
