/**
 * Block and delay routes: each checked in the frontier's Redis state and in what a claim
 * hands out afterwards; mutations need the token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Fixture, startFixture, TOKEN } from './fixture.js';

let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture();
});
afterAll(async () => fx?.close());

describe('host control routes', () => {
  it('POST /v1/domains/{domain}/block blocks claims until the time; 0 lifts it', async () => {
    const { domain, owner } = fx.domains[0]!;
    const untilMs = Date.now() + 3_600_000;
    const blocked = await call(fx.base, `/v1/domains/${domain}/block`, {
      body: { untilMs },
      token: TOKEN,
    });
    expect(blocked.status).toBe(200);
    expect(blocked.body).toEqual({ domain, blockedUntilMs: untilMs });
    expect((await fx.frontier.inspector.domainStats(domain)).blockedUntilMs).toBe(untilMs);
    const during = await fx.frontier.claim({ pod: owner, max: 100 });
    expect(during.leases.some((l) => l.domain === domain)).toBe(false);
    for (const lease of during.leases) await fx.frontier.release(lease);

    const lifted = await call(fx.base, `/v1/domains/${domain}/block`, {
      body: { untilMs: 0 },
      token: TOKEN,
    });
    expect(lifted.body).toEqual({ domain, blockedUntilMs: 0 });
    const after = await fx.frontier.claim({ pod: owner, max: 100 });
    expect(after.leases.some((l) => l.domain === domain)).toBe(true);
    for (const lease of after.leases) await fx.frontier.release(lease);
  });

  it('blocks one host and sets its delay; the state is in Redis', async () => {
    const { domain } = fx.domains[1]!;
    const untilMs = Date.now() + 60_000;
    const blocked = await call(fx.base, `/v1/domains/${domain}/hosts/${domain}/block`, {
      body: { untilMs },
      token: TOKEN,
    });
    expect(blocked.body).toEqual({ domain, host: domain, blockedUntilMs: untilMs });
    const delay = await call(fx.base, `/v1/domains/${domain}/hosts/${domain}/delay`, {
      method: 'PUT',
      body: { delayMs: 2500 },
      token: TOKEN,
    });
    expect(delay.status).toBe(200);
    expect(delay.body).toEqual({ domain, host: domain, delayMs: 2500 });
    expect(await fx.frontier.inspector.hostState(domain, domain)).toMatchObject({
      blockedUntilMs: untilMs,
      delayMs: 2500,
    });
    const reset = await call(fx.base, `/v1/domains/${domain}/hosts/${domain}/delay`, {
      method: 'PUT',
      body: { delayMs: null },
      token: TOKEN,
    });
    expect(reset.body.delayMs).toBeNull();
  });

  it('keeps a delay typed in upper case under the host the crawler reads', async () => {
    const { domain } = fx.domains[3]!;
    const typed = `WWW.${domain.toUpperCase()}.`;
    const delay = await call(fx.base, `/v1/domains/${domain.toUpperCase()}/hosts/${typed}/delay`, {
      method: 'PUT',
      body: { delayMs: 1500 },
      token: TOKEN,
    });
    expect(delay.body).toEqual({ domain, host: `www.${domain}`, delayMs: 1500 });
    expect((await fx.frontier.inspector.hostState(domain, `www.${domain}`)).delayMs).toBe(1500);
    const keys = await fx.redis.keys(`*${typed.slice(0, -1)}*`);
    expect(keys).toEqual([]);
  });

  it('refuses without the token, a host outside the domain, and bad bodies', async () => {
    const { domain } = fx.domains[2]!;
    const path = `/v1/domains/${domain}/block`;
    expect((await call(fx.base, path, { body: { untilMs: 1 } })).status).toBe(401);
    const outside = await call(fx.base, `/v1/domains/${domain}/hosts/other.test/delay`, {
      method: 'PUT',
      body: { delayMs: 10 },
      token: TOKEN,
    });
    expect(outside.status).toBe(400);
    expect(outside.body.message).toBe(
      `host other.test is not in domain ${domain}: use the host's registrable domain`,
    );
    for (const body of [{ untilMs: -1 }, { untilMs: 'soon' }, {}]) {
      const bad = await call(fx.base, path, { body, token: TOKEN });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('SHARDLINE_ERR_API_VALIDATION');
    }
    expect((await fx.frontier.inspector.domainStats(domain)).blockedUntilMs).toBe(0);
    const unknown = await call(fx.base, '/v1/domains/nope.test/block', {
      body: { untilMs: 1 },
      token: TOKEN,
    });
    expect(unknown.status).toBe(404);
  });
});
