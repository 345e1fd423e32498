/** `createApiServer`: the stats API and dashboard as a Fastify instance. */

import { readFileSync } from 'node:fs';
import swagger from '@fastify/swagger';
import type { RedisFrontier } from '@shardline/frontier';
import { DEFAULT_PREFIX } from '@shardline/frontier';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import type { Cluster, Redis } from 'ioredis';
import { bearerGuard } from './auth.js';
import { ClusterRing } from './cluster-ring.js';
import type { RouteContext } from './context.js';
import { CrawlReaders, listCrawls } from './crawls.js';
import { keyDomainInputs } from './domain-inputs.js';
import { installErrorHandlers } from './error-handler.js';
import { ApiOptionsError } from './errors.js';
import { ApiMetrics } from './metrics.js';
import { registerClusterRoutes } from './routes/cluster.js';
import { registerCrawlDeleteRoute } from './routes/crawl-delete.js';
import { registerDomainRoutes } from './routes/domains.js';
import { registerHostControlRoutes } from './routes/host-controls.js';
import { registerInspectRoutes } from './routes/inspect.js';
import { registerOpsRoutes } from './routes/ops.js';
import { registerSeedRoutes } from './routes/seeds.js';
import { StatsReader } from './stats-reader.js';
import { installValidation } from './validation.js';

/** Options of {@link createApiServer}. */
export interface ApiServerOptions {
  /** ioredis client the frontier uses (PING for `/readyz`, bounded index reads). */
  redis: Redis | Cluster;
  /**
   * The frontier. Its `ownerOf` should be `cluster.ownerOf`, so seeds land in the due
   * index of the owner the API reports.
   */
  frontier: RedisFrontier;
  /** Membership and ring (wraps a `ClusterView`). */
  cluster: ClusterRing;
  /**
   * The frontier's key prefix: where the crawl registry and the other crawls' keys are
   * (`GET /v1/crawls`, `?crawl=`). @default 'sl'
   */
  prefix?: string;
  /** Bearer token of mutating routes; unset = they answer 403. @default undefined */
  token?: string;
  /** Largest request body (larger: 413). @default 2097152 */
  maxBodyBytes?: number;
  /** Most URLs in one `POST /v1/seeds` (more: 400). @default 10000 */
  maxSeedItems?: number;
  /** How long `/readyz` waits for PING before answering 503. @default 1000 */
  readyTimeoutMs?: number;
  /**
   * Reads the robots.txt record of an origin (`https://host`) from the crawler's shared cache,
   * for the domain page; `shardline api` passes the crawler's `RedisRobotsCache`. @default none
   */
  robots?: (origin: string) => Promise<object | undefined>;
  /** Fastify logger option (pino). @default false */
  logger?: FastifyServerOptions['logger'];
}

/** The dashboard's files, served at `/` and `/<name>`. */
const DASHBOARD_FILES = {
  '/': ['dashboard.html', 'text/html; charset=utf-8'],
  '/dashboard.css': ['dashboard.css', 'text/css; charset=utf-8'],
  '/dashboard-util.js': ['dashboard-util.js', 'text/javascript; charset=utf-8'],
  '/dashboard-domain.js': ['dashboard-domain.js', 'text/javascript; charset=utf-8'],
  '/dashboard-ring.js': ['dashboard-ring.js', 'text/javascript; charset=utf-8'],
  '/dashboard.js': ['dashboard.js', 'text/javascript; charset=utf-8'],
} as const;

function readDashboard(): Map<string, { body: string; type: string }> {
  return new Map(
    Object.entries(DASHBOARD_FILES).map(([path, [file, type]]) => [
      path,
      { body: readFileSync(new URL(`../public/${file}`, import.meta.url), 'utf8'), type },
    ]),
  );
}

function positiveInteger(name: string, value: unknown, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || (v as number) < 1) {
    throw new ApiOptionsError(name, value, 'a positive integer');
  }
  return v as number;
}

/**
 * Builds the API (routes registered, not listening). Call `listen({ host, port })` on
 * the result; `close()` stops it (the Redis client is the caller's to close).
 */
export async function createApiServer(options: ApiServerOptions): Promise<FastifyInstance> {
  if (typeof options?.redis?.ping !== 'function') {
    throw new ApiOptionsError('redis', options?.redis, 'an ioredis Redis or Cluster client');
  }
  if (typeof options.frontier?.enqueue !== 'function') {
    throw new ApiOptionsError('frontier', options.frontier, 'a RedisFrontier');
  }
  if (!(options.cluster instanceof ClusterRing)) {
    throw new ApiOptionsError('cluster', options.cluster, 'a ClusterRing');
  }
  if (options.token !== undefined && (typeof options.token !== 'string' || options.token === '')) {
    throw new ApiOptionsError('token', options.token, 'a non-empty string or undefined');
  }
  const maxBodyBytes = positiveInteger('maxBodyBytes', options.maxBodyBytes, 2 * 1024 * 1024);
  const maxSeedItems = positiveInteger('maxSeedItems', options.maxSeedItems, 10_000);
  const readyTimeoutMs = positiveInteger('readyTimeoutMs', options.readyTimeoutMs, 1000);

  const app = Fastify({
    logger: options.logger ?? false,
    // Logged by the onResponse hook below: the dashboard's polls at debug, changes at info.
    // (Through a LogController: Fastify 5.7+ warns on start about the top-level option.)
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: maxBodyBytes,
  });
  // JSON only: a text/plain body is refused with 415 instead of failing validation.
  app.removeContentTypeParser('text/plain');
  installValidation(app);
  installErrorHandlers(app, options.redis, maxBodyBytes);

  const reader = new StatsReader(options.frontier.inspector, options.cluster);
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const readers = new CrawlReaders(options.redis, prefix, {
    reader,
    frontier: options.frontier,
    cluster: options.cluster,
  });
  const metrics = new ApiMetrics(reader, () => listCrawls(options.redis, prefix));
  const ctx: RouteContext = {
    redis: options.redis,
    frontier: options.frontier,
    cluster: options.cluster,
    reader,
    readers,
    prefix,
    metrics,
    guard: bearerGuard(options.token),
    maxSeedItems,
    readyTimeoutMs,
    dashboard: readDashboard(),
    robots: options.robots,
  };

  keyDomainInputs(app);
  app.addHook('onResponse', async (request, reply) => {
    const read = request.method === 'GET' || request.method === 'HEAD';
    request.log[read ? 'debug' : 'info'](
      {
        method: request.method,
        url: request.url.slice(0, 200),
        statusCode: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
    metrics.requestDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'shardline stats API',
        description: 'Frontier counters, pods, ring, domains, dead letters, seeds and admin.',
        version: '0.1.0',
      },
      tags: [
        { name: 'stats', description: 'Counters, pods and ring' },
        { name: 'domains', description: 'Per-domain figures and admin' },
        { name: 'seeds', description: 'Adding URLs' },
        { name: 'ops', description: 'Health, metrics, documents' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'API_TOKEN of the server' },
        },
      },
    },
  });

  registerOpsRoutes(app, ctx);
  registerClusterRoutes(app, ctx);
  registerCrawlDeleteRoute(app, ctx);
  registerDomainRoutes(app, ctx);
  registerHostControlRoutes(app, ctx);
  registerSeedRoutes(app, ctx);
  registerInspectRoutes(app, ctx);
  return app;
}
