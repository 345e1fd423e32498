/** `GET /v1/stats`, `/v1/pods`, `/v1/ring`: counters, pods and the ring. */
import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../context.js';
import { listCrawls } from '../crawls.js';
import {
  crawlsResponse,
  podsResponse,
  ringQuery,
  ringResponse,
  statsResponse,
} from '../schemas-cluster.js';
import { crawlQuery } from '../schemas-common.js';
import { errors } from '../schemas-errors.js';

type CrawlQuery = { Querystring: { crawl?: string } };

export function registerClusterRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.get<CrawlQuery>(
    '/v1/stats',
    {
      schema: {
        summary: 'Global counters',
        description:
          "Frontier-wide counters (eventually consistent sums) and cluster totals of one crawl (`crawl`; the default crawl without it). A crawl's pods form its own ring.",
        tags: ['stats'],
        querystring: crawlQuery,
        response: { 200: statsResponse, ...errors(400, 404, 503) },
      },
    },
    async (request) => (await ctx.readers.of(request.query.crawl)).stats(),
  );

  app.get(
    '/v1/crawls',
    {
      schema: {
        summary: 'Crawls',
        description:
          'Every crawl (namespace) of the frontier, the default one first: its state, live pods and counters (eventually consistent sums). A few reads per crawl, no scan.',
        tags: ['stats'],
        response: { 200: crawlsResponse, ...errors(503) },
      },
    },
    async () => ({ crawls: await listCrawls(ctx.redis, ctx.prefix) }),
  );

  app.get<CrawlQuery>(
    '/v1/pods',
    {
      schema: {
        summary: 'Pods',
        description:
          'Each member (and each pod that still has counters): its counters, due-index size, ring share and owned domains.',
        tags: ['stats'],
        querystring: crawlQuery,
        response: { 200: podsResponse, ...errors(400, 404, 503) },
      },
    },
    async (request) => (await ctx.readers.of(request.query.crawl)).pods(),
  );

  app.get<{ Querystring: { resolution: number; crawl?: string } }>(
    '/v1/ring',
    {
      schema: {
        summary: 'The consistent-hash ring',
        description:
          'Members with token counts, keyspace share and share of live domains, and the circle folded into arcs for drawing.',
        tags: ['stats'],
        querystring: ringQuery,
        response: { 200: ringResponse, ...errors(400, 404, 503) },
      },
    },
    async (request) => (await ctx.readers.of(request.query.crawl)).ring(request.query.resolution),
  );
}
