/**
 * The end of every lease: the settlement a stage chose (or `complete` when every stage passed
 * the lease on) becomes one frontier call — complete / fail / release — plus the pod's
 * counters and, except for a gap release, one result record. A lease the frontier no longer
 * holds (`LeaseLostError`: the pod stalled past its lease or session and a survivor requeued
 * it) is counted as `lost` and recorded, never thrown.
 */
import {
  type FrontierError,
  type Lease,
  LeaseLostError,
  type RedisFrontier,
} from '@shardline/frontier';
import type { Logger } from 'pino';
import type { Batcher } from '../batcher.js';
import { CrawlOutcomeCode } from '../errors.js';
import type { FetchOutcome } from '../fetcher.js';
import type { PodCounters } from '../pod-counters.js';
import type { CrawlOutcome, ResultSink } from '../results.js';
import { type LeaseContext, required } from './lease-context.js';
import { durationOf, fetchFields, unfetched } from './result-fields.js';
import type { Settlement } from './stage.js';
import { leaseValidators, type Revalidation, revalidate } from './validators.js';

/**
 * Shortest hold of a host waiting for its robots.txt retry: a pod whose clock runs ahead of
 * Redis would otherwise claim the host again just before its robots answer expires here.
 */
const ROBOTS_MIN_HOLD_MS = 1000;
/** Longest error message kept in a result. */
const MAX_MESSAGE = 300;

/**
 * One lease completion, as the frontier's `completeMany` takes it, plus when its request was
 * sent (`performance.now()`), turned into `sinceSentMs` by {@link completeSinceSent}.
 */
export interface CompleteItem {
  lease: Lease;
  result: { status: number; bytes: number; durationMs: number; links: number } & Revalidation;
  sentAtPerfMs?: number;
}

/**
 * The batch as `completeMany` takes it, each result with `sinceSentMs` measured now: at the
 * flush, right before the call goes to Redis, so the time a completion waited in the batch
 * counts too (measured any earlier the host's next slot would come later than it may).
 */
export function completeSinceSent(items: readonly CompleteItem[]) {
  const now = performance.now();
  return items.map(({ lease, result, sentAtPerfMs }) => ({
    lease,
    result:
      sentAtPerfMs === undefined
        ? result
        : { ...result, sinceSentMs: microsSince(sentAtPerfMs, now) },
  }));
}

/**
 * Ms from `sentAtPerfMs` to `now` (both `performance.now()`), rounded down to the µs: the
 * frontier derives the send time from it in Redis µs, so whole ms would cost each request
 * up to a ms of its host's next slot (rounding down only ever makes that slot later).
 */
export function microsSince(sentAtPerfMs: number, now: number): number {
  return Math.max(0, Math.floor((now - sentAtPerfMs) * 1000) / 1000);
}

/** Options of {@link Settler}. */
export interface SettlerOptions {
  frontier: Pick<RedisFrontier, 'fail' | 'release'>;
  /** Batched `completeMany`: per lease `null`, or the error of a lease no longer held. */
  complete: Pick<Batcher<CompleteItem, FrontierError | null>, 'add'>;
  results: Pick<ResultSink, 'write'>;
  counters: PodCounters;
  logger: Logger;
  /** For the message of a deferred lease: the retries robots.txt gets. */
  robotsMaxRetries: number;
}

type Fail = Extract<Settlement, { kind: 'fail' }>;

/** Settles leases; see the file comment. */
export class Settler {
  readonly #o: SettlerOptions;

  constructor(options: SettlerOptions) {
    this.#o = options;
  }

  /** Ends the lease of `ctx` as `settlement` says. */
  settle(ctx: LeaseContext, settlement: Settlement): Promise<void> {
    switch (settlement.kind) {
      case 'complete':
        return this.#complete(ctx);
      case 'fail':
        return this.#fail(ctx, settlement);
      case 'release':
        return this.#release(ctx);
      case 'defer-for-robots':
        return this.#deferForRobots(ctx);
      case 'release-for-gap':
        return this.#releaseForGap(ctx, settlement.waitMs);
    }
  }

  async #complete(ctx: LeaseContext): Promise<void> {
    const outcome = required(ctx.outcome, 'fetch outcome', 'settle');
    const { counters } = this.#o;
    const [error] = await this.#o.complete.add([
      {
        lease: ctx.lease,
        result: {
          status: outcome.status,
          bytes: outcome.bytes,
          durationMs: durationOf(outcome),
          links: ctx.links.length,
          ...revalidate(leaseValidators(ctx.lease), outcome),
        },
        ...(ctx.sentAtPerfMs === undefined ? {} : { sentAtPerfMs: ctx.sentAtPerfMs }),
      },
    ]);
    counters.bytes += outcome.bytes;
    counters.linksQueued += ctx.linksQueued;
    const bounds = [...new Set(ctx.bounds)];
    counters.countBounds(bounds);
    let result: CrawlOutcome = 'fetched';
    if (error) {
      result = 'lost';
      counters.lost += 1;
    } else counters.fetched += 1;
    if (outcome.status === 304) counters.notModified += 1;
    if (outcome.status >= 400) counters.countError(`http-${outcome.status}`);
    this.#o.results.write({
      ...ctx.base,
      outcome: result,
      ...fetchFields(outcome),
      ...warcFields(ctx),
      links: ctx.links.length,
      linksQueued: ctx.linksQueued,
      ...(bounds.length > 0 ? { bounds: bounds.join(',') } : {}),
      ...(error ? { errorCode: CrawlOutcomeCode.LEASE_LOST, error: error.message } : {}),
      ...(!error && ctx.note ? { error: ctx.note } : {}),
    });
  }

  async #fail(ctx: LeaseContext, why: Fail): Promise<void> {
    const { counters } = this.#o;
    const outcome = ctx.outcome;
    // sent: false (refused before any request went out) leaves the host's slot and backoff.
    const fail: Parameters<RedisFrontier['fail']>[1] = {
      retryable: why.retryable,
      reason: why.code,
      message: why.message,
      status: outcome?.status ?? 0,
      sent: why.sent ?? true,
    };
    if (outcome?.retryAfterMs !== undefined) fail.retryAfterMs = Math.round(outcome.retryAfterMs);
    // Feeds the adaptive delay: a slow 5xx or timeout raises it more than a quick one.
    if (outcome) fail.durationMs = durationOf(outcome);
    let result: CrawlOutcome;
    let errorCode = why.code;
    let message = why.message;
    try {
      const { outcome: next } = await this.#o.frontier.fail(ctx.lease, fail);
      result = next === 'retry' ? 'retry' : 'dead';
    } catch (error) {
      if (!(error instanceof LeaseLostError)) throw error;
      result = 'lost';
      errorCode = CrawlOutcomeCode.LEASE_LOST;
      message = `${why.code}: lease lost`;
    }
    if (result === 'retry') counters.retried += 1;
    else if (result === 'dead') counters.dead += 1;
    else counters.lost += 1;
    counters.countError(why.code);
    if (outcome) counters.bytes += outcome.bytes;
    this.#o.results.write({
      ...ctx.base,
      outcome: result,
      ...resultFields(ctx, outcome),
      links: 0,
      linksQueued: 0,
      errorCode,
      error: message.slice(0, MAX_MESSAGE),
    });
  }

  async #release(ctx: LeaseContext): Promise<void> {
    try {
      await this.#o.frontier.release(ctx.lease);
    } catch (error) {
      // The lease expires and is requeued by the frontier: a repeat at worst.
      this.#o.logger.warn({ err: error, url: ctx.lease.url }, 'release failed');
    }
    this.#o.counters.released += 1;
    this.#o.results.write({
      ...ctx.base,
      outcome: 'released',
      ...resultFields(ctx, ctx.outcome),
      links: 0,
      linksQueued: 0,
      errorCode: CrawlOutcomeCode.STOPPED,
      error: 'pod stopping',
    });
  }

  /**
   * The host's robots.txt request has just gone out and its page must wait a whole delay:
   * give the lease back untouched with the host held until the gap has passed, so the fetch
   * slot serves other hosts meanwhile. No result is written: the URL's one result comes when
   * it is claimed again (robots.txt then answers from memory or Redis).
   */
  async #releaseForGap(ctx: LeaseContext, waitMs: number): Promise<void> {
    try {
      await this.#o.frontier.release(ctx.lease, { holdMs: Math.ceil(waitMs) });
      this.#o.counters.gapReleases += 1;
    } catch (error) {
      if (!(error instanceof LeaseLostError)) throw error;
      this.#o.counters.lost += 1;
    }
  }

  /**
   * The host's robots.txt is unreachable and will be retried at `robots.expiresAtMs`: give the
   * lease back (attempt unchanged) and hold the whole host until then, so neither this URL nor
   * another of the host is claimed before the retry. The frontier applies the hold by Redis
   * time; only its length comes from this pod's clock.
   */
  async #deferForRobots(ctx: LeaseContext): Promise<void> {
    const robots = required(ctx.robots, 'robots answer', 'settle');
    const { counters } = this.#o;
    const holdMs = Math.max(ROBOTS_MIN_HOLD_MS, Math.ceil(robots.expiresAtMs - Date.now()));
    let outcome: CrawlOutcome = 'deferred';
    let errorCode: string = CrawlOutcomeCode.ROBOTS_UNREACHABLE;
    try {
      await this.#o.frontier.release(ctx.lease, { holdMs });
    } catch (error) {
      if (!(error instanceof LeaseLostError)) throw error;
      outcome = 'lost';
      errorCode = CrawlOutcomeCode.LEASE_LOST;
    }
    if (outcome === 'deferred') counters.robotsDeferred += 1;
    else counters.lost += 1;
    counters.countError(CrawlOutcomeCode.ROBOTS_UNREACHABLE);
    const reason = robots.robots.reason ?? 'error';
    const attempts = `attempt ${robots.unreachable} of ${this.#o.robotsMaxRetries + 1}`;
    const held = `host held ${Math.round(holdMs / 1000)} s until the retry`;
    this.#o.results.write({
      ...ctx.base,
      outcome,
      ...unfetched(ctx.base),
      links: 0,
      linksQueued: 0,
      errorCode,
      error: `robots.txt unreachable (${reason}), ${attempts}; ${held}`.slice(0, MAX_MESSAGE),
    });
  }
}

/** The fetch fields of a result: from the outcome when there is one, else "nothing sent". */
function resultFields(ctx: LeaseContext, outcome: FetchOutcome | undefined) {
  return outcome ? { ...fetchFields(outcome), ...warcFields(ctx) } : unfetched(ctx.base);
}

/** Where the response was archived, when it was. */
function warcFields(ctx: LeaseContext) {
  const warc = ctx.warc;
  return warc ? { warcFile: warc.file, warcOffset: warc.offset, warcLength: warc.length } : {};
}
