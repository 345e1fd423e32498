import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLettersResponse, domainResponse, domainsResponse } from '../src/schemas.js';
import { call, type Fixture, startFixture, TOKEN } from './fixture.js';
import { expectSchema } from './schemas.js';

let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture();
  await fx.fetchSome(2);
});
afterAll(async () => fx?.close());

async function walk(path: string, limit: number): Promise<{ domain: string; queued: number }[]> {
  const out: { domain: string; queued: number }[] = [];
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
      const stats = await fx.frontier.domainStats(row.domain);
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

  it('rejects a forged cursor, a bad limit and an unsupported sort with JSON errors', async () => {
    const forged = await call(fx.base, '/v1/domains?cursor=bm90LWEtY3Vyc29y');
    expect(forged.status).toBe(400);
    expect(forged.body.code).toBe('SHARDLINE_ERR_API_CURSOR');
    const limit = await call(fx.base, '/v1/domains?limit=0');
    expect(limit.status).toBe(400);
    expect(limit.body.code).toBe('SHARDLINE_ERR_API_VALIDATION');
    const sort = await call(fx.base, '/v1/domains?sort=fetched');
    expect(sort.status).toBe(501);
    expect(sort.body.code).toBe('SHARDLINE_ERR_API_SORT_UNSUPPORTED');
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
    const { hosts, ...stats } = await fx.frontier.domainStats(seeded.domain);
    expect(body).toMatchObject(stats);
    expect(body.hosts).toEqual(hosts);
    expect(body.owner).toBe(seeded.owner);
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

  it('requires a known domain', async () => {
    expect((await call(fx.base, '/v1/dead-letters')).status).toBe(400);
    expect((await call(fx.base, '/v1/dead-letters?domain=nope.example')).status).toBe(404);
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
    expect((await fx.frontier.domainStats(seeded.domain)).paused).toBe(true);
    const { leases } = await fx.frontier.claim({ pod: seeded.owner, max: 50 });
    expect(leases.some((l) => l.domain === seeded.domain)).toBe(false);
    for (const lease of leases) await fx.frontier.release(lease);
    const resumed = await call(fx.base, `/v1/domains/${seeded.domain}/resume`, {
      method: 'POST',
      token: TOKEN,
    });
    expect(resumed.body).toEqual({ domain: seeded.domain, paused: false });
    expect((await fx.frontier.domainStats(seeded.domain)).paused).toBe(false);
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
    expect((await fx.frontier.domainStats(d)).paused).toBe(false);
  });
});
