import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedsResponse } from '../src/schemas.js';
import { call, type Fixture, startFixture, TOKEN } from './fixture.js';
import { expectSchema } from './schemas.js';

let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture({ maxSeedItems: 20, maxBodyBytes: 4096 }, 1);
});
afterAll(async () => fx?.close());

const seed = (body: unknown, token: string | undefined = TOKEN) =>
  call(fx.base, '/v1/seeds', { body, ...(token === undefined ? {} : { token }) });

describe('POST /v1/seeds', () => {
  it('enqueues through the frontier with one result per item, by index', async () => {
    const { status, body } = await seed({
      urls: [
        'https://Seed-One.example/a?utm_source=x',
        { url: 'https://seed-one.example/b', priority: 5, depth: 1, meta: 'from-api' },
        'https://seed-one.example/a',
        'ftp://seed-one.example/file',
        { url: 'https://seed-two.example/', priority: 1.5 },
        'not a url',
      ],
    });
    expect(status).toBe(200);
    expectSchema(seedsResponse, body);
    expect(body.results.map((r: { index: number; status: string }) => [r.index, r.status])).toEqual(
      [
        [0, 'queued'],
        [1, 'queued'],
        [2, 'duplicate'],
        [3, 'rejected'],
        [4, 'rejected'],
        [5, 'rejected'],
      ],
    );
    expect(body.results[0].domain).toBe('seed-one.example');
    expect(body.results[3].code).toMatch(/^SHARDLINE_ERR_/);
    expect(body.results[4].code).toBe('SHARDLINE_ERR_FRONTIER_PRIORITY');
    expect(body.results[5].reason.length).toBeGreaterThan(0);
    expect(body).toMatchObject({ queued: 2, duplicates: 1, rejected: 3, overCap: 0 });
    // What Redis holds: two queued URLs of the domain, in its owner's due index.
    const stats = await fx.frontier.inspector.domainStats('seed-one.example');
    expect(stats.queued).toBe(2);
    const owner = fx.ring.owner('seed-one.example');
    const due = await fx.frontier.inspector.dueHosts(owner, { limit: 100 });
    expect(due.some((h) => h.domain === 'seed-one.example')).toBe(true);
    const { leases } = await fx.frontier.claim({ pod: owner, max: 100 });
    const b = leases.find((l) => l.url === 'https://seed-one.example/b');
    expect(b).toMatchObject({ priority: 5, depth: 1, meta: 'from-api' });
    for (const lease of leases) await fx.frontier.release(lease);
  });

  it('refuses malformed bodies with 400 and the problems listed', async () => {
    const unknown = await seed({ urls: [{ url: 'https://x.example/', tags: ['a'] }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('SHARDLINE_ERR_API_VALIDATION');
    expect(
      unknown.body.details.some((d: { message: string }) => d.message.includes('"tags"')),
    ).toBe(true);
    const missing = await seed({});
    expect(missing.status).toBe(400);
    expect(missing.body.details[0].message).toContain('urls');
    const empty = await seed({ urls: [] });
    expect(empty.status).toBe(400);
    const tooMany = await seed({
      urls: Array.from({ length: 21 }, (_, i) => `https://m.example/${i}`),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.details[0].path).toBe('body/urls');
    expect(await fx.frontier.inspector.hasDomain('m.example')).toBe(false);
  });

  it('answers bad JSON with 400, a wrong type with 415 and an oversized body with 413', async () => {
    const bad = await call(fx.base, '/v1/seeds', { raw: '{"urls": [', token: TOKEN });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('SHARDLINE_ERR_API_BAD_JSON');
    const text = await call(fx.base, '/v1/seeds', {
      raw: 'https://a.example/',
      token: TOKEN,
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect(text.body.code).toBe('SHARDLINE_ERR_API_UNSUPPORTED_MEDIA_TYPE');
    const big = await seed({ urls: [`https://big.example/${'x'.repeat(5000)}`] });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('SHARDLINE_ERR_API_BODY_TOO_LARGE');
    expect(big.body.message).toContain('4096');
  });
});
