/**
 * Operator controls kept in the domain's Redis state (they survive restarts and travel with
 * the domain on handoff): block a domain or one host until a time (URLFrontier's
 * BlockQueueUntil) and set a host's delay at run time (URLFrontier's SetDelay).
 */
import type { FastifyInstance } from 'fastify';
import { BEARER, type RouteContext } from '../context.js';
import { ApiErrorCode, HttpError } from '../errors.js';
import { domainParam } from '../schemas-common.js';
import { errors } from '../schemas-errors.js';

const hostParams = {
  type: 'object',
  required: ['domain', 'host'],
  properties: {
    domain: domainParam,
    host: {
      type: 'string',
      minLength: 1,
      maxLength: 253,
      pattern: '^[^\\s/{}]+$',
      description: 'a host of the domain, e.g. www.example.com (any case, Unicode or punycode)',
    },
  },
} as const;

const domainOnlyParams = {
  type: 'object',
  required: ['domain'],
  properties: { domain: domainParam },
} as const;

const blockBody = {
  type: 'object',
  required: ['untilMs'],
  additionalProperties: false,
  properties: {
    untilMs: {
      type: 'integer',
      minimum: 0,
      maximum: 8_640_000_000_000_000,
      description:
        'epoch ms (compared with Redis time) until which nothing is claimed; 0 lifts the block',
    },
  },
} as const;

const delayBody = {
  type: 'object',
  required: ['delayMs'],
  additionalProperties: false,
  properties: {
    delayMs: {
      type: ['integer', 'null'],
      minimum: 0,
      maximum: 86_400_000,
      description: 'delay between request starts (ms); null restores the crawl default',
    },
  },
} as const;

const blockResponse = {
  type: 'object',
  required: ['domain', 'blockedUntilMs'],
  properties: {
    domain: { type: 'string' },
    host: { type: 'string' },
    blockedUntilMs: { type: 'integer', description: '0 = not blocked' },
  },
} as const;

const delayResponse = {
  type: 'object',
  required: ['domain', 'host', 'delayMs'],
  properties: {
    domain: { type: 'string' },
    host: { type: 'string' },
    delayMs: { type: ['integer', 'null'] },
  },
} as const;

/** Refuses a host outside `domain` (the domain itself or a subdomain). */
function requireInDomain(host: string, domain: string): void {
  if (host === domain || host.endsWith(`.${domain}`)) return;
  throw new HttpError(
    400,
    ApiErrorCode.VALIDATION,
    `host ${host} is not in domain ${domain}: use the host's registrable domain`,
  );
}

export function registerHostControlRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.post<{ Params: { domain: string }; Body: { untilMs: number } }>(
    '/v1/domains/:domain/block',
    {
      onRequest: ctx.guard,
      schema: {
        summary: 'Block a domain until a time',
        description:
          'No URL of the domain is claimed before `untilMs` (BlockQueueUntil); then it goes on by itself. `0` lifts the block. Kept in Redis with the domain.',
        tags: ['domains'],
        security: BEARER,
        params: domainOnlyParams,
        body: blockBody,
        response: { 200: blockResponse, ...errors(400, 401, 403, 404, 503) },
      },
    },
    async (request) => {
      const { domain } = request.params;
      await ctx.reader.requireDomain(domain);
      await ctx.cluster.snapshot();
      await ctx.frontier.blockUntil({ domain }, request.body.untilMs);
      const stats = await ctx.frontier.inspector.domainStats(domain);
      return { domain, blockedUntilMs: stats.blockedUntilMs };
    },
  );

  app.post<{ Params: { domain: string; host: string }; Body: { untilMs: number } }>(
    '/v1/domains/:domain/hosts/:host/block',
    {
      onRequest: ctx.guard,
      schema: {
        summary: 'Block one host until a time',
        description:
          "No URL of the host is claimed before `untilMs`; the domain's other hosts go on. `0` lifts the block.",
        tags: ['domains'],
        security: BEARER,
        params: hostParams,
        body: blockBody,
        response: { 200: blockResponse, ...errors(400, 401, 403, 404, 503) },
      },
    },
    async (request) => {
      const { domain, host } = request.params;
      requireInDomain(host, domain);
      await ctx.reader.requireDomain(domain);
      await ctx.cluster.snapshot();
      await ctx.frontier.blockUntil({ host, domain }, request.body.untilMs);
      const state = await ctx.frontier.inspector.hostState(domain, host);
      return { domain, host, blockedUntilMs: state.blockedUntilMs };
    },
  );

  app.put<{ Params: { domain: string; host: string }; Body: { delayMs: number | null } }>(
    '/v1/domains/:domain/hosts/:host/delay',
    {
      onRequest: ctx.guard,
      schema: {
        summary: "Set a host's delay at run time",
        description:
          "The host's delay between request starts on every pod at once (SetDelay); robots crawl-delay, backoff and the adaptive delay still apply on top. `null` restores the crawl default.",
        tags: ['domains'],
        security: BEARER,
        params: hostParams,
        body: delayBody,
        response: { 200: delayResponse, ...errors(400, 401, 403, 404, 503) },
      },
    },
    async (request) => {
      const { domain, host } = request.params;
      requireInDomain(host, domain);
      await ctx.reader.requireDomain(domain);
      await ctx.cluster.snapshot();
      await ctx.frontier.setHostPolicy(host, { delayMs: request.body.delayMs }, domain);
      const state = await ctx.frontier.inspector.hostState(domain, host);
      return { domain, host, delayMs: state.delayMs };
    },
  );
}
