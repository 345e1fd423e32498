/** The result fields a lease's fetch outcome (or its absence) contributes. */
import type { FetchOutcome } from '../fetcher.js';
import type { CrawlResult } from '../results.js';
import type { ResultBase } from './lease-context.js';

/** Send (or start) to end of a fetch, in whole ms. */
export function durationOf(outcome: FetchOutcome): number {
  const t = outcome.timings;
  return Math.max(0, Math.round(t.endAtMs - (t.sentAtMs ?? t.startedAtMs)));
}

/** The result fields of a lease that sent nothing (refused, deferred, released untouched). */
export function unfetched(
  base: ResultBase,
): Pick<CrawlResult, 'status' | 'bytes' | 'truncated' | 'endAtMs' | 'durationMs'> {
  const endAtMs = Date.now();
  return { status: 0, bytes: 0, truncated: false, endAtMs, durationMs: endAtMs - base.startedAtMs };
}

/** The result fields of a fetch outcome. */
export function fetchFields(outcome: FetchOutcome) {
  const t = outcome.timings;
  const fields: Pick<
    CrawlResult,
    | 'status'
    | 'bytes'
    | 'truncated'
    | 'endAtMs'
    | 'durationMs'
    | 'contentType'
    | 'redirectTo'
    | 'sentAtMs'
    | 'headersAtMs'
    | 'retryAfterMs'
  > = {
    status: outcome.status,
    bytes: outcome.bytes,
    truncated: outcome.truncated,
    endAtMs: t.endAtMs,
    durationMs: durationOf(outcome),
  };
  if (outcome.contentType !== undefined) fields.contentType = outcome.contentType;
  if (outcome.redirectTo !== undefined) fields.redirectTo = outcome.redirectTo;
  if (t.sentAtMs !== undefined) fields.sentAtMs = t.sentAtMs;
  if (t.headersAtMs !== undefined) fields.headersAtMs = t.headersAtMs;
  if (outcome.retryAfterMs !== undefined) fields.retryAfterMs = outcome.retryAfterMs;
  return fields;
}
