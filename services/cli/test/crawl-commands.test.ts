/**
 * Crawl ids from the command line: `seed`, `stats`, `pause` with `--crawl-id` act on one
 * crawl only; `crawl list` shows each crawl's counters; `crawl delete` removes exactly one
 * crawl's keys (checked with SCAN afterwards), refuses the default crawl, and a crawl being
 * deleted refuses seeds. Bad ids are one usage line.
 */
import { CrawlRegistry, crawlKeyPrefix, RedisFrontier } from '@shardline/frontier';
import { Membership } from '@shardline/membership';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { hasStackTrace } from './run-cli.js';
import { runCliWith } from './run-cli-with.js';

const PREFIX = 'cc';
let server: RedisServer;
let redis: Redis;

const cli = (args: string[], env?: Record<string, string>) =>
  runCliWith([...args, '--redis', server.url, '--prefix', PREFIX, '--pods', 'pod-a'], { env });
const admin = (args: string[]) => runCliWith([...args, '--redis', server.url, '--prefix', PREFIX]);

const allKeys = async () => {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, page] = await redis.scan(cursor, 'MATCH', `${PREFIX}:*`, 'COUNT', 1000);
    out.push(...page);
    cursor = next;
  } while (cursor !== '0');
  return out.sort();
};

const SEEDS = Array.from({ length: 12 }, (_, i) => `https://s${i}.example/`).join('\n');

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
});

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

describe('crawl ids on the command line', () => {
  it('seeds, counts and pauses per crawl', async () => {
    for (const id of ['alpha', 'beta']) {
      const seeded = await runCliWith(
        [
          'seed',
          '--crawl-id',
          id,
          '--json',
          '--no-progress',
          '--redis',
          server.url,
          '--prefix',
          PREFIX,
          '--pods',
          'pod-a',
        ],
        { stdin: SEEDS },
      );
      expect(seeded.stderr).toBe('');
      expect(JSON.parse(seeded.stdout)).toMatchObject({ queued: 12, duplicates: 0 });
    }
    // CRAWL_ID works like --crawl-id.
    const again = await runCliWith(
      [
        'seed',
        '--json',
        '--no-progress',
        '--redis',
        server.url,
        '--prefix',
        PREFIX,
        '--pods',
        'pod-a',
      ],
      { stdin: SEEDS, env: { CRAWL_ID: 'alpha' } },
    );
    expect(JSON.parse(again.stdout)).toMatchObject({ queued: 0, duplicates: 12 });

    const alpha = JSON.parse((await cli(['stats', '--crawl-id', 'alpha', '--json'])).stdout);
    const plain = JSON.parse((await cli(['stats', '--json'])).stdout);
    expect(alpha.queued).toBe(12);
    expect(plain.queued).toBe(0);

    expect((await cli(['pause', 's1.example', '--crawl-id', 'alpha'])).code).toBe(0);
    const a = new RedisFrontier({
      redis,
      prefix: PREFIX,
      crawlId: 'alpha',
      ownerOf: () => 'pod-a',
    });
    const b = new RedisFrontier({ redis, prefix: PREFIX, crawlId: 'beta', ownerOf: () => 'pod-a' });
    expect((await a.inspector.domainStats('s1.example')).paused).toBe(true);
    expect((await b.inspector.domainStats('s1.example')).paused).toBe(false);

    const list = JSON.parse((await admin(['crawl', 'list', '--json'])).stdout) as {
      crawls: { crawlId: string; queued: number; state: string }[];
    };
    expect(list.crawls.map((c) => [c.crawlId, c.state, c.queued])).toEqual([
      ['default', 'active', 0],
      ['alpha', 'active', 12],
      ['beta', 'active', 12],
    ]);
  });

  it('notes a crawl that does not exist yet on stderr; its reads are still answered', async () => {
    const typo = await cli(['stats', '--crawl-id', 'alpah', '--json']);
    expect(typo.code).toBe(0);
    expect(JSON.parse(typo.stdout)).toMatchObject({ queued: 0, domains: 0 });
    expect(typo.stderr).toBe(
      `note: crawl "alpah" does not exist in prefix ${PREFIX} yet (no pod or seed has written to it; \`shardline crawl list\` shows the crawls)\n`,
    );
    const known = [
      cli(['stats', '--crawl-id', 'alpha']),
      cli(['domains']),
      admin(['crawl', 'list']),
    ];
    for (const result of await Promise.all(known)) expect(result.stderr).toBe('');
  });

  it('names a bad crawl id in one usage line', async () => {
    for (const args of [['stats', '--crawl-id', 'Bad/ID'], ['stats']]) {
      const r = await cli(args, args.length === 1 ? { CRAWL_ID: 'no spaces' } : undefined);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(args.length === 1 ? /CRAWL_ID/ : /--crawl-id/);
      expect(hasStackTrace(r.stderr)).toBe(false);
    }
  });

  it('refuses to delete the default crawl and an unknown one', async () => {
    const d = await admin(['crawl', 'delete', 'default']);
    expect(d.code).toBe(1);
    expect(d.stderr).toMatch(/default crawl cannot be deleted/);
    const u = await admin(['crawl', 'delete', 'nope']);
    expect(u.code).toBe(1);
    expect(u.stderr).toMatch(/does not exist/);
  });

  it('deletes one crawl in batches; the other crawl and the politeness stay; a deleting crawl refuses seeds', async () => {
    const before = await allKeys();
    expect(before.some((k) => k.includes(':c:beta:'))).toBe(true);
    // A deletion that crashed after its first batch leaves the crawl marked `deleting`.
    await expect(
      new CrawlRegistry({ redis, prefix: PREFIX }).delete('beta', {
        batchDomains: 3,
        onBatch: () => {
          throw new Error('crash');
        },
      }),
    ).rejects.toThrow('crash');
    const refused = await runCliWith(
      [
        'seed',
        '--crawl-id',
        'beta',
        '--no-progress',
        '--redis',
        server.url,
        '--prefix',
        PREFIX,
        '--pods',
        'pod-a',
      ],
      { stdin: 'https://late.example/\n' },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/crawl "beta" is being deleted/);

    const done = await admin(['crawl', 'delete', 'beta', '--batch', '4']);
    expect(done.code).toBe(0);
    expect(done.stderr.match(/^deleted \d+ domains/gm)?.length).toBeGreaterThanOrEqual(2);
    expect(done.stdout).toMatch(/^crawl beta deleted: \d+ domains/);
    const after = await allKeys();
    expect(after.filter((k) => k.includes(':c:beta:'))).toEqual([]);
    expect(after).toEqual(before.filter((k) => !k.includes(':c:beta:')));
    expect(after.some((k) => k.includes(':c:alpha:'))).toBe(true);
    const list = JSON.parse((await admin(['crawl', 'list', '--json'])).stdout) as {
      crawls: { crawlId: string }[];
    };
    expect(list.crawls.map((c) => c.crawlId)).toEqual(['default', 'alpha']);
  });

  it('refuses to delete a crawl whose pods are live, unless --force', async () => {
    const crawlPrefix = crawlKeyPrefix(PREFIX, 'gamma');
    const client = new Redis(server.url);
    const frontier = new RedisFrontier({
      redis: client,
      prefix: PREFIX,
      crawlId: 'gamma',
      ownerOf: () => 'live-1',
    });
    await frontier.enqueue(['https://g.example/']);
    const membership = new Membership({
      redis: client,
      podId: 'live-1',
      prefix: crawlPrefix,
      frontier,
      sessionTimeoutMs: 10_000,
    });
    await membership.start();
    try {
      const refused = await admin(['crawl', 'delete', 'gamma']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /crawl "gamma" has 1 live pod\(s\) \(live-1\): stop them first, or pass --force/,
      );
      expect((await frontier.inspector.domainStats('g.example')).queued).toBe(1);
      const forced = await admin(['crawl', 'delete', 'gamma', '--force']);
      expect(forced.code).toBe(0);
      expect(forced.stdout).toMatch(/^crawl gamma deleted: 1 domain, \d+ keys \(/);
      expect(forced.stderr).toMatch(/^deleted 1 domain \(\d+ keys\)$/m);
      expect((await frontier.inspector.domainStats('g.example')).queued).toBe(0);
    } finally {
      await membership.stop({ graceful: false });
      client.disconnect();
    }
  });
});
