import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { hasStackTrace } from './run-cli.js';
import { runCliWith } from './run-cli-with.js';

let server: RedisServer;
let redis: Redis;
let dir: string;
let prefixes = 0;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  dir = mkdtempSync(join(tmpdir(), 'shardline-seed-'));
});

afterAll(async () => {
  redis.disconnect();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh key prefix per test, and a frontier over it that owns everything as pod-a. */
function fresh() {
  const prefix = `t${++prefixes}`;
  const frontier = new RedisFrontier({ redis, prefix, ownerOf: () => 'pod-a', defaultDelayMs: 0 });
  const seed = (args: string[], stdin?: string) =>
    runCliWith(['seed', '--redis', server.url, '--prefix', prefix, ...args], { stdin });
  return { prefix, frontier, seed };
}

describe('shardline seed', () => {
  it('queues URLs given as arguments and prints the summary', async () => {
    const { frontier, seed } = fresh();
    const result = await seed([
      '--pods',
      'pod-a',
      'https://example.com/a',
      'https://example.com/b',
      'https://www.example.com/a',
      'https://example.com/a',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('queued 3, duplicate 1, over-cap 0, rejected 0');
    const stats = await frontier.inspector.domainStats('example.com');
    expect(stats.queued).toBe(3);
    expect(stats.duplicates).toBe(1);
    expect(stats.hosts).toEqual(['example.com', 'www.example.com']);
  });

  it('reads a file with priority=N and tag=x per line; claims come by priority with the tags in meta', async () => {
    const { frontier, seed } = fresh();
    const file = join(dir, 'seeds.txt');
    writeFileSync(
      file,
      [
        '# seeds for the test',
        'https://prio.test/low',
        '',
        'https://prio.test/high  priority=9 tag=news tag=daily',
        'https://prio.test/mid\tpriority=5',
      ].join('\n'),
    );
    const result = await seed(['--pods', 'pod-a', '--file', file, '--tag', 'run1', '--json']);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ lines: 3, queued: 3, duplicates: 0, rejected: 0, overCap: 0 });
    const claimed: { url: string; priority: number; meta: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const { leases } = await frontier.claim({ pod: 'pod-a' });
      for (const l of leases) claimed.push({ url: l.url, priority: l.priority, meta: l.meta });
      // defaultDelayMs is 0, but claim reserves the slot until the lease is done.
      for (const l of leases) await frontier.complete(l);
    }
    expect(claimed).toEqual([
      { url: 'https://prio.test/high', priority: 9, meta: 'tags=run1,news,daily' },
      { url: 'https://prio.test/mid', priority: 5, meta: 'tags=run1' },
      { url: 'https://prio.test/low', priority: 0, meta: 'tags=run1' },
    ]);
  });

  it('streams 100,000 lines from stdin in batches and queues every one', async () => {
    const { frontier, seed } = fresh();
    const lines: string[] = [];
    for (let i = 0; i < 100_000; i++) lines.push(`https://h${i % 100}.bulk${i % 10}.com/p/${i}`);
    const result = await seed(['--pods', 'pod-a', '--json'], `${lines.join('\n')}\n`);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ lines: 100_000, queued: 100_000 });
    let queued = 0;
    for (let d = 0; d < 10; d++)
      queued += (await frontier.inspector.domainStats(`bulk${d}.com`)).queued;
    expect(queued).toBe(100_000);
    // Not a terminal: plain progress lines, no cursor-control sequences.
    expect(result.stderr).not.toContain('\x1b[');
  }, 60_000);

  it('reports each bad line with its number and reason, queues the good ones, and exits 1', async () => {
    const { frontier, seed } = fresh();
    const report = join(dir, 'report.jsonl');
    const input = [
      'https://good.test/1',
      'not a url',
      'ftp://good.test/file',
      '# comment',
      'https://good.test/2 priority=high',
      'https://good.test/3 colour=red',
      'https://good.test/1',
      'https://good.test/4',
    ].join('\n');
    const result = await seed(['--pods', 'pod-a', '--report', report], input);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('queued 2, duplicate 1, over-cap 0, rejected 4');
    const errLines = result.stderr.trimEnd().split('\n');
    expect(errLines.filter((l) => /^line \d+: /.test(l)).map((l) => l.split(':')[0])).toEqual([
      'line 2',
      'line 3',
      'line 5',
      'line 6',
    ]);
    expect(result.stderr).toContain('line 3: SHARDLINE_ERR_URL_SCHEME: ');
    expect(result.stderr).toContain('"ftp://good.test/file"');
    expect(errLines.at(-1)).toBe(
      'error: 4 lines rejected (the other 3 were accepted); --allow-rejects exits 0',
    );
    expect(hasStackTrace(result.stderr)).toBe(false);
    expect((await frontier.inspector.domainStats('good.test')).queued).toBe(2);
    const one = await seed(['--pods', 'pod-a'], 'https://good.test/5\nx://y');
    expect(one.stderr.trimEnd().split('\n').at(-1)).toBe(
      'error: 1 line rejected (the other line was accepted); --allow-rejects exits 0',
    );

    const rows = readFileSync(report, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows.map((r) => [r.line, r.input, r.code])).toEqual([
      [2, 'not a url', 'SHARDLINE_ERR_CLI_SEED_SYNTAX'],
      [3, 'ftp://good.test/file', 'SHARDLINE_ERR_URL_SCHEME'],
      [5, 'https://good.test/2 priority=high', 'SHARDLINE_ERR_CLI_SEED_SYNTAX'],
      [6, 'https://good.test/3 colour=red', 'SHARDLINE_ERR_CLI_SEED_SYNTAX'],
    ]);
    for (const row of rows)
      expect(typeof row.reason === 'string' && row.reason.length > 0).toBe(true);
  });

  it('--allow-rejects exits 0 with the same report', async () => {
    const { frontier, seed } = fresh();
    const result = await seed(
      ['--pods', 'pod-a', '--allow-rejects', '--json'],
      'https://ok.test/\nhttp://\n',
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ queued: 1, rejected: 1 });
    expect(result.stderr).toMatch(/^line 2: SHARDLINE_ERR_URL_\w+: /m);
    expect((await frontier.inspector.domainStats('ok.test')).queued).toBe(1);
  });

  it('refuses to seed when no pod can own the URLs, before queueing anything', async () => {
    const { frontier, seed } = fresh();
    const result = await seed(['https://orphan.test/']);
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: no crawler pod has registered .*--pods/);
    expect((await frontier.inspector.domainStats('orphan.test')).queued).toBe(0);
  });

  it('uses the pods seen in the frontier when --pods is not given', async () => {
    const { frontier, seed } = fresh();
    expect((await seed(['--pods', 'pod-x', 'https://first.test/'])).code).toBe(0);
    const result = await seed(['https://second.test/', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      queued: 1,
      owners: 'pods seen in the frontier',
    });
    // The only pod seen is pod-x, so its due index holds both domains.
    expect((await frontier.inspector.queuedDomainsOf('pod-x')).sort()).toEqual([
      'first.test',
      'second.test',
    ]);
  });

  it('says nothing was queued when every line is rejected', async () => {
    const { seed } = fresh();
    const result = await seed(['--pods', 'pod-a'], 'ftp://only.test/file\n');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('rejected 1 (1 line; owners from');
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(
      'error: 1 line rejected (nothing was queued); --allow-rejects exits 0',
    );
  });

  it('an unreadable --file is one error line and exit 1', async () => {
    const { seed } = fresh();
    const result = await seed(['--pods', 'pod-a', '--file', join(dir, 'missing.txt')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: cannot read ".*missing\.txt" \(ENOENT\)\n$/);
  });

  it('a directory given as the seed file is one error line before anything starts', async () => {
    const { seed } = fresh();
    const seeded = await seed(['--pods', 'pod-a', '--file', dir]);
    const line = `error: cannot read ${JSON.stringify(dir)} (EISDIR: a directory; give a file of one URL per line)\n`;
    expect({ code: seeded.code, stderr: seeded.stderr }).toEqual({ code: 1, stderr: line });
    // shardline crawl says it before it starts its embedded Redis and its pod.
    const dataDir = join(dir, 'crawl-data');
    const crawled = await runCliWith(['crawl', '--seeds-file', dir, '--data-dir', dataDir]);
    expect({ code: crawled.code, stderr: crawled.stderr }).toEqual({ code: 1, stderr: line });
    expect(existsSync(join(dataDir, 'redis'))).toBe(false);
  });
});

describe('shardline seed on a Redis user without FUNCTION', () => {
  it('queues by EVALSHA and notes the refused function library once', async () => {
    const { frontier, prefix } = fresh();
    await redis.call(
      'ACL',
      'SETUSER',
      'seednofn',
      'on',
      'nopass',
      '~*',
      '&*',
      '+@all',
      '-function',
    );
    const url = `redis://seednofn@${server.host}:${server.port}`;
    const result = await runCliWith([
      'seed',
      '--redis',
      url,
      '--prefix',
      prefix,
      '--pods',
      'pod-a',
      'https://nofn.example/a',
      'https://nofn.example/b',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('queued 2, duplicate 0');
    const notes = result.stderr.split('\n').filter((line) => line.includes('load-functions'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^note: frontier load-functions: NOPERM/);
    expect((await frontier.inspector.domainStats('nofn.example')).queued).toBe(2);
  });
});
