/**
 * The fetch stage with a real Fetcher against a loopback server: the outcome lands in the
 * context, the gate pass gets the real send time, sitemaps keep any body, a stop releases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fetcher } from '../../src/fetcher.js';
import { FetchStage } from '../../src/pipeline/fetch-stage.js';
import { SendGate } from '../../src/send-gate.js';
import { startTestServer, type TestServer, testDns } from '../fixtures/test-server.js';
import { contextOf } from './lease-fixture.js';

let server: TestServer;
let fetcher: Fetcher;

beforeAll(async () => {
  server = await startTestServer({
    '/page': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<a href="/next">next</a>');
    },
    '/sitemap.xml': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end('<urlset><url><loc>http://site.test/a</loc></url></urlset>');
    },
    '/hang': () => undefined,
  });
  fetcher = new Fetcher({ dns: testDns() });
});

afterAll(async () => {
  await fetcher?.close();
  await server?.close();
});

async function withPass(url: string, meta = '', signal?: AbortSignal) {
  const gate = new SendGate({ minDelayMs: 500 });
  const ctx = contextOf(url, { meta }, signal);
  ctx.pass = await gate.acquire(ctx.lease.host);
  return { gate, ctx };
}

describe('FetchStage', () => {
  it('fetches once and reports the real send time to the gate', async () => {
    const { gate, ctx } = await withPass(server.url('/page'));
    expect(await new FetchStage(fetcher).run(ctx)).toBeUndefined();
    expect(ctx.outcome).toMatchObject({ status: 200, contentType: 'text/html' });
    expect(ctx.outcome!.body?.toString()).toContain('href="/next"');
    expect(server.requests.filter((r) => r.path === '/page')).toHaveLength(1);
    // The pass is closed: the next request waits the delay from the send, not longer.
    const waitMs = gate.waitMs('site.test');
    expect(waitMs).toBeGreaterThan(300);
    expect(waitMs).toBeLessThanOrEqual(500);
  });

  it('keeps a sitemap body whatever its content type', async () => {
    const page = await withPass(server.url('/sitemap.xml'));
    await new FetchStage(fetcher).run(page.ctx);
    expect(page.ctx.outcome!.body).toBeUndefined();
    const sitemap = await withPass(server.url('/sitemap.xml'), 'sitemap');
    await new FetchStage(fetcher).run(sitemap.ctx);
    expect(sitemap.ctx.outcome!.body?.toString()).toContain('<urlset>');
  });

  it('passes an aborted fetch on as an outcome (classify releases it)', async () => {
    const stop = new AbortController();
    const { ctx } = await withPass(server.url('/hang'), '', stop.signal);
    setTimeout(() => stop.abort(), 50);
    expect(await new FetchStage(fetcher).run(ctx)).toBeUndefined();
    expect(ctx.outcome?.error?.code).toBe('SHARDLINE_ERR_FETCH_ABORTED');
  });

  it('releases when the fetcher is closed because the pod stops, and throws otherwise', async () => {
    const closed = new Fetcher({ dns: testDns() });
    await closed.close();
    const stop = new AbortController();
    stop.abort();
    const stopping = await withPass(server.url('/page'), '', stop.signal);
    expect(await new FetchStage(closed).run(stopping.ctx)).toEqual({ kind: 'release' });
    // The pass was closed: the host's one slot is free again once its delay has passed.
    const next = await stopping.gate.acquire('site.test', AbortSignal.timeout(2000));
    next.done();
    const running = await withPass(server.url('/page'));
    await expect(new FetchStage(closed).run(running.ctx)).rejects.toMatchObject({
      code: 'SHARDLINE_ERR_CRAWLER_CLOSED',
    });
  });
});
