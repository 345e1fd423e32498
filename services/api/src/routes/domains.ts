/** Domains: paged list, one domain, its dead letters, pause/resume. */
import type { FastifyInstance } from 'fastify';
import { BEARER, type RouteContext } from '../context.js';
import { crawlQuery } from '../schemas-common.js';
import {
  deadLettersQuery,
  deadLettersResponse,
  domainParams,
  domainResponse,
  domainsQuery,
  domainsResponse,
  pauseResponse,
} from '../schemas-domains.js';
import { errors } from '../schemas-errors.js';
import type { DomainSort } from '../stats-reader.js';

export function registerDomainRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.get<{ Querystring: { sort: DomainSort; limit: number; cursor?: string; crawl?: string } }>(
    '/v1/domains',
    {
      schema: {
        summary: 'Domains, deepest queue (or most fetched, most errors) first',
        description:
          "One page of one of the frontier's domain indexes (`sort`: `depth` URLs queued, `fetched` URLs fetched, `errors` failed attempts + dead letters); pass `nextCursor` back as `cursor` for the next page. `fetched` and `errors` list the domains that have any.",
        tags: ['domains'],
        querystring: domainsQuery,
        response: { 200: domainsResponse, ...errors(400, 404, 503) },
      },
    },
    async (request) =>
      (await ctx.readers.of(request.query.crawl)).domains(
        request.query.sort,
        request.query.limit,
        request.query.cursor,
      ),
  );

  app.get<{ Params: { domain: string }; Querystring: { crawl?: string } }>(
    '/v1/domains/:domain',
    {
      schema: {
        summary: 'One domain',
        description:
          "Exact counters of one domain in one crawl (`crawl`), its owner on that crawl's ring and its hosts.",
        tags: ['domains'],
        params: domainParams,
        querystring: crawlQuery,
        response: { 200: domainResponse, ...errors(400, 404, 503) },
      },
    },
    async (request) => (await ctx.readers.of(request.query.crawl)).domain(request.params.domain),
  );

  app.get<{
    Querystring: { domain?: string; limit: number; cursor?: string; crawl?: string };
  }>(
    '/v1/dead-letters',
    {
      schema: {
        summary: "A domain's dead letters, or those of all domains",
        description:
          "Newest first within a domain, paged by cursor. Without `domain`: every domain holding dead letters, most first, from the frontier's dead-letter domains index (no scan; a page reads at most `limit + 1` domains).",
        tags: ['domains'],
        querystring: deadLettersQuery,
        response: { 200: deadLettersResponse, ...errors(400, 404, 503) },
      },
    },
    async (request) =>
      (await ctx.readers.of(request.query.crawl)).deadLetters(
        request.query.domain,
        request.query.limit,
        request.query.cursor,
      ),
  );

  for (const action of ['pause', 'resume'] as const) {
    app.post<{ Params: { domain: string }; Querystring: { crawl?: string } }>(
      `/v1/domains/:domain/${action}`,
      {
        onRequest: ctx.guard,
        schema: {
          summary: action === 'pause' ? 'Pause a domain' : 'Resume a domain',
          description:
            action === 'pause'
              ? 'Stops claims from the domain in one crawl (`crawl`; the default crawl without it); leases already out finish normally.'
              : 'Lets claims from a paused domain of one crawl resume.',
          tags: ['domains'],
          security: BEARER,
          params: domainParams,
          querystring: crawlQuery,
          response: { 200: pauseResponse, ...errors(400, 401, 403, 404, 409, 503) },
        },
      },
      async (request) => {
        const { domain } = request.params;
        const { reader, frontier, cluster } = await ctx.readers.scope(request.query.crawl);
        await reader.requireDomain(domain);
        // The frontier pins/re-scores the domain's hosts in its owner's due index.
        await cluster.snapshot();
        if (action === 'pause') await frontier.pause(domain);
        else await frontier.resume(domain);
        const stats = await frontier.inspector.domainStats(domain);
        return { domain, paused: stats.paused };
      },
    );
  }
}
