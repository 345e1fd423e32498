import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLettersResponse, domainResponse, domainsResponse } from '../src/schemas-domains.js';
import { call, type Fixture, startFixture, TOKEN } from './fixture.js';
import { expectSchema } from './schemas.js';

let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture();
  await fx.fetchSome(2);
});
afterAll(async () => fx?.close());

// biome-ignore lint/suspicious/noExplicitAny: rows are JSON checked against the frontier
async function walk(path: string, limit: number): Promise<any[]> {
  // biome-ignore lint/suspicious/noExplicitAny: as above
  const out: any[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const q: string = cursor ? `&cursor=${cursor}` : '';
    const { status, body } = await call(fx.base, `${path}limit=${limit}${q}`);
    expect(status).toBe(200);
    expect(body.items.length).toBeLessThanOrEqual(limit);
    out.push(...body.items);
    cursor = body.nextCursor;
    if (cursor === null) return out;
  }
  throw new Error('cursor never ended');
}

/**
 * Claims from the domain's owner and fails `n` of its URLs (giving every other lease
 * back); returns the URLs failed, in order.
 */
async function failIn(domain: string, n: number, retryable: boolean): Promise<string[]> {
  const owner = fx.ring.owner(domain);
  const failed: string[] = [];
  for (let round = 0; failed.length < n && round < 20; round++) {
    const { leases } = await fx.frontier.claim({ pod: owner, max: 100 });
    for (const lease of leases) {
      if (lease.domain === domain && failed.length < n) {
        await fx.frontier.fail(lease, { retryable, reason: 'http-503', status: 503 });
        failed.push(lease.url);
      } else {
        await fx.frontier.release(lease);
      }
    }
  }
  expect(failed).toHaveLength(n);
  return failed;
}

/** Every domain the fixture's frontier has seen (the depth index lists them all). */
async function everyDomain(): Promise<string[]> {
  const rows = await fx.frontier.inspector.domains({ limit: 100_000 });
  return rows.map((r) => r.domain);
}

/** Expected order of an index: by `count` descending, ties by domain descending (ZREVRANGE). */
function ranked<T extends { domain: string }>(rows: T[], count: (row: T) => number): T[] {
  return rows
    .filter((r) => count(r) > 0)
    .sort((a, b) => count(b) - count(a) || (a.domain < b.domain ? 1 : -1));
}

describe('GET /v1/domains', () => {
  it('lists domains deepest first with exact per-domain counters', async () => {
    const { status, body } = await call(fx.base, '/v1/domains?sort=depth&limit=10');
    expect(status).toBe(200);
    expectSchema(domainsResponse, body);
    expect(body.items.map((d: { domain: string }) => d.domain)).toEqual(
      fx.domains.map((d) => d.domain),
    );
    for (const row of body.items) {
      const seeded = fx.domains.find((d) => d.domain === row.domain)!;
      expect(row.queued).toBe(seeded.urls);
      expect(row.owner).toBe(seeded.owner);
      const stats = await fx.frontier.inspector.domainStats(row.domain);
      expect(row.fetched).toBe(stats.fetched);
    }
    expect(body.nextCursor).toBeNull();
  });

  it('pages by cursor through ties without gaps or repeats', async () => {
    // Five more domains of exactly 2 URLs each: a run of equal scores across pages.
    const tied = Array.from({ length: 5 }, (_, i) => `tie${i}.test`);
    await fx.frontier.enqueue(tied.flatMap((d) => [`http://${d}/a`, `http://${d}/b`]));
    const all = await walk('/v1/domains?sort=depth&', 100);
    for (const limit of [1, 2, 3]) {
      const paged = await walk('/v1/domains?sort=depth&', limit);
      expect(paged.map((d) => d.domain)).toEqual(all.map((d) => d.domain));
    }
    expect(new Set(all.map((d) => d.domain)).size).toBe(fx.domains.length + tied.length);
    const depths = all.map((d) => d.queued);
    expect(depths).toEqual([...depths].sort((a, b) => b - a));
  });

  it('sorts by fetched from the frontier index, paging through ties by cursor', async () => {
    // Uneven fetches on top of the fixture's: the order differs from the depth order.
    const extra = fx.domains[fx.domains.length - 1]!.domain;
    const owner = fx.ring.owner(extra);
    for (let round = 0; round < 20; round++) {
      const { leases } = await fx.frontier.claim({ pod: owner, max: 100 });
      for (const lease of leases) {
        if (lease.domain === extra) await fx.frontier.complete(lease);
        else await fx.frontier.release(lease);
      }
      if ((await fx.frontier.inspector.domainStats(extra)).fetched >= 3) break;
    }
    const stats = await Promise.all(
      (await everyDomain()).map((d) => fx.frontier.inspector.domainStats(d)),
    );
    const expected = ranked(stats, (s) => s.fetched);
    expect(expected.length).toBeGreaterThan(1);
    expect(expected[0]!.domain).toBe(extra);
    const all = await walk('/v1/domains?sort=fetched&', 100);
    expect(all.map((r) => [r.domain, r.fetched])).toEqual(
      expected.map((s) => [s.domain, s.fetched]),
    );
    for (const limit of [1, 2]) {
      const paged = await walk('/v1/domains?sort=fetched&', limit);
      expect(paged.map((r) => r.domain)).toEqual(all.map((r) => r.domain));
    }
    const first = await call(fx.base, '/v1/domains?sort=fetched&limit=1');
    expectSchema(domainsResponse, first.body);
    expect(first.body.sort).toBe('fetched');
    // A cursor of one sort is refused by another.
    const other = await call(fx.base, `/v1/domains?sort=errors&cursor=${first.body.nextCursor}`);
    expect(other.status).toBe(400);
    expect(other.body.code).toBe('SHARDLINE_ERR_API_CURSOR');
  });

  it('sorts by errors (failed attempts + dead letters) from the frontier index', async () => {
    const [a, b, c] = fx.domains.map((d) => d.domain);
    await failIn(a!, 3, true); // three retried failures
    await failIn(b!, 1, false); // one failure that dead-letters: counts twice
    await failIn(c!, 1, true);
    const stats = await Promise.all(
      (await everyDomain()).map((d) => fx.frontier.inspector.domainStats(d)),
    );
    const expected = ranked(stats, (s) => s.failed + s.dead);
    expect(expected.map((s) => s.domain)).toEqual(expect.arrayContaining([a, b, c]));
    const all = await walk('/v1/domains?sort=errors&', 100);
    expect(all.map((r) => [r.domain, r.failed, r.dead])).toEqual(
      expected.map((s) => [s.domain, s.failed, s.dead]),
    );
    const paged = await walk('/v1/domains?sort=errors&', 1);
    expect(paged.map((r) => r.domain)).toEqual(all.map((r) => r.domain));
  });

  it('rejects a forged cursor, a bad limit and an unknown sort with JSON errors', async () => {
    const forged = await call(fx.base, '/v1/domains?cursor=bm90LWEtY3Vyc29y');
    expect(forged.status).toBe(400);
    expect(forged.body.code).toBe('SHARDLINE_ERR_API_CURSOR');
    const limit = await call(fx.base, '/v1/domains?limit=0');
    expect(limit.status).toBe(400);
    expect(limit.body.code).toBe('SHARDLINE_ERR_API_VALIDATION');
    const unknown = await call(fx.base, '/v1/domains?sort=size');
    expect(unknown.status).toBe(400);
  });
});

describe('GET /v1/domains/{domain}', () => {
  it('returns the exact counters, owner and hosts of one domain', async () => {
    const seeded = fx.domains[0]!;
    const { status, body } = await call(fx.base, `/v1/domains/${seeded.domain}`);
    expect(status).toBe(200);
    expectSchema(domainResponse, body);
    const { hosts, ...stats } = await fx.frontier.inspector.domainStats(seeded.domain);
    expect(body).toMatchObject(stats);
    expect(body.hosts).toEqual(hosts);
    expect(body.owner).toBe(seeded.owner);
  });

  it('keys the domain as the frontier does: upper case, a trailing dot, Unicode', async () => {
    const { domain } = fx.domains[0]!;
    for (const typed of [domain.toUpperCase(), `${domain}.`]) {
      const { status, body } = await call(fx.base, `/v1/domains/${typed}`);
      expect({ typed, status, domain: body.domain }).toEqual({ typed, status: 200, domain });
    }
    await fx.frontier.enqueue(['http://bücher.example/a']);
    const unicode = await call(fx.base, `/v1/domains/${encodeURIComponent('Bücher.example')}`);
    expect(unicode.body).toMatchObject({ domain: 'xn--bcher-kva.example', queued: 1 });
    for (const typed of [`${domain.toUpperCase()}.`, `https://${domain.toUpperCase()}/a/b?c`]) {
      const located = await call(fx.base, `/v1/ring/locate?domain=${encodeURIComponent(typed)}`);
      expect(located.body).toMatchObject({ domain, owner: fx.domains[0]!.owner });
    }
    const bad = await call(fx.base, '/v1/domains/a..b.example');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      code: 'SHARDLINE_ERR_API_VALIDATION',
      message: expect.stringMatching(/^params\/domain: not a domain \(.+\): "a\.\.b\.example"$/),
    });
  });

  it('answers 404 with a JSON error for an unknown domain', async () => {
    const { status, body } = await call(fx.base, '/v1/domains/never-seen.example');
    expect(status).toBe(404);
    expect(body.code).toBe('SHARDLINE_ERR_API_UNKNOWN_DOMAIN');
  });
});

describe('GET /v1/dead-letters', () => {
  it("pages a domain's dead letters newest first, stable while new ones arrive", async () => {
    const domain = 'dead.test';
    await fx.frontier.enqueue(Array.from({ length: 5 }, (_, i) => `http://${domain}/x${i}`));
    const owner = fx.ring.owner(domain);
    const dead: string[] = [];
    // Claims from the owner, dead-letters `n` URLs of the domain, gives everything else back.
    const kill = async (n: number) => {
      for (let round = 0; n > 0 && round < 20; round++) {
        const { leases } = await fx.frontier.claim({ pod: owner, max: 100 });
        for (const lease of leases) {
          if (lease.domain === domain && n > 0) {
            await fx.frontier.fail(lease, { retryable: false, reason: 'http-404', status: 404 });
            dead.push(lease.url);
            n--;
          } else {
            await fx.frontier.release(lease);
          }
        }
      }
    };
    await kill(4);
    expect(dead).toHaveLength(4);
    const first = await call(fx.base, `/v1/dead-letters?domain=${domain}&limit=2`);
    expect(first.status).toBe(200);
    expectSchema(deadLettersResponse, first.body);
    expect(first.body.total).toBe(4);
    expect(first.body.items.map((d: { url: string }) => d.url)).toEqual([dead[3], dead[2]]);
    expect(first.body.items[0].reason).toBe('http-404');
    await kill(1); // arrives between pages: must not shift the next page
    const second = await call(
      fx.base,
      `/v1/dead-letters?domain=${domain}&limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(second.status).toBe(200);
    expect(second.body.items.map((d: { url: string }) => d.url)).toEqual([dead[1], dead[0]]);
    expect(second.body.nextCursor).toBeNull();
  });

  it('without a domain, lists the dead letters of every domain from the index, most first', async () => {
    for (const [domain, n] of [
      ['dead2.test', 2],
      ['dead3.test', 2],
      ['dead4.test', 1],
    ] as const) {
      await fx.frontier.enqueue(Array.from({ length: n }, (_, i) => `http://${domain}/y${i}`));
      await failIn(domain, n, false);
    }
    const expectedNow = async () => {
      const stats = await Promise.all(
        (await everyDomain()).map((d) => fx.frontier.inspector.domainStats(d)),
      );
      const held = ranked(stats, (s) => s.dead);
      const urls: string[] = [];
      for (const s of held) {
        urls.push(
          ...(await fx.frontier.inspector.deadLetters(s.domain, { limit: 1000 })).map((l) => l.url),
        );
      }
      return { held, urls };
    };
    const { held, urls } = await expectedNow();
    // dead.test (earlier test), dead2/dead3 (a tie), dead4 and a fixture domain.
    expect(held.length).toBeGreaterThanOrEqual(4);
    const whole = await call(fx.base, '/v1/dead-letters?limit=500');
    expect(whole.status).toBe(200);
    expectSchema(deadLettersResponse, whole.body);
    expect(whole.body).toMatchObject({ domain: null, total: null, domains: held.length });
    expect(whole.body.items.map((l: { url: string }) => l.url)).toEqual(urls);
    expect(whole.body.nextCursor).toBeNull();
    for (const limit of [1, 2, 3]) {
      const paged = await walk('/v1/dead-letters?', limit);
      expect(paged.map((l) => l.url)).toEqual(urls);
    }
    // A dead letter arriving mid-walk (which also moves its domain up the index) shifts
    // nothing: the walk resumes inside the domain it was in.
    const firstPage = await call(fx.base, '/v1/dead-letters?limit=2');
    expect(firstPage.body.items.map((l: { url: string }) => l.url)).toEqual(urls.slice(0, 2));
    const top = held[0]!.domain;
    await fx.frontier.enqueue([`http://${top}/late`]);
    await failIn(top, 1, false);
    const rest: string[] = [];
    for (let cursor = firstPage.body.nextCursor; cursor !== null; ) {
      const page = await call(fx.base, `/v1/dead-letters?limit=2&cursor=${cursor}`);
      expect(page.status).toBe(200);
      rest.push(...page.body.items.map((l: { url: string }) => l.url));
      cursor = page.body.nextCursor;
    }
    expect(rest).toEqual(urls.slice(2));
    // Requeued dead letters leave the listing with their domain.
    expect(await fx.frontier.requeueDeadLetters('dead3.test')).toBe(2);
    const after = await expectedNow();
    expect(after.held.map((s) => s.domain)).not.toContain('dead3.test');
    const again = await call(fx.base, '/v1/dead-letters?limit=500');
    expect(again.body.items.map((l: { url: string }) => l.url)).toEqual(after.urls);
    expect(again.body.domains).toBe(held.length - 1);
  });

  it('refuses an unknown domain and a cursor of another listing', async () => {
    expect((await call(fx.base, '/v1/dead-letters?domain=nope.example')).status).toBe(404);
    const one = await call(fx.base, '/v1/dead-letters?domain=dead.test&limit=1');
    const cross = await call(fx.base, `/v1/dead-letters?cursor=${one.body.nextCursor}`);
    expect(cross.status).toBe(400);
    expect(cross.body.code).toBe('SHARDLINE_ERR_API_CURSOR');
  });
});

describe('POST /v1/domains/{domain}/pause|resume', () => {
  it('pauses and resumes a domain with the token; claims skip it while paused', async () => {
    const seeded = fx.domains[0]!;
    const paused = await call(fx.base, `/v1/domains/${seeded.domain}/pause`, {
      method: 'POST',
      token: TOKEN,
    });
    expect(paused.status).toBe(200);
    expect(paused.body).toEqual({ domain: seeded.domain, paused: true });
    expect((await fx.frontier.inspector.domainStats(seeded.domain)).paused).toBe(true);
    const { leases } = await fx.frontier.claim({ pod: seeded.owner, max: 50 });
    expect(leases.some((l) => l.domain === seeded.domain)).toBe(false);
    for (const lease of leases) await fx.frontier.release(lease);
    const resumed = await call(fx.base, `/v1/domains/${seeded.domain}/resume`, {
      method: 'POST',
      token: TOKEN,
    });
    expect(resumed.body).toEqual({ domain: seeded.domain, paused: false });
    expect((await fx.frontier.inspector.domainStats(seeded.domain)).paused).toBe(false);
  });

  it('needs the token and a known domain', async () => {
    const d = fx.domains[0]!.domain;
    expect((await call(fx.base, `/v1/domains/${d}/pause`, { method: 'POST' })).status).toBe(401);
    expect(
      (await call(fx.base, `/v1/domains/${d}/pause`, { method: 'POST', token: 'wrong' })).status,
    ).toBe(401);
    const unknown = await call(fx.base, '/v1/domains/nope.example/pause', {
      method: 'POST',
      token: TOKEN,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('SHARDLINE_ERR_API_UNKNOWN_DOMAIN');
    expect((await fx.frontier.inspector.domainStats(d)).paused).toBe(false);
  });
});
