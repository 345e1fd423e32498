/**
 * `shardline items` and `shardline results`: what a crawl kept in its streams, read back as the
 * JSONL lines (with the stream id) after the crawl has ended, paged with --limit / --after, and
 * followed with --follow until Ctrl-C.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeItem } from '@shardline/crawler';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { type HtmlSite, startHtmlSite } from './html-site.js';
import { runCliWith } from './run-cli-with.js';
import { spawnCli } from './spawn-cli.js';

let server: RedisServer;
let redis: Redis;
let site: HtmlSite;
let dir: string;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  dir = mkdtempSync(join(tmpdir(), 'streams-command-'));
  // Three pages, each linking to the next.
  site = await startHtmlSite((path) => {
    const n = Number(path.slice(1) || 0);
    return `<title>page ${n}</title>${n < 2 ? `<a href="/${n + 1}">next</a>` : ''}`;
  });
});

afterAll(async () => {
  await site.close();
  await redis.quit();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[]) =>
  runCliWith(args, { env: { REDIS_URL: server.url }, killAfterMs: 30_000 });
const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

it('prints what a finished crawl kept: its items and results, paged by --limit and --after', async () => {
  const handler = join(dir, 'title.mjs');
  writeFileSync(
    handler,
    'export default (page, ctx) => ctx.push({ title: page.$("title").text() });\n',
  );
  const crawl = await cli([
    'crawl',
    '--prefix',
    'kept',
    '--allow-private-addresses',
    '--min-delay-ms',
    '0',
    '--handler',
    handler,
    '--exit-when-idle',
    '--idle-grace-ms',
    '300',
    `http://127.0.0.1:${site.port}/0`,
  ]);
  expect(crawl.code).toBe(0);

  const items = await cli(['items', '--prefix', 'kept']);
  expect(items.code).toBe(0);
  const all = lines(items.stdout);
  expect(all.map((line) => [line.url, line.item])).toEqual(
    [0, 1, 2].map((n) => [`http://127.0.0.1:${site.port}/${n}`, { title: `page ${n}` }]),
  );
  for (const line of all) {
    expect(line).toMatchObject({ id: expect.stringMatching(/^\d+-\d+$/), pod: expect.any(String) });
  }

  const first = lines((await cli(['items', '--prefix', 'kept', '--limit', '1'])).stdout);
  expect(first).toEqual([all[0]]);
  const rest = lines(
    (await cli(['items', '--prefix', 'kept', '--after', String(all[0]!.id)])).stdout,
  );
  expect(rest).toEqual(all.slice(1));

  const results = lines((await cli(['results', '--prefix', 'kept'])).stdout);
  expect(results.map((r) => [r.url, r.outcome, r.status])).toEqual(
    [0, 1, 2].map((n) => [`http://127.0.0.1:${site.port}/${n}`, 'fetched', 200]),
  );
});

it('says in one note when there is no stream yet, and exits 0', async () => {
  const none = await cli(['items', '--prefix', 'none']);
  expect(none.code).toBe(0);
  expect(none.stdout).toBe('');
  expect(none.stderr).toBe(
    'note: there is no stream none:items (items come from a page handler: crawl --handler FILE)\n',
  );
});

it('--follow prints entries as they come, until Ctrl-C', async () => {
  const follow = spawnCli(['items', '--prefix', 'live', '--follow'], {
    env: { REDIS_URL: server.url },
  });
  const record = { url: 'http://a.test/', pod: 'p1', atMs: 1, item: { n: 1 } };
  // Written after the follower started reading: it waits for them.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const id = await redis.xadd('live:items', '*', ...encodeItem(record));
  await vi.waitFor(() => expect(lines(follow.stdout())).toEqual([{ id, ...record }]), {
    timeout: 15_000,
    interval: 50,
  });
  follow.child.kill('SIGINT');
  const { code } = await follow.exited;
  expect(code).toBe(0);
  expect(follow.stderr()).toBe('');
}, 30_000);
