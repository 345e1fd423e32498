/**
 * Shared setup of the API tests: a real redis-server, a frontier seeded through its own
 * API (several domains of different depths on two pods, some URLs fetched through
 * claim + complete so counters move), and the API listening on 127.0.0.1:0.
 */
import { RedisFrontier } from '@shardline/frontier';
import { HashRing } from '@shardline/ring';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { ClusterRing } from '../src/cluster-ring.js';
import { StaticClusterView } from '../src/cluster-view.js';
import { type ApiServerOptions, createApiServer } from '../src/server.js';

export const TOKEN = 'test-token-0123456789abcdef';
export const PODS = ['pod-a', 'pod-b'];

export interface SeededDomain {
  domain: string;
  owner: string;
  urls: number;
}

export interface Fixture {
  redisServer: RedisServer;
  redis: Redis;
  frontier: RedisFrontier;
  ring: HashRing;
  app: FastifyInstance;
  base: string;
  /** Seeded domains, deepest first. */
  domains: SeededDomain[];
  /** URLs fetched per pod by `fetchSome`. */
  fetchedBy: Map<string, number>;
  /** Claims up to `rounds` URLs per pod and completes them. */
  fetchSome(rounds: number): Promise<number>;
  close(): Promise<void>;
}

/** Picks `perPod` domain names owned by each pod (deterministic). */
export function domainsPerPod(ring: HashRing, perPod: number): string[] {
  const picked = new Map<string, string[]>(PODS.map((p) => [p, []]));
  for (let i = 0; [...picked.values()].some((l) => l.length < perPod); i++) {
    const domain = `site${i}.test`;
    const list = picked.get(ring.owner(domain))!;
    if (list.length < perPod) list.push(domain);
  }
  return PODS.flatMap((p) => picked.get(p)!);
}

export async function startFixture(
  options: Partial<Omit<ApiServerOptions, 'redis' | 'frontier' | 'cluster'>> = {},
  perPod = 3,
): Promise<Fixture> {
  const redisServer = await startRedis();
  const redis = new Redis(redisServer.url, { maxRetriesPerRequest: 1 });
  redis.on('error', () => {
    // Outages are part of some tests; they surface as 503s, not as unhandled events.
  });
  const ring = await HashRing.create(PODS);
  // No politeness delay so the test can claim again at once.
  const frontier = new RedisFrontier({
    redis,
    ownerOf: (d) => ring.owner(d),
    defaultDelayMs: 0,
    defaultConcurrency: 4,
  });
  const names = domainsPerPod(ring, perPod);
  // Distinct depths: domain k gets 3 + 4k URLs, so the order by depth is known.
  const domains: SeededDomain[] = names.map((domain, k) => ({
    domain,
    owner: ring.owner(domain),
    urls: 3 + 4 * k,
  }));
  const items = domains.flatMap((d) =>
    Array.from({ length: d.urls }, (_, i) => `http://${d.domain}/page/${i}`),
  );
  await frontier.enqueue(items);
  domains.sort((a, b) => b.urls - a.urls);

  const fetchedBy = new Map<string, number>(PODS.map((p) => [p, 0]));
  const fetchSome = async (rounds: number): Promise<number> => {
    let total = 0;
    for (const pod of PODS) {
      const { leases } = await frontier.claim({ pod, max: rounds });
      for (const lease of leases) {
        await frontier.complete(lease, { status: 200, bytes: 1000, durationMs: 5, links: 2 });
        const d = domains.find((x) => x.domain === lease.domain)!;
        d.urls--;
        fetchedBy.set(pod, fetchedBy.get(pod)! + 1);
        total++;
      }
    }
    domains.sort((a, b) => b.urls - a.urls);
    return total;
  };

  const cluster = new ClusterRing(new StaticClusterView(PODS));
  const app = await createApiServer({ redis, frontier, cluster, token: TOKEN, ...options });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    redisServer,
    redis,
    frontier,
    ring,
    app,
    base: `http://127.0.0.1:${port}`,
    domains,
    fetchedBy,
    fetchSome,
    async close() {
      await app.close();
      redis.disconnect();
      await redisServer.stop();
    },
  };
}

/** JSON request helper: returns status, headers and parsed body. */
export async function call(
  base: string,
  path: string,
  init: {
    method?: string;
    body?: unknown;
    raw?: string;
    token?: string;
    headers?: Record<string, string>;
  } = {},
  // biome-ignore lint/suspicious/noExplicitAny: bodies are arbitrary JSON; tests check them with expectSchema
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined || init.raw !== undefined)
    headers['content-type'] ??= 'application/json';
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  const response = await fetch(base + path, {
    method: init.method ?? (init.body !== undefined || init.raw !== undefined ? 'POST' : 'GET'),
    headers,
    body: init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
  });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  return {
    status: response.status,
    headers: response.headers,
    body: type.includes('json') ? JSON.parse(text) : text,
  };
}
