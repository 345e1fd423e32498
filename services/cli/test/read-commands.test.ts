import { RedisFrontier } from '@shardline/frontier';
import { HashRing } from '@shardline/ring';
import { RobotsTxt } from '@shardline/robots';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { hasStackTrace } from './run-cli.js';
import { runCliWith } from './run-cli-with.js';

const PREFIX = 'rc';
let server: RedisServer;
let redis: Redis;
let frontier: RedisFrontier;
let ring: HashRing;

/** Runs a command against the test Redis and parses its `--json` output. */
async function json<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const result = await runCliWith([...args, '--json', '--redis', server.url, '--prefix', PREFIX]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as T;
}

function human(args: string[]) {
  return runCliWith([...args, '--redis', server.url, '--prefix', PREFIX]);
}

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  // The same ring the CLI builds over the pods it sees (default vnodes and seed).
  ring = await HashRing.create([{ id: 'pod-a' }, { id: 'pod-b' }]);
  frontier = new RedisFrontier({
    redis,
    prefix: PREFIX,
    ownerOf: (domain) => ring.owner(domain),
    defaultDelayMs: 0,
  });
  await frontier.enqueue([
    'https://www.alpha.com/1',
    'https://www.alpha.com/2',
    'https://www.alpha.com/3',
    'https://alpha.com/4',
    'https://alpha.com/5',
    'https://beta.com/1',
    'https://beta.com/2',
    'https://beta.com/3',
    'https://a.gamma.com/x',
    'https://b.gamma.com/y',
  ]);
  // Both pods get a due index (so both are "seen"), and gamma's two URLs die.
  const gammaOwner = ring.owner('gamma.com');
  const { leases } = await frontier.claim({ pod: gammaOwner, max: 10 });
  for (const lease of leases) {
    if (lease.domain === 'gamma.com') {
      await frontier.fail(lease, {
        retryable: false,
        reason: 'http-404',
        message: 'HTTP 404',
        status: 404,
      });
    } else {
      await frontier.release(lease);
    }
  }
  await frontier.setHostPolicy('www.alpha.com', { crawlDelayMs: 5000 }, 'alpha.com');
  const now = Date.now();
  await redis.set(
    `${PREFIX}:robots:https://www.alpha.com`,
    JSON.stringify({
      v: 1,
      // A cap (maxCrawlDelayMs, 60 s by default) far above the file's own 5 s crawl-delay:
      // the CLI must show the delay of the crawler's group, not the cap.
      robots: RobotsTxt.parse('User-agent: *\nCrawl-delay: 5\nDisallow: /private\n').toJSON(),
      fetchedAtMs: now,
      expiresAtMs: now + 3_600_000,
    }),
  );
  // Results as the crawler's ResultSink writes them (field/value pairs).
  const result = (url: string, host: string, domain: string, status: number) =>
    redis.xadd(
      `${PREFIX}:results`,
      '*',
      ...['url', url, 'host', host, 'domain', domain, 'pod', ring.owner(domain)],
      ...['outcome', status < 500 ? 'fetched' : 'retry', 'status', String(status)],
      ...['endAtMs', String(Date.now()), 'durationMs', '12'],
      ...(status >= 500 ? ['errorCode', `http-${status}`, 'error', `HTTP ${status}`] : []),
    );
  await result('https://www.alpha.com/0', 'www.alpha.com', 'alpha.com', 200);
  await result('https://beta.com/0', 'beta.com', 'beta.com', 200);
  await result('https://www.alpha.com/9', 'www.alpha.com', 'alpha.com', 503);
});

afterAll(async () => {
  redis.disconnect();
  await server.stop();
});

describe('read commands (--json against frontier data)', () => {
  it('stats: the frontier counters and the domains index size', async () => {
    const stats = await json<Record<string, unknown>>(['stats']);
    const counters = await frontier.stats();
    expect(stats.queued).toBe(counters.queued);
    expect(stats.queued).toBe(8);
    expect(stats.dead).toBe(2);
    expect(stats.domains).toBe(3);
    expect(stats.pods).toBe(2);
    expect(stats.counters).toEqual(counters);
  });

  it('domains: deepest first, each row equal to frontier.domainStats, owners from the ring', async () => {
    const page = await json<{ items: Record<string, unknown>[] }>(['domains', '--limit', '10']);
    expect(page.items.map((d) => d.domain)).toEqual(['alpha.com', 'beta.com', 'gamma.com']);
    for (const row of page.items) {
      const s = await frontier.inspector.domainStats(String(row.domain));
      expect(row).toMatchObject({
        queued: s.queued,
        inFlight: s.inFlight,
        fetched: s.fetched,
        failed: s.failed,
        dead: s.dead,
        paused: s.paused,
        hostCount: s.hosts.length,
        owner: ring.owner(s.domain),
      });
    }
    const limited = await json<{ items: unknown[]; nextCursor: string }>([
      'domains',
      '--limit',
      '1',
    ]);
    expect(limited.items).toHaveLength(1);
    expect(typeof limited.nextCursor).toBe('string');
  });

  it('domain: counters, owner, per-host delay and who sets it, robots, recent statuses', async () => {
    const d = await json<{
      queued: number;
      owner: string;
      paused: boolean;
      hostCount: number;
      detail: {
        hosts: {
          host: string;
          queued: number;
          nextAllowedAtMs: number;
          delay: { effectiveMs: number; source: string; crawlDelayMs: number };
          robots: { origin: string; source: string; crawlDelayMs: number }[];
        }[];
        recent: { url: string; status: number }[];
      };
    }>(['domain', 'alpha.com']);
    const s = await frontier.inspector.domainStats('alpha.com');
    expect(d.queued).toBe(s.queued);
    expect(d.owner).toBe(ring.owner('alpha.com'));
    expect(d.paused).toBe(false);
    expect(d.hostCount).toBe(2);
    const www = d.detail.hosts.find((h) => h.host === 'www.alpha.com')!;
    expect(www.queued).toBe(3);
    expect(www.delay).toMatchObject({
      effectiveMs: 5000,
      source: 'robots crawl-delay',
      crawlDelayMs: 5000,
    });
    expect(www.robots).toEqual([
      expect.objectContaining({
        origin: 'https://www.alpha.com',
        source: 'parsed',
        crawlDelayMs: 5000,
        unreachable: 0,
      }),
    ]);
    const bare = d.detail.hosts.find((h) => h.host === 'alpha.com')!;
    expect(bare.delay.source).toBe('default');
    expect(bare.robots).toEqual([]);
    // Newest first, other domains' results filtered out.
    expect(d.detail.recent.map((r) => [r.url, r.status])).toEqual([
      ['https://www.alpha.com/9', 503],
      ['https://www.alpha.com/0', 200],
    ]);
  });

  it('domain: says why its URLs died (the newest dead letter) and where the rest are', async () => {
    const result = await human(['domain', 'gamma.com']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^newest dead +http-404: HTTP 404 \(.+ ago, https:\/\/[ab]\.gamma\.com\/[xy]; all: shardline dead-letters gamma\.com --prefix rc\)$/m,
    );
    const quiet = await human(['domain', 'beta.com']);
    expect(quiet.stdout).not.toMatch(/newest dead/);
    const data = await json<{ newestDeadLetter: { reason: string; message: string } | null }>([
      'domain',
      'gamma.com',
    ]);
    expect(data.newestDeadLetter).toMatchObject({ reason: 'http-404', message: 'HTTP 404' });
  });

  it('domain: an unknown domain is one error line, exit 1', async () => {
    const result = await human(['domain', 'nowhere.com']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: unknown domain: nowhere.com\n');
  });

  it('pods: both pods with their due-index size and keyspace share', async () => {
    const view = await json<{
      pods: { id: string; dueHosts: number; keyspaceShare: number; tokens: number }[];
    }>(['pods']);
    expect(view.pods.map((p) => p.id)).toEqual(['pod-a', 'pod-b']);
    for (const pod of view.pods) {
      expect(pod.dueHosts).toBe(
        (await frontier.inspector.dueHosts(pod.id, { limit: 100_000 })).length,
      );
      expect(pod.tokens).toBe(8192);
    }
    const shares = ring.shares();
    expect(view.pods.map((p) => p.keyspaceShare)).toEqual([
      shares.get('pod-a'),
      shares.get('pod-b'),
    ]);
  });

  it('ring (default subcommand) and ring show: tokens, keyspace share, live domains', async () => {
    const shown = await json<{
      members: { id: string; tokens: number; keyspaceShare: number; liveDomains: number }[];
      arcs?: unknown;
    }>(['ring']);
    expect(await json(['ring', 'show'])).toEqual(shown);
    expect(shown.arcs).toBeUndefined();
    expect(shown.members.map((m) => m.id)).toEqual(['pod-a', 'pod-b']);
    // Live domains (queued > 0): alpha and beta, split by their owners.
    for (const m of shown.members) {
      const expected = ['alpha.com', 'beta.com'].filter((d) => ring.owner(d) === m.id).length;
      expect(m.liveDomains).toBe(expected);
      expect(m.keyspaceShare).toBe(ring.shares().get(m.id));
    }
  });

  it('human tables: aligned columns with a header row', async () => {
    const result = await human(['domains']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^domain\s+owner\s+queued\s+in flight\s+fetched/);
    // Right-aligned numbers end where their header ends.
    const end = lines[0]!.indexOf('queued') + 'queued'.length;
    for (const line of lines.slice(1, 4)) expect(line.slice(0, end)).toMatch(/\d$/);
    const detail = await human(['domain', 'alpha.com']);
    expect(detail.stdout).toMatch(/^owner\s+pod-[ab]$/m);
    expect(detail.stdout).toMatch(/^www\.alpha\.com\s+3\s+0\s+\S.*robots crawl-delay/m);
    expect(detail.stdout).toContain('https://www.alpha.com: parsed, crawl-delay 5.0 s');
    // A recent result's error: its code and its words.
    expect(detail.stdout).toMatch(/https:\/\/www\.alpha\.com\/9 +http-503: HTTP 503$/m);
  });
});

describe('admin commands', () => {
  it('pause stops claims from the domain; resume lets them through again', async () => {
    const owner = ring.owner('beta.com');
    const paused = await human(['pause', 'beta.com']);
    expect(paused.code).toBe(0);
    expect(paused.stdout).toBe('beta.com: paused (3 queued)\n');
    expect((await frontier.inspector.domainStats('beta.com')).paused).toBe(true);
    const during = await frontier.claim({ pod: owner, max: 50 });
    expect(during.leases.filter((l) => l.domain === 'beta.com')).toEqual([]);
    for (const lease of during.leases) await frontier.release(lease);

    expect(await json(['resume', 'beta.com'])).toEqual({
      domain: 'beta.com',
      paused: false,
      queued: 3,
    });
    expect((await frontier.inspector.domainStats('beta.com')).paused).toBe(false);
    const after = await frontier.claim({ pod: owner, max: 50 });
    expect(after.leases.some((l) => l.domain === 'beta.com')).toBe(true);
    for (const lease of after.leases) await frontier.release(lease);
  });

  it('dead-letters: per domain, across domains, and --requeue puts them back', async () => {
    const list = await json<{
      total: number;
      items: { url: string; reason: string; status: number }[];
    }>(['dead-letters', 'gamma.com']);
    expect(list.total).toBe(2);
    expect(list.items.map((l) => [l.url, l.reason, l.status]).sort()).toEqual([
      ['https://a.gamma.com/x', 'http-404', 404],
      ['https://b.gamma.com/y', 'http-404', 404],
    ]);
    expect(await json(['dead-letters'])).toEqual({
      domains: [{ domain: 'gamma.com', dead: 2 }],
      more: false,
    });

    const requeued = await json(['dead-letters', '--requeue']);
    expect(requeued).toEqual({ requeued: 2, domains: [{ domain: 'gamma.com', requeued: 2 }] });
    const gamma = await frontier.inspector.domainStats('gamma.com');
    expect(gamma.queued).toBe(2);
    expect(await frontier.inspector.deadLetters('gamma.com')).toEqual([]);
    const none = await human(['dead-letters']);
    expect(none.stdout).toBe('no dead letters\n');
  });

  it('pause of an unknown domain is one error line, nothing written', async () => {
    const result = await human(['pause', 'nowhere.com']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: unknown domain: nowhere.com\n');
    expect(hasStackTrace(result.stderr)).toBe(false);
    expect(await frontier.inspector.hasDomain('nowhere.com')).toBe(false);
  });

  it('domains --sort fetched|errors and dead-letters without a domain read the frontier indexes', async () => {
    // Per host (www.alpha.com is left alone: its robots crawl-delay is 5 s): what to
    // complete and what to dead-letter.
    const plan = new Map([
      ['alpha.com', { ok: 2, dead: 0 }],
      ['beta.com', { ok: 1, dead: 2 }],
      ['a.gamma.com', { ok: 0, dead: 1 }],
    ]);
    for (let round = 0; round < 20; round++) {
      const left = [...plan.values()].some((p) => p.ok + p.dead > 0);
      if (!left) break;
      for (const pod of ['pod-a', 'pod-b']) {
        const { leases } = await frontier.claim({ pod, max: 50 });
        for (const lease of leases) {
          const p = plan.get(lease.host);
          if (p && p.ok > 0) {
            p.ok--;
            await frontier.complete(lease);
          } else if (p && p.dead > 0) {
            p.dead--;
            await frontier.fail(lease, { retryable: false, reason: 'http-410', status: 410 });
          } else await frontier.release(lease);
        }
      }
    }
    expect([...plan.values()].every((p) => p.ok + p.dead === 0)).toBe(true);
    const stats = await Promise.all(
      ['alpha.com', 'beta.com', 'gamma.com'].map((d) => frontier.inspector.domainStats(d)),
    );
    const order = (count: (s: (typeof stats)[number]) => number) =>
      stats
        .filter((s) => count(s) > 0)
        .sort((a, b) => count(b) - count(a) || (a.domain < b.domain ? 1 : -1))
        .map((s) => s.domain);
    for (const [sort, count] of [
      ['fetched', (s: (typeof stats)[number]) => s.fetched],
      ['errors', (s: (typeof stats)[number]) => s.failed + s.dead],
    ] as const) {
      const page = await json<{ sort: string; items: { domain: string; fetched: number }[] }>([
        'domains',
        '--sort',
        sort,
      ]);
      expect(page.sort).toBe(sort);
      expect(page.items.map((d) => d.domain)).toEqual(order(count));
    }
    expect(order((s) => s.fetched)).toEqual(['alpha.com', 'beta.com']);
    const table = await human(['domains', '--sort', 'fetched']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[1]).toMatch(/^alpha\.com\s/);

    const held = order((s) => s.dead);
    expect(held).toEqual(['beta.com', 'gamma.com']);
    expect(await json(['dead-letters'])).toEqual({
      domains: held.map((d) => ({ domain: d, dead: stats.find((s) => s.domain === d)!.dead })),
      more: false,
    });
    const first = await json<{ domains: { domain: string }[]; more: boolean }>([
      'dead-letters',
      '--limit',
      '1',
    ]);
    expect(first).toEqual({ domains: [{ domain: 'beta.com', dead: 2 }], more: true });
    const text = await human(['dead-letters', '--limit', '1']);
    expect(text.stdout).toContain('(first 1 domains shown; --limit N)');
  });

  it('domain: an archived or packed domain says so (it is missing from the listings)', async () => {
    // Its own prefix: a frontier that packs new domains and parks within 50 ms.
    const wide = new RedisFrontier({
      redis,
      prefix: 'rcw',
      ownerOf: () => 'pod-a',
      defaultDelayMs: 0,
      pinMs: 50,
      packAfterDomains: 0,
    });
    await wide.enqueue(['https://done.org/1', 'https://waiting.org/1']);
    const domain = (name: string) =>
      runCliWith(['domain', name, '--redis', server.url, '--prefix', 'rcw']);
    expect((await domain('waiting.org')).stdout).toMatch(
      /^packed +its URLs wait folded into one archive field until its owner claims them$/m,
    );
    for (let round = 0; round < 50; round++) {
      const { leases } = await wide.claim({ pod: 'pod-a', max: 10 });
      const done = leases.filter((l) => l.domain === 'done.org');
      await wide.completeMany(done.map((lease) => ({ lease })));
      for (const lease of leases.filter((l) => l.domain !== 'done.org')) await wide.release(lease);
      if ((await wide.inspector.domainStats('done.org')).archived) break;
      await new Promise((r) => setTimeout(r, 30));
    }
    const archived = await domain('done.org');
    expect(archived.stdout).toMatch(
      /^archived +idle, folded into one archive field \(not listed\); a new URL brings it back$/m,
    );
    expect(archived.stdout).not.toMatch(/^packed/m);
    expect((await human(['domain', 'alpha.com'])).stdout).not.toMatch(/^(archived|packed) /m);
  });
});
