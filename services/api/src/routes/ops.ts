/** Liveness, readiness, Prometheus metrics, the OpenAPI document and the dashboard page. */
import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../context.js';
import { errors } from '../schemas-errors.js';
import { healthResponse } from '../schemas-ops.js';

async function pingWithin(ctx: RouteContext): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no PING answer within ${ctx.readyTimeoutMs} ms`)),
      ctx.readyTimeoutMs,
    );
  });
  try {
    return await Promise.race([ctx.redis.ping(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function registerOpsRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness',
        description: 'The process serves HTTP. Does not touch Redis.',
        tags: ['ops'],
        response: { 200: healthResponse },
      },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        summary: 'Readiness',
        description: 'Redis answers PING within the ready timeout; 503 otherwise.',
        tags: ['ops'],
        response: {
          200: healthResponse,
          503: { description: 'Redis unreachable', ...healthResponse },
        },
      },
    },
    async (_request, reply) => {
      try {
        await pingWithin(ctx);
        return { status: 'ok', redis: 'ok' };
      } catch (error) {
        return reply.code(503).send({ status: 'unavailable', redis: (error as Error).message });
      }
    },
  );

  app.get(
    '/metrics',
    {
      schema: {
        summary: 'Prometheus metrics',
        description:
          'Frontier counters (read on scrape), per-pod figures, queue depth for autoscaling, and the API request histogram.',
        tags: ['ops'],
        produces: ['text/plain'],
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          ...errors(503),
        },
      },
    },
    async (_request, reply) => {
      await ctx.metrics.refresh();
      const text = await ctx.metrics.registry.metrics();
      return reply.type(ctx.metrics.registry.contentType).send(text);
    },
  );

  app.get(
    '/openapi.json',
    {
      schema: {
        summary: 'This document',
        description: 'OpenAPI 3 description of every route, generated from the route schemas.',
        tags: ['ops'],
        response: {
          200: {
            description: 'OpenAPI 3.0 document',
            content: {
              'application/json': { schema: { type: 'object', additionalProperties: true } },
            },
          },
        },
      },
    },
    async (_request, reply) => reply.type('application/json').send(JSON.stringify(app.swagger())),
  );

  // Browsers ask for it on their own; the dashboard names an inline icon, so nothing to send.
  app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
    reply.code(204).header('cache-control', 'max-age=86400').send(),
  );

  const csp =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:";
  for (const [path, file] of ctx.dashboard) {
    const page = path === '/';
    app.get(
      path,
      {
        schema: page
          ? {
              summary: 'Dashboard',
              description:
                'The dashboard page (its CSS and ES modules at /dashboard.css, /dashboard.js, /dashboard-domain.js, /dashboard-util.js; no external assets) polling the /v1 routes.',
              tags: ['ops'],
              produces: ['text/html'],
              response: {
                200: {
                  description: 'HTML page',
                  content: { 'text/html': { schema: { type: 'string' } } },
                },
              },
            }
          : { hide: true },
      },
      async (_request, reply) =>
        reply
          .type(file.type)
          .header('cache-control', 'no-cache')
          .header('content-security-policy', csp)
          .send(file.body),
    );
  }
}
