/**
 * The dashboard's working routes: where a domain sits on the ring, one domain's page (queue
 * heads, politeness state, robots record, recent dead letters, owner history) and the
 * requeue of its dead letters (token-guarded).
 */
import type { HostState } from '@shardline/frontier';
import type { FastifyInstance } from 'fastify';
import { BEARER, type RouteContext } from '../context.js';
import { crawlQuery } from '../schemas-common.js';
import { domainParams } from '../schemas-domains.js';
import { errors } from '../schemas-errors.js';
import {
  inspectResponse,
  locateQuery,
  locateResponse,
  requeueBody,
  requeueResponse,
} from '../schemas-inspect.js';
import { domainStatusOf } from '../stats-reader.js';

/** Hosts (and their queue heads) read for one domain page. */
const HOSTS_SHOWN = 20;
/** Dead letters shown on a domain page (newest first). */
const DEAD_LETTERS_SHOWN = 10;
/** Ring epochs of the owner history. */
const HISTORY_EPOCHS = 20;

const TWO_64 = 2 ** 64;

export function registerInspectRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.get<{ Querystring: { domain: string; crawl?: string } }>(
    '/v1/ring/locate',
    {
      schema: {
        summary: "A domain's place on the ring",
        description:
          "Its ring position (fraction of 2^64) and its owner on the current ring (of the crawl `crawl`'s pods).",
        tags: ['stats'],
        querystring: locateQuery,
        response: { 200: locateResponse, ...errors(400, 404, 503) },
      },
    },
    async (request) => {
      const domain = request.query.domain;
      const snapshot = await (await ctx.readers.scope(request.query.crawl)).cluster.snapshot();
      const { ring } = snapshot;
      return {
        domain,
        position: Number(ring.position(domain)) / TWO_64,
        owner: ring.size === 0 ? null : ring.owner(domain),
        epoch: snapshot.epoch,
      };
    },
  );

  app.get<{ Params: { domain: string }; Querystring: { crawl?: string } }>(
    '/v1/domains/:domain/inspect',
    {
      schema: {
        summary: "One domain's page",
        description: `What the dashboard's domain page shows: status, owner and ring position, counters, the first ${HOSTS_SHOWN} hosts with their politeness state, queue head and robots.txt record, the ${DEAD_LETTERS_SHOWN} newest dead letters, and the owner at each recorded ring epoch.`,
        tags: ['domains'],
        params: domainParams,
        querystring: crawlQuery,
        response: { 200: inspectResponse, ...errors(400, 404, 503) },
      },
    },
    async (request) => {
      const domain = request.params.domain;
      const { reader, frontier, cluster } = await ctx.readers.scope(request.query.crawl);
      await reader.requireDomain(domain);
      const inspector = frontier.inspector;
      const [stats, snapshot, letters, kept, history] = await Promise.all([
        inspector.domainStats(domain),
        cluster.snapshot(),
        inspector.deadLetters(domain, { offset: 0, limit: DEAD_LETTERS_SHOWN }),
        inspector.deadLettersKept(domain),
        cluster.ownerHistory(domain, HISTORY_EPOCHS),
      ]);
      const shown = stats.hosts.slice(0, HOSTS_SHOWN);
      const hosts = await Promise.all(
        shown.map(async (host) => {
          const [state, head, robots] = await Promise.all([
            inspector.hostState(domain, host),
            inspector.queueHead(domain, host),
            ctx.robots ? robotsOf(ctx.robots, host) : Promise.resolve(null),
          ]);
          return {
            host,
            state: politeness(state),
            head: head && {
              url: head.url,
              priority: head.priority,
              depth: head.depth,
              attempt: head.attempt,
            },
            robots,
          };
        }),
      );
      const { ring } = snapshot;
      const { domain: _d, hosts: _h, paused, ...counters } = stats;
      const backingOff = hosts.some(
        (h) => h.state.backoffMs > 0 || h.state.consecutiveFailures > 0,
      );
      return {
        domain,
        status: domainStatusOf(stats, backingOff),
        owner: ring.size === 0 ? null : ring.owner(domain),
        position: Number(ring.position(domain)) / TWO_64,
        epoch: snapshot.epoch,
        paused,
        timeMs: Date.now(),
        counters,
        hostCount: stats.hosts.length,
        hosts,
        deadLetters: letters.map((l) => ({
          url: l.url,
          reason: l.reason,
          message: l.message,
          status: l.status,
          attempt: l.attempt,
          atMs: l.atMs,
        })),
        deadLettersKept: kept,
        ownerHistory: history,
      };
    },
  );

  app.post<{
    Params: { domain: string };
    Querystring: { crawl?: string };
    Body: { max: number } | undefined;
  }>(
    '/v1/domains/:domain/dead-letters/requeue',
    {
      onRequest: ctx.guard,
      schema: {
        summary: "Requeue a domain's dead letters",
        description:
          'Moves up to `max` dead letters (oldest first) back into the queue with a fresh attempt count, into the due index of the current owner; in the crawl `crawl` (the default crawl without it).',
        tags: ['domains'],
        security: BEARER,
        params: domainParams,
        querystring: crawlQuery,
        body: requeueBody,
        response: { 200: requeueResponse, ...errors(400, 401, 403, 404, 409, 415, 503) },
      },
    },
    async (request) => {
      const domain = request.params.domain;
      const { reader, frontier, cluster } = await ctx.readers.scope(request.query.crawl);
      await reader.requireDomain(domain);
      // The frontier files the requeued hosts under today's owner.
      await cluster.snapshot();
      const requeued = await frontier.requeueDeadLetters(domain, request.body?.max ?? 1000);
      const deadLettersKept = await frontier.inspector.deadLettersKept(domain);
      request.log.info({ domain, requeued }, 'dead letters requeued');
      return { domain, requeued, deadLettersKept };
    },
  );
}

function politeness(s: HostState) {
  return {
    queued: s.queued,
    inFlight: s.inFlight,
    nextAllowedAtMs: s.nextAllowedAtMs,
    concurrency: s.concurrency,
    delayMs: s.delayMs,
    crawlDelayMs: s.crawlDelayMs,
    backoffMs: s.backoffMs,
    adaptiveDelayMs: s.adaptiveDelayMs,
    consecutiveFailures: s.consecutiveFailures,
  };
}

/** The robots record of a host (https first, then http); null when none is cached. */
async function robotsOf(
  read: (origin: string) => Promise<object | undefined>,
  host: string,
): Promise<object | null> {
  for (const origin of [`https://${host}`, `http://${host}`]) {
    const record = await read(origin);
    if (record !== undefined) return { origin, ...record };
  }
  return null;
}
