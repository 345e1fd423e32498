/**
 * URLFrontier service throughput per node, on one throwaway redis-server, in one run:
 *
 * 1. PutURLs: one client stream of DiscoveredURLItems to one node, every ack awaited; the
 *    baseline is `frontier.enqueue` of the same URLs, in the batches the service writes (500),
 *    straight from this process. Ratio = service / baseline.
 * 2. GetURLs + ack: the client streams URLs (GetURLs, 50 per queue) and acks each with a
 *    KnownURLItem on one PutURLs stream per round, until every URL is settled; the baseline
 *    is `frontier.claim` + `completeMany` of the same number of URLs straight from this process.
 *
 * For context, the URLFrontier project publishes PutURLs at 91–98k ops/s for its reference
 * service on a 20-core machine with one client stream; this machine has 2 cores shared with
 * other work (the load average is printed), and here one node, its client and redis-server
 * share them. `BENCH_SCALE=0.2 npm run bench -- urlfrontier` runs a fifth of the size.
 */
import { loadavg } from 'node:os';
import { RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { startRedis } from '../../../test/helpers/redis.js';
import { UrlFrontierNode } from '../src/index.js';
import { discovered, FrontierClient, known } from '../test/cluster-fixture.js';

const scale = Number(process.env.BENCH_SCALE ?? 1);
const DOMAINS = Math.max(10, Math.round(500 * scale));
const PER_DOMAIN = 100;
const BATCH = 500;

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
const urlsOf = (tag: string) =>
  Array.from({ length: DOMAINS * PER_DOMAIN }, (_, i) => {
    const d = i % DOMAINS;
    return `https://www.${tag}${d}.com/articles/${Math.floor(i / DOMAINS)}/a-page-title`;
  });
const seconds = (t0: number) => (performance.now() - t0) / 1000;

async function baseline(redis: Redis, urls: string[]): Promise<{ put: number; getAck: number }> {
  const frontier = new RedisFrontier({
    redis,
    ownerOf: () => 'direct',
    prefix: 'direct',
    defaultDelayMs: 0,
    defaultConcurrency: 100,
  });
  let t0 = performance.now();
  for (let i = 0; i < urls.length; i += BATCH) await frontier.enqueue(urls.slice(i, i + BATCH));
  const put = urls.length / seconds(t0);
  t0 = performance.now();
  let done = 0;
  while (done < urls.length) {
    const { leases } = await frontier.claim({ pod: 'direct', max: 1000, leaseTimeoutMs: 60_000 });
    if (leases.length === 0) continue;
    await frontier.completeMany(leases.map((lease) => ({ lease, result: { refetchAfterMs: 0 } })));
    done += leases.length;
  }
  return { put, getAck: urls.length / seconds(t0) };
}

async function service(
  node: UrlFrontierNode,
  urls: string[],
): Promise<{ put: number; getAck: number }> {
  const client = new FrontierClient(node.address);
  let t0 = performance.now();
  const acks = await client.putUrls(urls.map((u) => discovered(u)));
  const put = urls.length / seconds(t0);
  if (acks.some((a) => a.status !== 'OK')) throw new Error('a PutURLs item was not acked OK');
  t0 = performance.now();
  let done = 0;
  while (done < urls.length) {
    const got = await client.getUrls({ max_urls_per_queue: 50, delay_requestable: 60 });
    if (got.length === 0) continue;
    await client.putUrls(got.map((info) => known(info.url)));
    done += got.length;
  }
  const getAck = urls.length / seconds(t0);
  client.close();
  return { put, getAck };
}

const server = await startRedis();
const redis = new Redis(server.port, server.host);
const node = await UrlFrontierNode.start({
  redis: new Redis(server.port, server.host),
  podId: 'bench-node',
  port: 0,
  prefix: 'uf',
  perHostConcurrency: 100,
  logger: pino({ level: 'silent' }),
});
try {
  const load = loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
  console.log(`${fmt(DOMAINS * PER_DOMAIN)} URLs on ${fmt(DOMAINS)} domains; load average ${load}`);
  const direct = await baseline(redis, urlsOf('direct'));
  const grpc = await service(node, urlsOf('grpc'));
  const fetched = (await node.frontier.inspector.stats()).fetched;
  if (fetched !== DOMAINS * PER_DOMAIN)
    throw new Error(`settled ${fetched}, expected ${DOMAINS * PER_DOMAIN}`);
  console.log(
    '| operation | URLFrontier service, 1 node (URLs/s) | frontier direct (URLs/s) | ratio |',
  );
  console.log('| --- | --- | --- | --- |');
  console.log(
    `| PutURLs (discovered) | ${fmt(grpc.put)} | ${fmt(direct.put)} enqueue | ${(grpc.put / direct.put).toFixed(2)} |`,
  );
  console.log(
    `| GetURLs + ack (known) | ${fmt(grpc.getAck)} | ${fmt(direct.getAck)} claim+complete | ${(grpc.getAck / direct.getAck).toFixed(2)} |`,
  );
  console.log(
    'published URLFrontier reference service: PutURLs 91–98k ops/s, 20 cores, one stream',
  );
} finally {
  await node.stop({ graceful: false });
  redis.disconnect();
  await server.stop();
}
process.exit(0);
