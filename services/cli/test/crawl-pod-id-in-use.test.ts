/**
 * Two `shardline crawl` on one data dir share its embedded Redis and, by default, one pod id
 * (the host name). The second used to take the first one's session over as a restart: it
 * requeued the first one's leases (the same pages fetched twice, by two processes at once) and
 * closed its open WARC file as if left by a crash. It is now refused in one line, and the
 * first crawl goes on untouched.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { runCliWith } from './run-cli-with.js';
import { type LiveCli, spawnCli } from './spawn-cli.js';

const SLOW_MS = 1500;
let site: Server;
let port: number;
let dir: string;
let first: LiveCli | undefined;
const requests: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'crawl-pod-id-'));
  // The front page links to slow pages: the first crawl holds leases when the second starts.
  site = createServer((req, res) => {
    const path = req.url ?? '';
    if (path === '/robots.txt') {
      res.writeHead(404).end();
      return;
    }
    requests.push(path);
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end([1, 2, 3].map((n) => `<a href="/slow/${n}">${n}</a>`).join(' '));
      return;
    }
    setTimeout(
      () => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>slow</p>'),
      SLOW_MS,
    );
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  port = (site.address() as AddressInfo).port;
});

afterAll(async () => {
  first?.kill();
  await new Promise((resolve) => site.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

it('a second crawl on the same data dir (same pod id) is refused; the first loses nothing', async () => {
  const dataDir = join(dir, 'data');
  const crawl = (seed: string) => [
    'crawl',
    '--data-dir',
    dataDir,
    '--min-delay-ms',
    '0',
    '--per-host-concurrency',
    '3',
    '--resolve',
    `site.test:${port}:127.0.0.1`,
    '--allow-private-addresses',
    '--exit-when-idle',
    seed,
  ];
  first = spawnCli(crawl(`http://site.test:${port}/`));
  await vi.waitFor(() => expect(requests.filter((p) => p.startsWith('/slow/'))).toHaveLength(3), {
    timeout: 30_000,
    interval: 50,
  });

  const second = await runCliWith(crawl(`http://site.test:${port}/other`), {
    killAfterMs: 30_000,
  });
  expect(second.code).toBe(2);
  // It left nothing: it held nothing in the registry (the first pod's session is untouched).
  expect(second.stderr).not.toMatch(/membership left|join had failed/);
  expect(second.stderr).toMatch(
    /^error: pod id \S+ is in use by another live pod \(\S+\/\d+\): give each pod its own id \(--pod-id, POD_ID\), or stop the other$/m,
  );

  const { code } = await first.exited;
  expect(first.stderr()).not.toMatch(/WARC|session had expired/);
  expect(code).toBe(0);
  expect(JSON.parse(first.stdout().trim())).toMatchObject({ fetched: 4, summary: { pages: 4 } });
  // Each page once: nothing of the first crawl was requeued and fetched again.
  expect([...requests].sort()).toEqual(['/', '/slow/1', '/slow/2', '/slow/3']);
}, 90_000);
