/**
 * Failures are visible (issue 14): a refused address is logged once per host and code with the
 * flag that allows it, the end-of-crawl summary lists errors by code with an example URL, and a
 * crawl whose seeds could not be fetched exits non-zero. `--exit-when-idle` keeps the URL after it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { runCliWith } from './run-cli-with.js';

let redis: RedisServer;
let web: Server;
let port = 0;
const seen: string[] = [];

beforeAll(async () => {
  redis = await startRedis();
  web = createServer((req, res) => {
    seen.push(req.url ?? '');
    if (req.url === '/robots.txt') {
      res.writeHead(404).end();
      return;
    }
    if (req.url?.startsWith('/gone')) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>gone</body></html>');
      return;
    }
    if (req.url === '/private') {
      res.writeHead(403, { 'content-type': 'text/html' }).end('<html><body>no</body></html>');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>ok</body></html>');
  });
  await new Promise<void>((done) => web.listen(0, '127.0.0.1', done));
  port = (web.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((done) => web.close(done));
  await redis.stop();
});

describe('crawl failure reporting', () => {
  it('a refused address: one line per host and code naming --allow-private-addresses, a summary, exit 1', async () => {
    const urls = Array.from({ length: 12 }, (_, i) => `http://127.0.0.1:${port}/p${i}`);
    const result = await runCliWith(
      ['crawl', '--prefix', 'refused', '--exit-when-idle', ...urls, '--idle-grace-ms', '300'],
      { env: { REDIS_URL: redis.url } },
    );
    expect(result.code).toBe(1);
    const failed = result.stderr.split('\n').filter((l) => l.includes('fetch failed'));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toContain('SHARDLINE_ERR_FETCH_DNS_REFUSED');
    expect(failed[0]).toContain('--allow-private-addresses');
    expect(result.stderr).toContain('127.0.0.1: 10 failures with SHARDLINE_ERR_FETCH_DNS_REFUSED');
    expect(result.stderr).toMatch(/crawl summary: 0 pages/);
    expect(result.stderr).toContain('no contact URL: set --contact-url / CONTACT_URL');
    expect(result.stderr).toMatch(
      new RegExp(
        `SHARDLINE_ERR_FETCH_DNS_REFUSED  12  e\\.g\\. http://127\\.0\\.0\\.1:${port}/p\\d+`,
      ),
    );
    expect(result.stderr).toMatch(/^error: nothing could be fetched from the seeds given/m);
    expect(JSON.parse(result.stdout.trim())).toMatchObject({
      fetched: 0,
      summary: { pages: 0, errors: { SHARDLINE_ERR_FETCH_DNS_REFUSED: { count: 12 } } },
    });
    expect(seen.filter((u) => u.startsWith('/p'))).toEqual([]);
  }, 90_000);

  it('with the address allowed the same crawl fetches, summarises and exits 0', async () => {
    const result = await runCliWith(
      [
        'crawl',
        '--prefix',
        'allowed',
        '--allow-private-addresses',
        '--min-delay-ms',
        '0',
        '--exit-when-idle',
        `http://127.0.0.1:${port}/ok`,
        '--idle-grace-ms',
        '300',
      ],
      { env: { REDIS_URL: redis.url } },
    );
    expect(result.stderr).not.toContain('error:');
    expect(result.code).toBe(0);
    expect(seen).toContain('/ok');
    expect(result.stderr).toMatch(/crawl summary: 1 pages/);
    expect(result.stderr).toContain('errors: none');
    // The finished host may still sit in the due index (until it is parked): no work left.
    expect(result.stderr).toContain('domains left with URLs queued or in flight: 0');
    expect(JSON.parse(result.stdout.trim())).toMatchObject({ summary: { domainsLeft: 0 } });
  }, 90_000);

  it('pages answered with an error status are counted in the summary by status, with an example', async () => {
    const result = await runCliWith(
      [
        'crawl',
        '--prefix',
        'statuses',
        '--allow-private-addresses',
        '--min-delay-ms',
        '0',
        '--exit-when-idle',
        `http://127.0.0.1:${port}/fine`,
        `http://127.0.0.1:${port}/gone1`,
        `http://127.0.0.1:${port}/gone2`,
        `http://127.0.0.1:${port}/private`,
        '--idle-grace-ms',
        '300',
      ],
      { env: { REDIS_URL: redis.url } },
    );
    expect(result.code).toBe(0);
    expect(seen).toEqual(expect.arrayContaining(['/gone1', '/gone2', '/private']));
    expect(result.stderr).toMatch(/crawl summary: 4 pages/);
    // Fetched pages, not failed fetches: the errors line stays as it was.
    expect(result.stderr).toContain('errors: none');
    expect(result.stderr).toContain('pages with an error status:');
    expect(result.stderr).toMatch(
      new RegExp(`404  2  e\\.g\\. http://127\\.0\\.0\\.1:${port}/gone[12]`),
    );
    expect(result.stderr).toContain(`403  1  e.g. http://127.0.0.1:${port}/private`);
    expect(JSON.parse(result.stdout.trim())).toMatchObject({
      summary: {
        pages: 4,
        errors: {},
        errorStatuses: { '404': { count: 2 }, '403': { count: 1 } },
      },
    });
  }, 90_000);

  it('a crawl run again on seeds it fetched says they were seen before, and how to fetch them again', async () => {
    const crawl = () =>
      runCliWith(
        [
          'crawl',
          '--prefix',
          'again',
          '--allow-private-addresses',
          '--exit-when-idle',
          `http://127.0.0.1:${port}/again`,
          '--idle-grace-ms',
          '300',
        ],
        { env: { REDIS_URL: redis.url } },
      );
    expect((await crawl()).code).toBe(0);
    const again = await crawl();
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /\nerror: nothing new to fetch: the seeds given were seen before in this crawl \(1 duplicate\), which fetches a URL once; to fetch them again, start a new crawl with another --crawl-id \(`shardline crawl list` shows the crawls\)\n$/,
    );
    expect(seen.filter((url) => url === '/again')).toHaveLength(1);
  });

  /**
   * `shardline crawl --handler` of a module of `source` (in a temporary directory) on `urls`:
   * no retry, no delay, exiting when idle; `extra` flags go before the URLs.
   */
  async function crawlWithHandler(
    prefix: string,
    source: string,
    urls: string[],
    extra: string[] = [],
  ) {
    const dir = mkdtempSync(join(tmpdir(), 'report-handler-'));
    const handler = join(dir, 'handler.mjs');
    writeFileSync(handler, source);
    try {
      return await runCliWith(
        [
          'crawl',
          '--prefix',
          prefix,
          '--allow-private-addresses',
          '--min-delay-ms',
          '0',
          '--max-retries',
          '0',
          '--handler',
          handler,
          ...extra,
          '--exit-when-idle',
          ...urls,
          '--idle-grace-ms',
          '300',
        ],
        { env: { REDIS_URL: redis.url }, killAfterMs: 30_000 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('a handler that leaves a timer or a hung call behind does not hold the finished crawl open', async () => {
    // A database pool's keep-alive, opened when the module loads; and a call that never ends.
    const source = [
      'setInterval(() => {}, 1000);',
      'export default async (page, ctx) => {',
      "  if (page.url.endsWith('/hang')) await new Promise((r) => setTimeout(r, 3_600_000));",
      '  ctx.push({ seen: page.url });',
      '};',
      '',
    ].join('\n');
    const result = await crawlWithHandler(
      'held',
      source,
      [`http://127.0.0.1:${port}/kept`, `http://127.0.0.1:${port}/hang`],
      ['--handler-timeout-ms', '500'],
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout.trim())).toMatchObject({
      items: 1,
      summary: { pages: 1, deadLetters: 1 },
    });
  });

  it('pages the handler failed on: the error names the handler and quotes its error on one line', async () => {
    const result = await crawlWithHandler(
      'handler',
      "export default () => { throw new Error('no title\\n  on this page'); };\n",
      [`http://127.0.0.1:${port}/h1`],
    );
    expect(seen).toContain('/h1');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `error: no page from the seeds given got through the page handler: SHARDLINE_ERR_HANDLER (e.g. http://127.0.0.1:${port}/h1: page handler: no title on this page); the page handler threw or ran past --handler-timeout-ms: fix the handler (--handler)\n`,
    );
    expect(JSON.parse(result.stdout.trim())).toMatchObject({
      summary: {
        errors: {
          SHARDLINE_ERR_HANDLER: { count: 1, error: 'page handler: no title on this page' },
        },
      },
    });
    // The summary says where the dead letter is, with the flags that find this crawl's keys.
    expect(result.stderr).toContain(
      '  dead letters: 1  (which, and why: shardline dead-letters --prefix handler; add --requeue to retry them)\n',
    );
    // The dead letter keeps the handler's words, not only the code.
    const env = { env: { REDIS_URL: redis.url } };
    const letters = await runCliWith(
      ['dead-letters', '127.0.0.1', '--prefix', 'handler', '--json'],
      env,
    );
    expect(JSON.parse(letters.stdout).items).toMatchObject([
      {
        url: `http://127.0.0.1:${port}/h1`,
        reason: 'SHARDLINE_ERR_HANDLER',
        message: 'page handler: no title on this page',
      },
    ]);
    const table = await runCliWith(['dead-letters', '127.0.0.1', '--prefix', 'handler'], env);
    expect(table.stdout).toMatch(
      /SHARDLINE_ERR_HANDLER .*\/h1 +page handler: no title on this page\n/,
    );
  }, 90_000);

  it('seeds typed without a scheme: the URL meant in each warning, then one line, exit 1', async () => {
    // No --exit-when-idle: a crawl none of whose seeds was taken stops at once, not idles.
    const result = await runCliWith(
      ['crawl', '--prefix', 'schemeless', 'example.com', 'www.example.org/a'],
      { env: { REDIS_URL: redis.url } },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'seed arg 1 rejected: not a valid absolute URL (did you mean \\"https://example.com\\"?)',
    );
    expect(result.stderr).toMatch(
      /^error: nothing to fetch: every seed given was rejected \(2; the warnings above say why\)$/m,
    );
  }, 90_000);
});
