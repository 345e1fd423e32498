import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Fixture, PODS, startFixture } from './fixture.js';

let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture();
  await fx.fetchSome(3);
});
afterAll(async () => fx?.close());

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Parses Prometheus text format 0.0.4; throws on any line it does not understand. NaN and
 * Inf are case-insensitive there (Go's ParseFloat), and prom-client prints `Nan`.
 */
function parseProm(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type =
      /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*$/.test(line)) continue;
    const m =
      /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|[Nn][Aa][Nn]|[+-]?[Ii]nf)$/.exec(
        line,
      );
    if (!m) throw new Error(`not Prometheus text: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]!] = pair[2]!;
    }
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return { samples, types };
}

describe('GET /metrics', () => {
  it('is Prometheus text whose numbers match the frontier counters', async () => {
    await call(fx.base, '/v1/stats'); // so the request histogram has a /v1/stats series
    const { status, headers, body } = await call(fx.base, '/metrics');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toContain('text/plain');
    const { samples, types } = parseProm(body);
    const one = (name: string, labels: Record<string, string> = {}) =>
      samples.find(
        (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
      )?.value;
    const stats = await fx.frontier.stats();
    expect(one('shardline_queue_depth')).toBe(stats.queued);
    expect(one('shardline_urls_fetched_total')).toBe(stats.fetched);
    expect(one('shardline_urls_enqueued_total')).toBe(stats.enqueued);
    expect(one('shardline_urls_in_flight')).toBe(stats.inFlight ?? 0);
    expect(one('shardline_domains')).toBe(fx.domains.length);
    expect(one('shardline_archived_domains')).toBe(stats.archivedDomains ?? 0);
    expect(types.get('shardline_urls_fetched_total')).toBe('counter');
    expect(types.get('shardline_queue_depth')).toBe('gauge');
    for (const pod of PODS) {
      const podStats = await fx.frontier.inspector.podStats(pod);
      expect(one('shardline_pod_urls_fetched_total', { pod })).toBe(podStats.fetched ?? 0);
      expect(one('shardline_pod_due_hosts', { pod })).toBe(
        (await fx.frontier.inspector.dueHosts(pod, { limit: 100_000 })).length,
      );
    }
    expect(one('shardline_pods', { state: 'alive' })).toBe(2);
    expect(types.get('shardline_api_request_duration_seconds')).toBe('histogram');
    expect(
      one('shardline_api_request_duration_seconds_count', {
        route: '/v1/stats',
        method: 'GET',
        status_code: '200',
      }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('follows new fetches on the next scrape', async () => {
    const before = parseProm((await call(fx.base, '/metrics')).body).samples;
    const n = await fx.fetchSome(2);
    const after = parseProm((await call(fx.base, '/metrics')).body).samples;
    const get = (s: Sample[]) => s.find((x) => x.name === 'shardline_urls_fetched_total')!.value;
    expect(get(after) - get(before)).toBe(n);
  });
});

describe('GET /openapi.json', () => {
  const routes: [string, string][] = [
    ['get', '/v1/stats'],
    ['get', '/v1/pods'],
    ['get', '/v1/ring'],
    ['get', '/v1/domains'],
    ['get', '/v1/domains/{domain}'],
    ['get', '/v1/dead-letters'],
    ['post', '/v1/seeds'],
    ['post', '/v1/domains/{domain}/pause'],
    ['post', '/v1/domains/{domain}/resume'],
    ['get', '/v1/ring/locate'],
    ['get', '/v1/domains/{domain}/inspect'],
    ['post', '/v1/domains/{domain}/dead-letters/requeue'],
    ['post', '/v1/domains/{domain}/block'],
    ['post', '/v1/domains/{domain}/hosts/{host}/block'],
    ['put', '/v1/domains/{domain}/hosts/{host}/delay'],
    ['get', '/v1/crawls'],
    ['delete', '/v1/crawls/{crawl}'],
    ['get', '/metrics'],
    ['get', '/healthz'],
    ['get', '/readyz'],
    ['get', '/openapi.json'],
    ['get', '/'],
  ];

  it('is an OpenAPI 3 document describing every route', async () => {
    const { status, body: doc } = await call(fx.base, '/openapi.json');
    expect(status).toBe(200);
    expect(doc.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(typeof doc.info.title).toBe('string');
    expect(typeof doc.info.version).toBe('string');
    const listed = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops as object)
        .filter((k) => k !== 'parameters')
        .map((m) => `${m} ${path}`),
    );
    expect(listed.sort()).toEqual(routes.map(([m, p]) => `${m} ${p}`).sort());
    for (const [method, path] of routes) {
      const op = doc.paths[path][method];
      expect(Object.keys(op.responses).length, `${method} ${path}`).toBeGreaterThan(0);
      for (const [code, response] of Object.entries(op.responses) as [
        string,
        { description?: string },
      ][]) {
        expect(code).toMatch(/^[1-5]\d\d$/);
        expect(typeof response.description).toBe('string');
      }
      for (const param of op.parameters ?? []) {
        expect(['query', 'path', 'header', 'cookie']).toContain(param.in);
        if (param.in === 'path') expect(param.required).toBe(true);
        expect(path.includes(`{${param.name}}`) || param.in !== 'path').toBe(true);
      }
      const mutating = method !== 'get';
      expect(Boolean(op.security), `${method} ${path} security`).toBe(mutating);
      if (mutating) expect(op.security).toEqual([{ bearerAuth: [] }]);
    }
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    expect(
      doc.paths['/v1/seeds'].post.requestBody.content['application/json'].schema.required,
    ).toEqual(['urls']);
    // Every $ref points inside the document.
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]*"/g) ?? [];
    for (const ref of refs) {
      const path = ref.slice(9, -1);
      expect(path.startsWith('#/')).toBe(true);
      const target = path
        .slice(2)
        .split('/')
        .reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], doc);
      expect(target, path).toBeDefined();
    }
  });
});

describe('GET / (dashboard)', () => {
  it('is an HTML page with its own CSS and scripts, no external assets, no inline code', async () => {
    const { status, headers, body } = await call(fx.base, '/');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toContain('text/html');
    const csp = headers.get('content-security-policy');
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(body).toContain('<svg id="ring"');
    expect(body).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(body).not.toMatch(/<script>|<style>/);
    for (const [path, type] of [
      ['/dashboard.css', 'text/css'],
      ['/dashboard-util.js', 'text/javascript'],
      ['/dashboard-domain.js', 'text/javascript'],
      ['/dashboard-ring.js', 'text/javascript'],
      ['/dashboard.js', 'text/javascript'],
    ]) {
      const asset = await call(fx.base, path!);
      expect([path, asset.status]).toEqual([path, 200]);
      expect(asset.headers.get('content-type')).toContain(type);
      expect(asset.body).not.toMatch(/@import|url\(http|https?:\/\/(?!www\.w3\.org)/);
    }
  });
});

describe('health', () => {
  it('answers /healthz without Redis and /readyz with a PING; 503 once Redis is gone', async () => {
    expect((await call(fx.base, '/healthz')).body).toEqual({ status: 'ok' });
    expect((await call(fx.base, '/readyz')).body).toEqual({ status: 'ok', redis: 'ok' });
    await fx.redisServer.kill();
    const ready = await call(fx.base, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe('unavailable');
    expect((await call(fx.base, '/healthz')).status).toBe(200);
    const stats = await call(fx.base, '/v1/stats');
    expect(stats.status).toBe(503);
    expect(stats.body.code).toBe('SHARDLINE_ERR_API_UNAVAILABLE');
    await fx.redisServer.restart();
    for (let i = 0; i < 50 && (await call(fx.base, '/readyz')).status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await call(fx.base, '/readyz')).status).toBe(200);
  });
});
