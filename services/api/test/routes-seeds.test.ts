import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedsResponse } from '../src/schemas-seeds.js';
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

describe('POST /v1/seeds input is taken as sent', () => {
  it('refuses a string where the array belongs instead of coercing it', async () => {
    const { status, body } = await seed({ urls: 'http://coerced.example/' });
    expect(status).toBe(400);
    expect(body.code).toBe('SHARDLINE_ERR_API_VALIDATION');
    expect(body.details[0]).toMatchObject({ path: 'body/urls', message: 'must be array' });
    const priority = await seed({ urls: [{ url: 'http://coerced.example/', priority: '5' }] });
    expect(priority.status).toBe(400);
    expect(await fx.frontier.inspector.hasDomain('coerced.example')).toBe(false);
  });

  it('refuses a body with invalid UTF-8 with its byte offset, never queueing U+FFFD', async () => {
    const head = Buffer.from('{"urls":["http://bytes.example/a');
    const raw = Buffer.concat([head, Buffer.from([0xff, 0x41]), Buffer.from('"]}')]);
    const response = await fetch(`${fx.base}/v1/seeds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: raw,
    });
    const body = (await response.json()) as { code: string; message: string };
    expect(response.status).toBe(400);
    expect(body.code).toBe('SHARDLINE_ERR_API_BAD_UTF8');
    expect(body.message).toContain(`offset ${head.length}`);
    expect(await fx.frontier.inspector.hasDomain('bytes.example')).toBe(false);
  });

  it('rejects a URL holding a lone surrogate by itself and queues the others', async () => {
    const raw = '{"urls":["http://surrogate.example/\\udc80","http://surrogate.example/ok"]}';
    const { status, body } = await call(fx.base, '/v1/seeds', { raw, token: TOKEN });
    expect(status).toBe(200);
    expect(body.results[0]).toMatchObject({
      status: 'rejected',
      code: 'SHARDLINE_ERR_API_BAD_UTF8',
    });
    expect(body.results[1]).toMatchObject({ index: 1, status: 'queued' });
    expect(body).toMatchObject({ queued: 1, rejected: 1 });
    const stats = await fx.frontier.inspector.domainStats('surrogate.example');
    expect(stats.queued).toBe(1);
  });

  it('answers 404 for an unknown route whatever the content type', async () => {
    for (const type of ['text/plain', 'application/xml', 'application/json']) {
      const r = await call(fx.base, '/v1/nope', {
        raw: type === 'application/json' ? '{"a":' : 'x',
        headers: { 'content-type': type },
      });
      expect([type, r.status, r.body.code]).toEqual([type, 404, 'SHARDLINE_ERR_API_NOT_FOUND']);
    }
  });
});
