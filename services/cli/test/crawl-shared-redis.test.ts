/**
 * Two `shardline crawl` on one data dir (two crawl ids) share the embedded Redis the first one
 * started. When that first crawl finished before the second, its stop shut the server down
 * under the second, which then retried its connection for ever. The second now starts the
 * server again from the data dir on the same port and finishes its crawl.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { runCliWith } from './run-cli-with.js';
import { after, type SlowPagesSite, slowSiteFlags, startSlowPagesSite } from './slow-pages-site.js';
import { spawnCli } from './spawn-cli.js';

let first: SlowPagesSite;
let second: SlowPagesSite;
let dir: string;
// The order the test needs, whatever the machine's load: the first crawl's slow pages answer
// once the second crawl fetches (it shares the first's Redis by then), the second's once the
// first crawl has exited (its server is gone by then).
let secondFetching: () => void = () => undefined;
const secondStarted = new Promise<void>((resolve) => {
  secondFetching = resolve;
});
let firstExited: () => void = () => undefined;
const firstGone = new Promise<void>((resolve) => {
  firstExited = resolve;
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'crawl-shared-redis-'));
  first = await startSlowPagesSite(() => secondStarted);
  second = await startSlowPagesSite(() => {
    secondFetching();
    return firstGone.then(() => after(500));
  });
});

afterAll(async () => {
  secondFetching();
  firstExited();
  await first.close();
  await second.close();
  rmSync(dir, { recursive: true, force: true });
});

const crawl = (crawlId: string, site: SlowPagesSite) => [
  'crawl',
  '--data-dir',
  dir,
  '--crawl-id',
  crawlId,
  ...slowSiteFlags(site, `${crawlId}.test`),
  '--exit-when-idle',
  `http://${crawlId}.test:${site.port}/`,
];

it('the second crawl on a data dir goes on when the crawl that started the embedded Redis ends first', async () => {
  const one = spawnCli(crawl('one', first));
  await vi.waitFor(() => expect(first.requests).toContain('/slow/1'), {
    timeout: 30_000,
    interval: 50,
  });
  const two = runCliWith(crawl('two', second), { killAfterMs: 60_000 });
  await vi.waitFor(() => expect(second.requests).toContain('/slow/1'), {
    timeout: 30_000,
    interval: 50,
  });
  const ended = await one.exited;
  firstExited();
  expect(ended.code).toBe(0);
  expect(JSON.parse(one.stdout().trim())).toMatchObject({ fetched: 4 });

  const { code, stdout, stderr } = await two;
  expect(stderr).toMatch(
    /the shardline process \d+ that ran the embedded Redis has exited: this process runs it now \(port \d+, same data\)/,
  );
  expect(code).toBe(0);
  // Every page of the second crawl fetched once: its leases and queue survived the restart.
  expect(JSON.parse(stdout.trim())).toMatchObject({ fetched: 4, summary: { pages: 4 } });
  expect([...second.requests].sort()).toEqual(['/', '/slow/1', '/slow/2', '/slow/3']);
}, 120_000);
