/**
 * A pod that stalls (SIGSTOP here; a long pause or a frozen VM in life) for longer than a
 * restarted instance with its id waits before taking the session over. The replacement requeues
 * the stalled one's leases and crawls on. When the stalled process wakes, its next heartbeat
 * finds the id taken: it stops at once, exit 1, one line, without leaving (a leave would remove
 * the replacement's session). It used to overwrite the replacement's session and crawl on beside
 * it as the same pod. A URLFrontier node (`shardline urlfrontier`) stops serving the same way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { after, type SlowPagesSite, slowSiteFlags, startSlowPagesSite } from './slow-pages-site.js';
import { type LiveCli, spawnCli } from './spawn-cli.js';

const SLOW_MS = 1500;
const WAIT = { timeout: 30_000, interval: 50 };
let site: SlowPagesSite;
let redis: RedisServer;
let dir: string;
const live: LiveCli[] = [];

beforeAll(async () => {
  redis = await startRedis();
  dir = mkdtempSync(join(tmpdir(), 'crawl-superseded-'));
  site = await startSlowPagesSite(() => after(SLOW_MS));
});

afterAll(async () => {
  for (const cli of live) {
    cli.child.kill('SIGCONT');
    cli.kill();
  }
  await site.close();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
});

function crawl(seed: string, ...extra: string[]): LiveCli {
  const cli = spawnCli(
    [
      'crawl',
      '--pod-id',
      'twin',
      '--session-timeout-ms',
      '3000',
      ...slowSiteFlags(site),
      '--warc-dir',
      join(dir, 'warc'),
      ...extra,
      `http://site.test:${site.port}${seed}`,
    ],
    { env: { REDIS_URL: redis.url } },
  );
  live.push(cli);
  return cli;
}

const count = (path: string) => site.requests.filter((p) => p === path).length;

it('a stalled pod whose id was taken over stops at its next heartbeat, exit 1; the replacement crawls on', async () => {
  const stalled = crawl('/', '--exit-when-idle');
  await vi.waitFor(
    () => expect(site.requests.filter((p) => p.startsWith('/slow/'))).toHaveLength(3),
    WAIT,
  );
  stalled.child.kill('SIGSTOP');

  // The replacement finds the id's session silent, takes it over and requeues the leases.
  const replacement = crawl('/other');
  await vi.waitFor(() => expect(count('/other')).toBe(1), WAIT);
  await vi.waitFor(() => expect(count('/slow/3')).toBe(2), WAIT);

  stalled.child.kill('SIGCONT');
  const { code } = await stalled.exited;
  expect(code).toBe(1);
  expect(stalled.stderr()).toMatch(
    /^error: pod id twin was taken over by another instance \(\S+\/\d+\) while this process was stalled \(no heartbeat for \d+ ms\): stopping without leaving; the other instance goes on with the id \(SHARDLINE_ERR_MEMBERSHIP_SUPERSEDED\)$/m,
  );
  expect(stalled.stderr()).not.toMatch(/membership left|WARC close failed/);
  // Its WARC file was closed by the replacement (as a crashed run's): said in one line.
  expect(stalled.stderr()).toMatch(
    /WARC file already closed by the instance that took this pod id over/,
  );

  // The replacement kept its session (nothing expired it, nothing took it from it) and ends
  // its crawl normally on a signal.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  expect(replacement.stderr()).not.toMatch(
    /session had expired|SHARDLINE_ERR_MEMBERSHIP_SUPERSEDED/,
  );
  replacement.child.kill('SIGTERM');
  const ended = await replacement.exited;
  expect(ended.code).toBe(0);
  expect(JSON.parse(replacement.stdout().trim())).toMatchObject({ fetched: 4 });
  // Each slow page twice (the stalled pod's fetch never completed; the replacement's did),
  // nothing more: the stalled pod fetched nothing after it woke.
  expect([...site.requests].sort()).toEqual([
    '/',
    '/other',
    '/slow/1',
    '/slow/1',
    '/slow/2',
    '/slow/2',
    '/slow/3',
    '/slow/3',
  ]);
}, 120_000);

it('a stalled URLFrontier node whose id was taken over stops serving at its next heartbeat, exit 1', async () => {
  const node = (port: string) =>
    spawnCli(
      ['urlfrontier', '--pod-id', 'node-a', '--session-timeout-ms', '3000', '--port', port],
      { env: { REDIS_URL: redis.url, KEY_PREFIX: 'uf' } },
    );
  const stalled = node('0');
  live.push(stalled);
  await vi.waitFor(() => expect(stalled.stdout()).toMatch(/listening on/), WAIT);
  stalled.child.kill('SIGSTOP');
  const replacement = node('0');
  live.push(replacement);
  await vi.waitFor(() => expect(replacement.stdout()).toMatch(/listening on/), WAIT);

  stalled.child.kill('SIGCONT');
  const { code } = await stalled.exited;
  expect(code).toBe(1);
  expect(stalled.stderr()).toMatch(
    /^error: pod id node-a was taken over by another instance \(\S+\/\d+\) while this process was stalled .* \(SHARDLINE_ERR_MEMBERSHIP_SUPERSEDED\)$/m,
  );
  replacement.child.kill('SIGTERM');
  expect((await replacement.exited).code).toBe(0);
}, 60_000);
