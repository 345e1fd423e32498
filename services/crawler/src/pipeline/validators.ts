/**
 * Conditional refetch. A lease of a URL fetched before carries the validators of that fetch
 * (`Lease.validators`, kept by the frontier's recrawl schedule): the fetch sends them as
 * `If-None-Match` / `If-Modified-Since`, so an unchanged page costs a 304 and no body. The
 * completion reports the validators of this response (`ETag`, `Last-Modified`, a hash of the
 * body, when it was captured) and whether the page changed since the last fetch, which the
 * recrawl schedule keeps and adapts its interval to.
 */
import type { Lease, Validators } from '@shardline/frontier';
import type { FetchOutcome } from '../fetcher.js';

/**
 * What tells one version of a page from the next (`Lease.validators` /
 * `CompleteResult.validators`); the pod's `contentHash` is the SHA-1 (base64url) of the
 * decoded body.
 */
export type PageValidators = Validators;

/** What a completion says about the page's version. */
export interface Revalidation {
  /** Validators to keep for the next refetch (absent: keep the stored ones). */
  validators?: PageValidators;
  /** Changed since the last fetch; absent when there is nothing to compare with. */
  changed?: boolean;
}

/** A validator worth sending back: printable ASCII of a sane length (no header injection). */
const SANE = /^[\x20-\x7e]{1,256}$/;

/** The validators a lease carries: set by the recrawl schedule once its URL was fetched. */
export function leaseValidators(lease: Lease): PageValidators | undefined {
  return lease.validators;
}

/** The conditional request headers for `validators` (none for a first fetch). */
export function conditionalHeaders(validators: PageValidators | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (validators?.etag !== undefined && SANE.test(validators.etag)) {
    headers['if-none-match'] = validators.etag;
  }
  if (validators?.lastModified !== undefined && SANE.test(validators.lastModified)) {
    headers['if-modified-since'] = validators.lastModified;
  }
  return headers;
}

/**
 * The page's version after `outcome`: a 304 is unchanged and keeps the previous validators
 * (updated by any the 304 carries); a 2xx brings its own, and changed is decided by the
 * content hash when both fetches have one, else by the ETag, else by `Last-Modified`.
 * Other statuses say nothing about the page's version.
 */
export function revalidate(
  previous: PageValidators | undefined,
  outcome: Pick<FetchOutcome, 'status' | 'headers' | 'contentHash' | 'timings'>,
): Revalidation {
  const fresh = responseValidators(outcome);
  if (outcome.status === 304) {
    return { validators: { ...previous, ...fresh }, changed: false };
  }
  if (outcome.status < 200 || outcome.status >= 300) return {};
  // The capture a later 304 refers to (its WARC revisit record's WARC-Refers-To-Date); a 304
  // keeps the previous one above.
  if (outcome.timings.sentAtMs !== undefined) fresh.capturedAtMs = outcome.timings.sentAtMs;
  const out: Revalidation = { validators: fresh };
  const changed = differs(previous, fresh);
  if (changed !== undefined) out.changed = changed;
  return out;
}

function responseValidators(
  outcome: Pick<FetchOutcome, 'headers' | 'contentHash'>,
): PageValidators {
  const v: PageValidators = {};
  const etag = outcome.headers.etag;
  const lastModified = outcome.headers['last-modified'];
  if (etag !== undefined && SANE.test(etag)) v.etag = etag;
  if (lastModified !== undefined && SANE.test(lastModified)) v.lastModified = lastModified;
  if (outcome.contentHash !== undefined) v.contentHash = outcome.contentHash;
  return v;
}

function differs(previous: PageValidators | undefined, fresh: PageValidators): boolean | undefined {
  if (!previous) return undefined;
  for (const key of ['contentHash', 'etag', 'lastModified'] as const) {
    if (previous[key] !== undefined && fresh[key] !== undefined) {
      return previous[key] !== fresh[key];
    }
  }
  return undefined;
}
