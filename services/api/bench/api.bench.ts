/**
 * API latency at scale: 1,000,000 queued URLs on 10,000 domains (enqueued through the
 * frontier), a few dead letters and fetched URLs, then p50/p99 of each GET route over
 * sequential keep-alive requests, against a raw Redis `PING` round trip measured in the
 * same run (the floor any Redis-backed answer pays).
 *
 * `BENCH_SCALE=0.1 npm run bench -- api` runs a tenth of the URLs and domains.
 */
import { RedisFrontier } from '@shardline/frontier';
import { HashRing } from '@shardline/ring';
import { Redis } from 'ioredis';
import { Agent, request } from 'undici';
import { startRedis } from '../../../test/helpers/redis.js';
import { ClusterRing } from '../src/cluster-ring.js';
import { StaticClusterView } from '../src/cluster-view.js';
import { createApiServer } from '../src/server.js';

const scale = Number(process.env.BENCH_SCALE ?? 1);
const DOMAINS = Math.round(10_000 * scale);
/** Deepest domain; depths are 51…150 (mean 100), so 10,000 domains hold 1,000,000 URLs. */
const PER_DOMAIN = 150;
const REQUESTS = 300;
const PODS = ['pod-a', 'pod-b', 'pod-c', 'pod-d'];

function quantiles(samples: number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99) };
}

const server = await startRedis();
const redis = new Redis(server.url);
try {
  const ring = await HashRing.create(PODS);
  const frontier = new RedisFrontier({ redis, ownerOf: (d) => ring.owner(d), defaultDelayMs: 0 });
  const t0 = performance.now();
  // Batches of 10,000 URLs spread over 100 domains each: the frontier's fast path.
  for (let d0 = 0; d0 < DOMAINS; d0 += 100) {
    for (let part = 0; part < PER_DOMAIN; part += 100) {
      const batch: string[] = [];
      for (let d = d0; d < Math.min(DOMAINS, d0 + 100); d++) {
        // Uneven depths, so the depth order is not trivial.
        const depth = 51 + ((d * 37) % 100);
        for (let i = part; i < Math.min(depth, part + 100); i++) {
          batch.push(`https://www.site${d}.com/a/${i}`);
        }
      }
      await frontier.enqueue(batch);
    }
  }
  const stats = await frontier.stats();
  const seedSeconds = (performance.now() - t0) / 1000;
  console.log(
    `seeded ${stats.queued?.toLocaleString('en-US')} URLs on ${DOMAINS.toLocaleString('en-US')} domains in ${seedSeconds.toFixed(1)} s`,
  );
  // Some movement: fetch and dead-letter a few, so counters and lists are not empty.
  for (const pod of PODS) {
    const { leases } = await frontier.claim({ pod, max: 50 });
    for (const [i, lease] of leases.entries()) {
      if (i % 5 === 0)
        await frontier.fail(lease, { retryable: false, reason: 'http-404', status: 404 });
      else await frontier.complete(lease, { status: 200, bytes: 1000, durationMs: 10 });
    }
  }
  const deadDomain =
    (await frontier.inspector.deadLetters('site0.com')).length > 0 ? 'site0.com' : 'site1.com';

  const cluster = new ClusterRing(new StaticClusterView(PODS));
  const app = await createApiServer({ redis, frontier, cluster });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const agent = new Agent({ connections: 1, pipelining: 1 });

  const page = await request(`${base}/v1/domains?limit=50`, { dispatcher: agent });
  const { nextCursor } = (await page.body.json()) as { nextCursor: string };
  const routes = [
    '/healthz',
    '/readyz',
    '/v1/stats',
    '/v1/pods',
    '/v1/ring',
    '/v1/domains?sort=depth&limit=50',
    `/v1/domains?sort=depth&limit=50&cursor=${nextCursor}`,
    '/v1/domains?sort=depth&limit=10',
    '/v1/domains/site123.com',
    `/v1/dead-letters?domain=${deadDomain}&limit=50`,
    '/metrics',
  ];

  // Baseline: one PING round trip on the same Redis.
  const ping: number[] = [];
  for (let i = 0; i < REQUESTS + 50; i++) {
    const t = performance.now();
    await redis.ping();
    if (i >= 50) ping.push(performance.now() - t);
  }
  const base50 = quantiles(ping).p50;
  console.log(
    `\nbaseline redis PING: p50 ${base50.toFixed(3)} ms, p99 ${quantiles(ping).p99.toFixed(3)} ms\n`,
  );
  console.log('route                                          p50 ms   p99 ms   p50/PING');
  for (const route of routes) {
    const times: number[] = [];
    for (let i = 0; i < REQUESTS + 20; i++) {
      const t = performance.now();
      const res = await request(base + route, { dispatcher: agent });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) throw new Error(`${route}: HTTP ${res.statusCode}`);
      if (i >= 20) times.push(performance.now() - t);
    }
    const q = quantiles(times);
    const name = route.includes('cursor=')
      ? '/v1/domains?sort=depth&limit=50&cursor=<page 2>'
      : route;
    console.log(
      `${name.padEnd(46)} ${q.p50.toFixed(2).padStart(7)} ${q.p99.toFixed(2).padStart(8)} ${(q.p50 / base50).toFixed(1).padStart(9)}×`,
    );
  }
  await agent.close();
  await app.close();
} finally {
  redis.disconnect();
  await server.stop();
}
