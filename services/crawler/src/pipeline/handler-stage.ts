/**
 * Stage 7, page handler: runs the user's handler (`--handler FILE` or the pod option
 * `pageHandler`) on a fetched 2xx page — after its response is archived, with the host's
 * politeness slot already free: the fetch stage closed the send gate's pass when the response
 * ended, and this stage frees the frontier's slot (`freeSlot`) before calling the handler, so a
 * slow handler neither holds the host's concurrency nor pushes its next request. The lease
 * stays held until the handler ends: what the handler pushes and enqueues takes effect only when
 * it returns; one that throws or runs past `handlerTimeoutMs` fails the lease with
 * `SHARDLINE_ERR_HANDLER` (retried, dead-lettered after the retries) and its items and URLs are
 * dropped, so a retry does not duplicate them; a pod that dies meanwhile leaves the lease to be
 * reaped and the page fetched again.
 */
import { type EnqueueResult, LeaseLostError, type RedisFrontier } from '@shardline/frontier';
import type { Logger } from 'pino';
import { CrawlOutcomeCode, oneLine } from '../errors.js';
import { checkEnqueue } from '../handlers/enqueue-args.js';
import { checkItem, type ItemRecord, MAX_ITEMS_PER_PAGE } from '../handlers/items.js';
import { type HandlerContext, Page, type PageHandler } from '../handlers/page-api.js';
import type { ResultSink } from '../results.js';
import { tagsMeta } from '../tags.js';
import { type FoundLink, type LeaseContext, required } from './lease-context.js';
import type { LinkFilter } from './link-filter.js';
import { durationOf } from './result-fields.js';
import { microsSince } from './settle.js';
import type { LeaseStage, Settlement } from './stage.js';

/** Options of {@link HandlerStage}. */
export interface HandlerStageOptions {
  /** The handler (loaded when the pod starts, so a getter). */
  handler: () => PageHandler;
  /** Frees the host's politeness slot of a lease whose handler is about to run. */
  frontier: Pick<RedisFrontier, 'freeSlot'>;
  timeoutMs: number;
  pod: string;
  items: Pick<ResultSink<ItemRecord>, 'write'>;
  links: Pick<LinkFilter, 'scoped'>;
  enqueue: (items: FoundLink[]) => Promise<EnqueueResult[]>;
  counters: { items: number; handlerErrors: number };
  logger: Logger;
}

interface Requested {
  urls: string[];
  priority: number;
  meta: string;
  refetchAfterMs: number | undefined;
}

/** Runs the page handler; see the file comment. */
export class HandlerStage implements LeaseStage {
  readonly name = 'page-handler';
  readonly #o: HandlerStageOptions;

  constructor(options: HandlerStageOptions) {
    this.#o = options;
  }

  async run(ctx: LeaseContext): Promise<Settlement | undefined> {
    const outcome = required(ctx.outcome, 'fetch outcome', this.name);
    if (ctx.sitemapLevel !== undefined || outcome.status < 200 || outcome.status >= 300) {
      return undefined;
    }
    const { lease } = ctx;
    try {
      await this.#o.frontier.freeSlot(lease, {
        durationMs: durationOf(outcome),
        ...(ctx.sentAtPerfMs === undefined
          ? {}
          : { sinceSentMs: microsSince(ctx.sentAtPerfMs, performance.now()) }),
      });
    } catch (error) {
      // Reaped after a stall: another pod fetches the page again, and runs the handler there;
      // the settlement reports this one lost.
      if (error instanceof LeaseLostError) return undefined;
      // Otherwise the host's slot is freed when the lease ends, as without a handler.
      this.#o.logger.warn({ err: error, url: lease.url }, 'could not free the host slot');
    }
    const page = new Page(outcome, lease.depth, lease.meta);
    const items: ItemRecord[] = [];
    const requested: Requested[] = [];
    let enqueued = 0;
    let skip = false;
    const api: HandlerContext = {
      push: (item) => {
        if (items.length >= MAX_ITEMS_PER_PAGE) {
          throw new RangeError(`ctx.push: at most ${MAX_ITEMS_PER_PAGE} items per page`);
        }
        items.push({ url: lease.url, pod: this.#o.pod, atMs: Date.now(), item: checkItem(item) });
      },
      enqueue: (urls, options) => {
        const args = checkEnqueue(urls, options, enqueued);
        enqueued += args.urls.length;
        requested.push({
          urls: args.urls.map((url) => absolute(url, page.url)),
          priority: args.priority,
          meta: args.tags ? tagsMeta(args.tags) : lease.meta,
          refetchAfterMs: args.refetchAfterMs,
        });
      },
      skipLinks: () => {
        skip = true;
      },
      log: this.#o.logger.child({ url: lease.url }),
    };
    try {
      await withTimeout(Promise.resolve(this.#o.handler()(page, api)), this.#o.timeoutMs);
    } catch (error) {
      this.#o.counters.handlerErrors += 1;
      return {
        kind: 'fail',
        retryable: true,
        code: CrawlOutcomeCode.HANDLER,
        message: oneLine(`page handler: ${error instanceof Error ? error.message : String(error)}`),
      };
    }
    for (const item of items) this.#o.items.write(item);
    this.#o.counters.items += items.length;
    ctx.skipPageLinks = skip;
    await this.#enqueue(ctx, requested);
    return undefined;
  }

  async #enqueue(ctx: LeaseContext, requested: Requested[]): Promise<void> {
    const rules = required(ctx.robots, 'robots answer', this.name).robots;
    const found: FoundLink[] = [];
    for (const group of requested) {
      for (const link of this.#o.links.scoped(group.urls, ctx.lease, rules, ctx.bounds)) {
        found.push({
          ...link,
          priority: group.priority,
          meta: group.meta,
          ...(group.refetchAfterMs === undefined ? {} : { refetchAfterMs: group.refetchAfterMs }),
        });
      }
    }
    if (found.length === 0) return;
    const results = await this.#o.enqueue(found);
    ctx.links.push(...found);
    for (const r of results) if (r.status === 'queued') ctx.linksQueued += 1;
  }
}

/** `url` resolved against the page; left as given when it cannot be (the scope then refuses it). */
function absolute(url: string, base: string): string {
  return URL.canParse(url, base) ? new URL(url, base).href : url;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`exceeded handlerTimeoutMs (${ms} ms)`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
