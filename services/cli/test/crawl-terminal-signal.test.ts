/**
 * Ctrl-C at a terminal signals the whole foreground process group, not one process. A
 * `shardline crawl` on its embedded Redis must still stop in order: its redis-server is not
 * a member of that group, so it outlives the pod's stop (leases in flight finish and are
 * recorded, the pod leaves membership) and is then shut down by the crawl, never orphaned.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { runCliWith } from './run-cli-with.js';
import { isAlive, type LiveCli, spawnCli } from './spawn-cli.js';

const SLOW_MS = 1500;
let site: Server;
let port: number;
let dir: string;
let cli: LiveCli | undefined;
let redisPid = 0;
const started: string[] = [];
const answered: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'crawl-terminal-signal-'));
  // The front page links to slow pages: several are in flight when the signal comes.
  site = createServer((req, res) => {
    const path = req.url ?? '';
    if (path === '/robots.txt') {
      res.writeHead(404).end();
      return;
    }
    started.push(path);
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end([1, 2, 3, 4, 5, 6].map((n) => `<a href="/slow/${n}">${n}</a>`).join(' '));
      answered.push(path);
      return;
    }
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>slow</p>');
      answered.push(path);
    }, SLOW_MS);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  port = (site.address() as AddressInfo).port;
});

afterAll(async () => {
  if (cli?.child.pid !== undefined) {
    try {
      process.kill(-cli.child.pid, 'SIGKILL');
    } catch {
      // The group is gone.
    }
  }
  if (redisPid) {
    try {
      process.kill(redisPid, 'SIGKILL');
    } catch {
      // Stopped by the crawl, as it should be.
    }
  }
  await new Promise((resolve) => site.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

it('SIGINT to the crawl’s process group (Ctrl-C) with fetches in flight: the pod stops on a live Redis, then the Redis', async () => {
  const dataDir = join(dir, 'data');
  cli = spawnCli(
    [
      'crawl',
      '--data-dir',
      dataDir,
      '--no-warc',
      '--min-delay-ms',
      '0',
      '--per-host-concurrency',
      '3',
      '--stop-grace-ms',
      '8000',
      '--resolve',
      `site.test:${port}:127.0.0.1`,
      '--allow-private-addresses',
      `http://site.test:${port}/`,
    ],
    { detached: true },
  );
  await vi.waitFor(
    () => expect(started.filter((p) => p.startsWith('/slow/')).length).toBeGreaterThanOrEqual(3),
    { timeout: 30_000, interval: 50 },
  );
  redisPid = (
    JSON.parse(readFileSync(join(dataDir, 'redis', 'redis.port'), 'utf8')) as {
      pid: number;
    }
  ).pid;
  const inFlight = started.filter((p) => p.startsWith('/slow/') && !answered.includes(p));
  expect(inFlight.length).toBeGreaterThanOrEqual(1);
  process.kill(-cli.child.pid!, 'SIGINT');
  const { code } = await cli.exited;

  const stderr = cli.stderr();
  expect(stderr).not.toMatch(/redis unreachable|stop did not finish/);
  expect(stderr).toContain('crawl summary:');
  expect(code).toBe(0);
  // The fetches in flight at the signal finished within the grace and were recorded as
  // fetched; nothing is left leased to the pod that stopped.
  for (const path of inFlight) expect(answered).toContain(path);
  await vi.waitFor(() => expect(isAlive(redisPid)).toBe(false), { timeout: 15_000, interval: 100 });
  const stats = await runCliWith(['stats', '--data-dir', dataDir, '--json']);
  expect(stats.code).toBe(0);
  const counters = JSON.parse(stats.stdout) as { inFlight: number; counters: { fetched: number } };
  expect(counters.inFlight).toBe(0);
  expect(counters.counters.fetched).toBe(answered.length);
}, 90_000);
