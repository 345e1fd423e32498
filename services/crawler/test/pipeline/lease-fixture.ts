/** Leases and lease contexts for the stage tests (no Redis: the lease is what a claim returns). */
import type { Lease } from '@shardline/frontier';
import type { FetchOutcome } from '../../src/fetcher.js';
import { type LeaseContext, newLeaseContext } from '../../src/pipeline/lease-context.js';

/** A lease of `url` as a claim would hand it out. */
export function leaseOf(url: string, patch: Partial<Lease> = {}): Lease {
  const host = new URL(url).hostname;
  return {
    id: `${host}/${host}/1`,
    url,
    host,
    domain: host,
    priority: 0,
    depth: 0,
    attempt: 1,
    deadlineMs: 0,
    claimedAtMs: Date.now(),
    pod: 'pod-t',
    meta: '',
    ...patch,
  };
}

/** A fresh context for a lease of `url`. */
export function contextOf(
  url: string,
  patch: Partial<Lease> = {},
  signal = new AbortController().signal,
): LeaseContext {
  return newLeaseContext(leaseOf(url, patch), signal, 'pod-t');
}

/** A fetch outcome as the fetcher reports it. */
export function outcomeOf(patch: Partial<FetchOutcome> = {}): FetchOutcome {
  const now = Date.now();
  return {
    url: 'http://site.test/',
    status: 200,
    headers: {},
    bytes: 0,
    truncated: false,
    timings: { startedAtMs: now - 20, sentAtMs: now - 15, headersAtMs: now - 5, endAtMs: now },
    ...patch,
  };
}
