/**
 * A `shardline crawl` writing WARC files, stopped by a signal mid-crawl: the process ends within
 * its stop grace, the archive's writer thread closes its file first (renamed, nothing `.open`
 * left), and every page the server answered before the stop is a complete response record.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { warcioRecords } from '../../../packages/warc/test/warc-files.js';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { hasStackTrace } from './run-cli.js';
import { type LiveCli, spawnCli } from './spawn-cli.js';

let redis: RedisServer;
let site: Server;
let port: number;
let dir: string;
let cli: LiveCli | undefined;
// Pages the server answered, in order.
const served: string[] = [];

beforeAll(async () => {
  redis = await startRedis();
  dir = mkdtempSync(join(tmpdir(), 'crawl-warc-stop-'));
  // An endless chain of pages: the crawl is still going when the signal comes.
  site = createServer((req, res) => {
    if (req.url === '/robots.txt') {
      res.writeHead(404).end();
      return;
    }
    const n = Number(/^\/p\/(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
    served.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<a href="/p/${n + 1}">next</a><p>${'x'.repeat(2000)}</p>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  port = (site.address() as AddressInfo).port;
});

afterAll(async () => {
  cli?.kill();
  await new Promise((resolve) => site.close(resolve));
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
});

it.each(['SIGTERM', 'SIGINT'] as const)(
  '%s mid-crawl: ends within its grace, the WARC file closed and renamed, every served page archived',
  async (signal) => {
    const warcDir = join(dir, signal);
    served.length = 0;
    cli = spawnCli(
      [
        'crawl',
        '--warc-dir',
        warcDir,
        '--min-delay-ms',
        '100',
        '--stop-grace-ms',
        '2000',
        '--resolve',
        `site.test:${port}:127.0.0.1`,
        '--allow-private-addresses',
        '--prefix',
        `stop-${signal}`,
        `http://site.test:${port}/p/0`,
      ],
      { env: { REDIS_URL: redis.url } },
    );
    await vi.waitFor(() => expect(served.length).toBeGreaterThanOrEqual(5), {
      timeout: 30_000,
      interval: 100,
    });
    expect(readdirSync(warcDir).filter((f) => f.endsWith('.open'))).toHaveLength(1);
    const sentAt = Date.now();
    cli.child.kill(signal);
    const { code } = await cli.exited;
    expect(Date.now() - sentAt).toBeLessThan(2000 + 8000);
    expect(code).toBe(0);
    expect(hasStackTrace(cli.stderr())).toBe(false);

    const files = readdirSync(warcDir);
    expect(files.length).toBeGreaterThan(0);
    expect(files.every((f) => f.endsWith('.warc.gz'))).toBe(true);
    const records = (await Promise.all(files.map((f) => warcioRecords(join(warcDir, f))))).flat();
    const pages = records
      .filter((r) => r.type === 'response' && !r.url?.endsWith('/robots.txt'))
      .map((r) => new URL(r.url!).pathname);
    // A page the server answered just as the signal came may have been dropped unarchived
    // (its lease released, fetched again later); every other one is in the file.
    expect(pages.length).toBeGreaterThanOrEqual(served.length - 1);
    expect(new Set(pages)).toEqual(new Set(served.slice(0, pages.length)));
  },
  90_000,
);
