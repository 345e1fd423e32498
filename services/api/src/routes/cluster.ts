/** `GET /v1/stats`, `/v1/pods`, `/v1/ring`: counters, pods and the ring. */
import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../context.js';
import { errors, podsResponse, ringQuery, ringResponse, statsResponse } from '../schemas.js';

export function registerClusterRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.get(
    '/v1/stats',
    {
      schema: {
        summary: 'Global counters',
        description: 'Frontier-wide counters (eventually consistent sums) and cluster totals.',
        tags: ['stats'],
        response: { 200: statsResponse, ...errors(503) },
      },
    },
    () => ctx.reader.stats(),
  );

  app.get(
    '/v1/pods',
    {
      schema: {
        summary: 'Pods',
        description:
          'Each member (and each pod that still has counters): its counters, due-index size, ring share and owned domains.',
        tags: ['stats'],
        response: { 200: podsResponse, ...errors(503) },
      },
    },
    () => ctx.reader.pods(),
  );

  app.get<{ Querystring: { resolution: number } }>(
    '/v1/ring',
    {
      schema: {
        summary: 'The consistent-hash ring',
        description:
          'Members with token counts, keyspace share and share of live domains, and the circle folded into arcs for drawing.',
        tags: ['stats'],
        querystring: ringQuery,
        response: { 200: ringResponse, ...errors(400, 503) },
      },
    },
    (request) => ctx.reader.ring(request.query.resolution),
  );
}
