/**
 * The progress line off a terminal (`--progress` into a log): printed when it says something
 * new, not every second because the clock and a long wait tick.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CrawlerPod } from '@shardline/crawler';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { progressLine, progressNews } from '../src/lib/crawl-progress.js';
import { type LiveCli, spawnCli } from './spawn-cli.js';

let redis: RedisServer;
let site: Server;
let port: number;
let cli: LiveCli | undefined;

beforeAll(async () => {
  redis = await startRedis();
  // Pages that link to two more: a budget of one page an hour leaves them waiting.
  site = createServer((req, res) => {
    if (req.url === '/robots.txt') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<a href="/a">a</a> <a href="/b">b</a>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  port = (site.address() as AddressInfo).port;
});

afterAll(async () => {
  cli?.kill();
  await new Promise((resolve) => site.close(resolve));
  await redis.stop();
});

type PodStats = ReturnType<CrawlerPod['stats']>;
const stats = (fetched: number) => ({ fetched, inFlight: 0, retried: 1, dead: 0 }) as PodStats;

function line(fetched: number, elapsedMs: number, longestMs: number): string {
  return progressLine({
    stats: stats(fetched),
    queued: 11,
    elapsedMs,
    rate: 0,
    errors: 'errors 1 (http-500 1)',
    waiting: { waiting: 1, longestMs },
  });
}

describe('progress line', () => {
  it('names a long wait in the unit that reads, and not as politeness only', () => {
    expect(line(4, 24_000, 3_576_000)).toBe(
      'pages 4  0/s  queued 11  in flight 0  retries 1  dead 0  errors 1 (http-500 1)' +
        '  hosts not due yet 1 (longest wait 59.6 min)  24s',
    );
  });

  it('says nothing new while only the clock and the longest wait move', () => {
    // A host whose budget is spent for the hour: the same line but for the countdown.
    expect(progressNews(line(4, 25_000, 3_575_000))).toBe(progressNews(line(4, 24_000, 3_576_000)));
    expect(progressNews(line(5, 25_000, 3_575_000))).not.toBe(
      progressNews(line(4, 24_000, 3_576_000)),
    );
  });

  it('off a terminal, a host waiting an hour on its budget is one line, not one a second', async () => {
    cli = spawnCli(
      [
        'crawl',
        '--progress',
        '--no-warc',
        '--domain-budget',
        '1/1h',
        '--resolve',
        `site.test:${port}:127.0.0.1`,
        '--allow-private-addresses',
        `http://site.test:${port}/`,
      ],
      { env: { REDIS_URL: redis.url } },
    );
    // The seed is fetched (its claim is not spent on the robots.txt gap), then its links
    // wait for the budget's next window. (A tick during a claim may see the seed in flight
    // with the budget spent: those lines are not the ones counted.)
    const hourLines = () =>
      cli!
        .stderr()
        .split('\n')
        .filter((l) => /^pages 1 .*hosts not due yet 1 \(longest wait (59|60)\.\d min\)/.test(l));
    await vi.waitFor(() => expect(hourLines().length).toBeGreaterThan(0), {
      timeout: 30_000,
      interval: 100,
    });
    expect(hourLines()[0]).toMatch(/^pages 1 .* queued 2 /);
    // Once the rate has dropped to 0/s, four more ticks of the progress timer have nothing
    // new to say: nothing printed (before, a line a second as the wait counted down).
    await vi.waitFor(() => expect(hourLines().at(-1)).toMatch(/^pages 1 {2}0\/s /), {
      timeout: 10_000,
      interval: 100,
    });
    const printed = hourLines().length;
    await new Promise((resolve) => setTimeout(resolve, 4500));
    expect(hourLines()).toHaveLength(printed);
    cli.child.kill('SIGTERM');
    expect((await cli.exited).code).toBe(0);
  }, 60_000);

  it('a host busy on a slow page and a finished domain are not hosts waiting', async () => {
    // fast.test: one page, done at once (its entry stays pinned a while); slow.test: one page
    // answered after 4 s (its host sits at its lease deadline meanwhile).
    const slowSite = createServer((req, res) => {
      if (req.url === '/robots.txt') {
        res.writeHead(404).end();
        return;
      }
      const delayMs = req.headers.host?.startsWith('slow.test') ? 4000 : 0;
      setTimeout(
        () => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>x</p>'),
        delayMs,
      );
    });
    await new Promise<void>((resolve) => slowSite.listen(0, '127.0.0.1', resolve));
    const slowPort = (slowSite.address() as AddressInfo).port;
    try {
      cli = spawnCli(
        [
          'crawl',
          '--progress',
          '--no-warc',
          '--exit-when-idle',
          '--resolve',
          `fast.test:${slowPort}:127.0.0.1`,
          '--resolve',
          `slow.test:${slowPort}:127.0.0.1`,
          '--allow-private-addresses',
          `http://fast.test:${slowPort}/`,
          `http://slow.test:${slowPort}/`,
        ],
        { env: { REDIS_URL: redis.url, KEY_PREFIX: 'busy' } },
      );
      const { code } = await cli.exited;
      expect(code).toBe(0);
      const lines = cli
        .stderr()
        .split('\n')
        .filter((l) => l.startsWith('pages '));
      // Once fast.test was done and the slow page in flight, a line was printed, and it named
      // no waiting host (the first line may: both hosts wait out the robots.txt gap).
      const busy = lines.filter((l) => /^pages 1 .* {2}queued 0 {2}in flight 1 /.test(l));
      expect(busy.length).toBeGreaterThan(0);
      expect(busy.filter((l) => l.includes('hosts not due yet'))).toEqual([]);
    } finally {
      await new Promise((resolve) => slowSite.close(resolve));
    }
  }, 60_000);
});
