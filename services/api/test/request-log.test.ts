/** What the API logs per request: the dashboard's polls stay out of the info log. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Fixture, startFixture, TOKEN } from './fixture.js';

let fx: Fixture;
const lines: { level: number; msg: string; method?: string; url?: string }[] = [];
const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);

beforeAll(async () => {
  process.on('warning', onWarning);
  fx = await startFixture(
    {
      logger: { level: 'info', stream: { write: (line: string) => lines.push(JSON.parse(line)) } },
    },
    1,
  );
});
afterAll(async () => {
  process.off('warning', onWarning);
  await fx?.close();
});

const INFO = 30;

describe('request log', () => {
  it('logs polls (GET) below info and mutations at info', async () => {
    for (const path of ['/v1/stats', '/v1/pods', '/v1/ring', '/v1/domains', '/', '/metrics']) {
      expect((await call(fx.base, path)).status).toBe(200);
    }
    expect(lines.filter((l) => l.level >= INFO && l.method === 'GET')).toEqual([]);
    expect(lines.filter((l) => /incoming request|request completed/.test(l.msg))).toEqual([]);
    await call(fx.base, '/v1/seeds', { body: { urls: ['http://logged.example/'] }, token: TOKEN });
    expect(lines).toContainEqual(
      expect.objectContaining({ level: INFO, msg: 'request', method: 'POST', url: '/v1/seeds' }),
    );
  });

  it('starts without a deprecation warning on stderr', async () => {
    // Warnings are emitted on the next tick: one round trip lets any of the start's arrive.
    expect((await call(fx.base, '/v1/stats')).status).toBe(200);
    expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
  });

  it('answers the favicon without a 404', async () => {
    const icon = await call(fx.base, '/favicon.ico');
    expect(icon.status).toBe(204);
    expect((await call(fx.base, '/')).body).toContain('<link rel="icon" href="data:image/svg+xml');
  });
});
