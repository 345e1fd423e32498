/** `POST /v1/seeds`: enqueue URLs through the frontier, one result per item. */
import type { EnqueueItem } from '@shardline/frontier';
import type { FastifyInstance } from 'fastify';
import { BEARER, type RouteContext } from '../context.js';
import { ApiErrorCode } from '../errors.js';
import { crawlQuery } from '../schemas-common.js';
import { errors } from '../schemas-errors.js';
import { seedsBody, seedsResponse } from '../schemas-seeds.js';
import { isWellFormed } from '../validation.js';

export function registerSeedRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.post<{ Body: { urls: EnqueueItem[] }; Querystring: { crawl?: string } }>(
    '/v1/seeds',
    {
      onRequest: ctx.guard,
      schema: {
        summary: 'Enqueue seed URLs',
        description:
          "Canonicalises, deduplicates and queues the URLs (priority, depth and meta optional) in one crawl (`crawl`; the default crawl without it; the first seeds of a crawl start it, owned by that crawl's pods). Each item gets a result with its index: queued, duplicate, rejected (with code and reason) or over-cap. One bad item never fails the batch.",
        tags: ['seeds'],
        security: BEARER,
        querystring: crawlQuery,
        body: seedsBody(ctx.maxSeedItems),
        response: { 200: seedsResponse, ...errors(400, 401, 403, 409, 413, 415, 503) },
      },
    },
    async (request) => {
      const { frontier, cluster } = ctx.readers.writeScope(request.query.crawl);
      // Refresh membership so the owners of new domains are today's, not a stale ring's.
      await cluster.snapshot();
      const { urls } = request.body;
      // Lone surrogates (JSON `\udXXX` escapes) would be encoded as U+FFFD: refuse those items.
      const wellFormed = urls.map((item) =>
        isWellFormed(typeof item === 'string' ? item : item.url),
      );
      const report = await frontier.enqueue(urls.filter((_, i) => wellFormed[i]));
      const accepted = report.results.values();
      const results = urls.map((_, index) =>
        wellFormed[index]
          ? { index, ...accepted.next().value! }
          : {
              index,
              status: 'rejected' as const,
              code: ApiErrorCode.BAD_UTF8,
              reason:
                'the URL is not well-formed Unicode (a lone surrogate); send it as UTF-8 or percent-encode its bytes',
            },
      );
      return {
        queued: report.queued,
        duplicates: report.duplicates,
        rejected: report.rejected + urls.length - report.results.length,
        overCap: report.overCap,
        results,
      };
    },
  );
}
