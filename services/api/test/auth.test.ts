import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Fixture, startFixture, TOKEN } from './fixture.js';

let open: Fixture;
let locked: Fixture;

beforeAll(async () => {
  [open, locked] = await Promise.all([startFixture({}, 1), startFixture({ token: undefined }, 1)]);
});
afterAll(async () => {
  await Promise.all([open?.close(), locked?.close()]);
});

const body = { urls: ['https://auth.example/'] };

describe('bearer token on mutating routes', () => {
  it('refuses with 403 and says to set API_TOKEN when no token is configured', async () => {
    const r = await call(locked.base, '/v1/seeds', { body, token: TOKEN });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('SHARDLINE_ERR_API_TOKEN_NOT_CONFIGURED');
    expect(r.body.message).toContain('API_TOKEN');
    const d = locked.domains[0]!.domain;
    expect((await call(locked.base, `/v1/domains/${d}/pause`, { method: 'POST' })).status).toBe(
      403,
    );
    expect(await locked.frontier.inspector.hasDomain('auth.example')).toBe(false);
    // Reads stay open.
    expect((await call(locked.base, '/v1/stats')).status).toBe(200);
  });

  it('answers 401 with WWW-Authenticate for a missing, wrong or malformed token', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: 'Bearer short' },
      { authorization: `Basic ${TOKEN}` },
    ];
    for (const headers of attempts) {
      const r = await call(open.base, '/v1/seeds', { body, headers });
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('SHARDLINE_ERR_API_UNAUTHORIZED');
      expect(r.headers.get('www-authenticate')).toContain('Bearer');
    }
    expect(await open.frontier.inspector.hasDomain('auth.example')).toBe(false);
  });

  it('accepts the right token (scheme case-insensitive)', async () => {
    const r = await call(open.base, '/v1/seeds', {
      body,
      headers: { authorization: `bearer ${TOKEN}` },
    });
    expect(r.status).toBe(200);
    expect(r.body.queued).toBe(1);
  });

  it('checks the token before reading the body', async () => {
    // An unauthenticated oversized body gets 401, not 413: it is never parsed.
    const r = await call(open.base, '/v1/seeds', { raw: 'x'.repeat(3 * 1024 * 1024) });
    expect(r.status).toBe(401);
  });
});
