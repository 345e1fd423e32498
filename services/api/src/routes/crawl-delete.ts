/**
 * `DELETE /v1/crawls/:crawl`: deletes one crawl's keys, as `shardline crawl delete` does
 * (crawl-delete.ts). The checks answer at once; the deletion itself runs in batches of
 * domains in this process after a `202` (a large crawl takes longer than a request should),
 * its progress visible in `GET /v1/crawls` (state `deleting`, domains going down) until the
 * crawl leaves the list. A failed or interrupted deletion leaves the crawl `deleting`: the
 * same request finishes it.
 */
import type { FastifyInstance } from 'fastify';
import { BEARER, type RouteContext } from '../context.js';
import { CrawlDeleteRefusedError, deleteCrawlKeys, startCrawlDelete } from '../crawl-delete.js';
import { ApiErrorCode, HttpError } from '../errors.js';
import { crawlParam } from '../schemas-common.js';
import { errors } from '../schemas-errors.js';

const params = {
  type: 'object',
  required: ['crawl'],
  additionalProperties: false,
  properties: { crawl: crawlParam },
} as const;

const query = {
  type: 'object',
  additionalProperties: false,
  properties: {
    force: {
      type: 'boolean',
      default: false,
      description: "delete even while the crawl's pods are live (their new URLs are refused)",
    },
  },
} as const;

const accepted = {
  type: 'object',
  required: ['crawlId', 'state'],
  properties: {
    crawlId: { type: 'string' },
    state: { type: 'string', enum: ['deleting'] },
  },
} as const;

export function registerCrawlDeleteRoute(app: FastifyInstance, ctx: RouteContext): void {
  // Deletions this process runs: a second request for the same crawl joins the first.
  const running = new Set<string>();
  app.delete<{ Params: { crawl: string }; Querystring: { force: boolean } }>(
    '/v1/crawls/:crawl',
    {
      onRequest: ctx.guard,
      schema: {
        summary: 'Delete a crawl',
        description:
          "Deletes every key of one crawl (queues, seen-sets, leases, counters, dead letters, its ring, results and items streams) in batches of domains, never the hosts' politeness that all crawls share. Answers 202 once the crawl is marked `deleting`; `GET /v1/crawls` shows the progress. 409 for the default crawl, or while the crawl's pods are live without `force`.",
        tags: ['stats'],
        security: BEARER,
        params,
        querystring: query,
        response: { 202: accepted, ...errors(400, 401, 403, 404, 409, 503) },
      },
    },
    async (request, reply) => {
      const { crawl } = request.params;
      if (!running.has(crawl)) {
        try {
          await startCrawlDelete(ctx.redis, ctx.prefix, crawl, request.query.force);
        } catch (error) {
          if (!(error instanceof CrawlDeleteRefusedError)) throw error;
          if (error.reason === 'unknown') {
            throw new HttpError(404, ApiErrorCode.NOT_FOUND, error.message);
          }
          throw new HttpError(409, ApiErrorCode.CRAWL_CONFLICT, error.message);
        }
        running.add(crawl);
        deleteCrawlKeys(ctx.redis, ctx.prefix, crawl)
          .then((totals) => request.log.info({ crawl, ...totals }, 'crawl deleted'))
          .catch((error: unknown) =>
            request.log.error(
              { err: error, crawl },
              'crawl deletion stopped; the crawl stays "deleting": send the DELETE again to finish it',
            ),
          )
          .finally(() => running.delete(crawl));
      }
      return reply.code(202).send({ crawlId: crawl, state: 'deleting' });
    },
  );
}
