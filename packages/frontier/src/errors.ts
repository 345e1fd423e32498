/**
 * Errors thrown by `@shardline/frontier`. Callers branch on `code`, never on the message.
 */

/** Stable codes of the errors this package throws. */
export const FrontierErrorCode = {
  OPTIONS: 'SHARDLINE_ERR_FRONTIER_OPTIONS',
  ARGUMENT: 'SHARDLINE_ERR_FRONTIER_ARGUMENT',
  LEASE_LOST: 'SHARDLINE_ERR_FRONTIER_LEASE_LOST',
  LEASE_NOT_HELD: 'SHARDLINE_ERR_FRONTIER_LEASE_NOT_HELD',
  REPLY: 'SHARDLINE_ERR_FRONTIER_REPLY',
  REDIS_OOM: 'SHARDLINE_ERR_REDIS_OOM',
  FRONTIER_LOST: 'SHARDLINE_ERR_FRONTIER_LOST',
  CRAWL_DELETING: 'SHARDLINE_ERR_CRAWL_DELETING',
} as const;
export type FrontierErrorCode = (typeof FrontierErrorCode)[keyof typeof FrontierErrorCode];

/**
 * Codes of per-item enqueue rejections that come from the frontier itself (URL syntax
 * rejections carry the `@shardline/url` codes). They are reported in results, not thrown.
 */
export const FrontierRejectCode = {
  DEPTH: 'SHARDLINE_ERR_FRONTIER_DEPTH',
  META: 'SHARDLINE_ERR_FRONTIER_META',
  PRIORITY: 'SHARDLINE_ERR_FRONTIER_PRIORITY',
  INPUT: 'SHARDLINE_ERR_FRONTIER_INPUT',
  REFETCH: 'SHARDLINE_ERR_FRONTIER_REFETCH',
} as const;
export type FrontierRejectCode = (typeof FrontierRejectCode)[keyof typeof FrontierRejectCode];

/**
 * Code on an `over-cap` enqueue result when the domain reached `maxAcceptedPerDomain` (URLs
 * accepted over the crawl); an `over-cap` without a code is the queue cap
 * (`maxQueuedPerDomain`, room comes back as URLs are claimed).
 */
export const FrontierCapCode = {
  ACCEPT_CAP: 'SHARDLINE_ERR_FRONTIER_ACCEPT_CAP',
  /** The host reached `maxAcceptedPerHost`. */
  HOST_ACCEPT_CAP: 'SHARDLINE_ERR_FRONTIER_HOST_ACCEPT_CAP',
} as const;
export type FrontierCapCode = (typeof FrontierCapCode)[keyof typeof FrontierCapCode];

/** Base class: every frontier error has a fixed `name` and a stable `code`. */
export class FrontierError extends Error {
  override readonly name: string = 'FrontierError';
  readonly code: FrontierErrorCode;

  constructor(code: FrontierErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'function';
  return String(value);
}

/** An invalid {@link FrontierOptions} value (a programming error). */
export class FrontierOptionsError extends FrontierError {
  override readonly name = 'FrontierOptionsError';
  /** Name of the offending option. */
  readonly option: string;
  readonly value: unknown;

  constructor(option: string, value: unknown, expected: string) {
    super(
      'SHARDLINE_ERR_FRONTIER_OPTIONS',
      `option ${option} must be ${expected}, got ${show(value)} (${typeName(value)})`,
    );
    this.option = option;
    this.value = value;
  }
}

/** An invalid method argument: a malformed pod id, lease id, domain or host. */
export class FrontierArgumentError extends FrontierError {
  override readonly name = 'FrontierArgumentError';
  readonly argument: string;
  readonly value: unknown;

  constructor(argument: string, value: unknown, expected: string) {
    super(
      'SHARDLINE_ERR_FRONTIER_ARGUMENT',
      `${argument} must be ${expected}, got ${show(value)} (${typeName(value)})`,
    );
    this.argument = argument;
    this.value = value;
  }
}

/**
 * The lease no longer exists: it expired and was reaped (the URL went back to the queue
 * and will be fetched again, counted as a repeat), or it was already completed, failed or
 * released. The caller should drop its work on the lease.
 */
export class LeaseLostError extends FrontierError {
  override readonly name = 'LeaseLostError';
  readonly leaseId: string;

  constructor(leaseId: string) {
    super('SHARDLINE_ERR_FRONTIER_LEASE_LOST', `lease ${leaseId} is no longer held`);
    this.leaseId = leaseId;
  }
}

/** The lease exists but another pod holds it (a caller passed the wrong `pod`). */
export class LeaseNotHeldError extends FrontierError {
  override readonly name = 'LeaseNotHeldError';
  readonly leaseId: string;
  readonly pod: string;

  constructor(leaseId: string, pod: string) {
    super('SHARDLINE_ERR_FRONTIER_LEASE_NOT_HELD', `lease ${leaseId} is not held by pod ${pod}`);
    this.leaseId = leaseId;
    this.pod = pod;
  }
}

/** A script replied in a shape this version does not understand (mixed deployments). */
export class FrontierReplyError extends FrontierError {
  override readonly name = 'FrontierReplyError';

  constructor(script: string, reply: unknown) {
    super(
      'SHARDLINE_ERR_FRONTIER_REPLY',
      `unexpected reply from frontier script ${script}: ${JSON.stringify(reply)?.slice(0, 200)}`,
    );
  }
}

/** Whether `error` is Redis refusing a write for want of memory (`maxmemory` + `noeviction`). */
export function isOomReply(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('OOM ');
}

/**
 * Redis refused a write because it is full (`maxmemory` reached with `noeviction`). Nothing of
 * the refused call was written: every frontier script is either refused whole under OOM or
 * flagged `allow-oom` because it only shrinks or rewrites state. A write may be retried once
 * Redis has room again. On `enqueue`, `report` tells what was queued before the refusal and
 * `pending` lists the input indexes not queued (retry those).
 */
export class RedisOomError extends FrontierError {
  override readonly name = 'RedisOomError';
  /** Enqueue only: what the call queued before Redis refused (results of pending items say `queued` too — ignore them). */
  readonly report: EnqueueReportLike | undefined;
  /** Enqueue only: indexes of the input items that were not queued. */
  readonly pending: readonly number[];

  constructor(cause: unknown, partial?: { report: EnqueueReportLike; pending: number[] }) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    const done = partial
      ? `; ${partial.report.queued} URL(s) queued before it, ${partial.pending.length} not queued`
      : '';
    super(
      'SHARDLINE_ERR_REDIS_OOM',
      `Redis is out of memory and refuses writes (${detail.split('.')[0]})${done}: raise maxmemory or free memory`,
    );
    this.cause = cause;
    this.report = partial?.report;
    this.pending = partial?.pending ?? [];
  }
}

/** The counts of an enqueue report (kept structural here: errors.ts imports no types module). */
interface EnqueueReportLike {
  queued: number;
  duplicates: number;
  rejected: number;
  overCap: number;
}

/**
 * The frontier this process worked on is gone: its identity key vanished or changed, i.e.
 * Redis restarted without persistence (or was flushed) and every queued URL, seen-set and
 * lease with it. Never a finished crawl: the process stops and says so.
 */
export class FrontierLostError extends FrontierError {
  override readonly name = 'FrontierLostError';
  readonly expected: string;
  readonly found: string | null;

  constructor(expected: string, found: string | null) {
    super(
      'SHARDLINE_ERR_FRONTIER_LOST',
      `the frontier is gone: Redis lost its data (identity ${expected} ${
        found === null ? 'missing' : `replaced by ${found}`
      }; restarted without persistence or flushed). Queued URLs were lost: turn on AOF ` +
        '(appendonly yes) and seed again',
    );
    this.expected = expected;
    this.found = found;
  }
}

/** Status codes returned first by the lease scripts (heartbeat, complete, fail, release). */
export enum LeaseStatus {
  Ok = 0,
  NotFound = 1,
  NotHolder = 2,
}

/** Maps a lease script status to its typed error (`undefined` for {@link LeaseStatus.Ok}). */
export function leaseStatusError(
  status: number,
  leaseId: string,
  pod: string,
): FrontierError | undefined {
  switch (status) {
    case LeaseStatus.Ok:
      return undefined;
    case LeaseStatus.NotFound:
      return new LeaseLostError(leaseId);
    case LeaseStatus.NotHolder:
      return new LeaseNotHeldError(leaseId, pod);
    default:
      return new FrontierReplyError('lease status', status);
  }
}

/**
 * A write to a crawl that is being deleted (`shardline crawl delete`): refused, so that
 * nothing is written behind the deleter. Finish the deletion, or use another crawl id.
 */
export class CrawlDeletingError extends FrontierError {
  override readonly name = 'CrawlDeletingError';
  readonly crawlId: string;

  constructor(crawlId: string) {
    super(
      'SHARDLINE_ERR_CRAWL_DELETING',
      `crawl ${JSON.stringify(crawlId)} is being deleted: nothing more can be written to it; ` +
        `finish with \`shardline crawl delete ${crawlId}\` or use another --crawl-id`,
    );
    this.crawlId = crawlId;
  }
}
