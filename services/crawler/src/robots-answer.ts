/**
 * What one robots.txt fetch means (RFC 9309 §2.3.1): the rules, how long they hold, and whether
 * the host was reachable. 2xx → the parsed file; 4xx → allow all; 5xx, 429 or no complete
 * response → "unreachable", disallow all until a retry; a redirect to an address that cannot be
 * fetched → unavailable, allow all. Cache lifetime follows `Cache-Control: max-age` within bounds.
 */
import { type RobotsFetchOutcome, RobotsTxt } from '@shardline/robots';
import { FetchErrorCode } from './errors.js';
import type { FetchOutcome } from './fetch-types.js';

/** The loader's bounds an answer is computed with. */
export interface AnswerLimits {
  /** Parse limit of a robots.txt body. */
  maxBytes: number;
  /** Longest a fetched answer is cached. */
  ttlMs: number;
  /** Shortest, whatever `max-age` says. */
  minTtlMs: number;
  /** When an unreachable robots.txt is tried again (at least; a Retry-After may say later). */
  unreachableRetryMs: number;
}

/** The rules of a fetch and how long they hold. */
export interface RobotsAnswer {
  robots: RobotsTxt;
  ttlMs: number;
  reachable: boolean;
  /** Why robots.txt counts as unavailable (allow all) although no 4xx was answered. */
  unavailable?: string;
}

/** Fetch errors of a redirect target that make it a redirect to nowhere. */
const NOWHERE = new Set<string>([FetchErrorCode.DNS_REFUSED, FetchErrorCode.DNS]);

/** The answer of the last hop of a robots.txt fetch. */
export function robotsAnswer(outcome: FetchOutcome, limits: AnswerLimits): RobotsAnswer {
  const reachable = !isUnreachable(outcome);
  return {
    robots: interpret(outcome, limits.maxBytes),
    ttlMs: reachable ? ttlFor(outcome, limits) : retryMsFor(outcome, limits),
    reachable,
  };
}

/**
 * A redirect to an address the policy refuses, or to a name that does not resolve, is a
 * redirect to nowhere: RFC 9309 §2.3.1.3 lets a crawler take robots.txt as unavailable after
 * bad redirects (as a 4xx: allow all). Held as unreachable, the host would wait out every retry
 * for a file that can never be fetched. `undefined` when `outcome` is not such a hop.
 */
export function nowhereAnswer(
  url: string,
  outcome: FetchOutcome,
  ttlMs: number,
): RobotsAnswer | undefined {
  const error = outcome.error;
  if (!error || !NOWHERE.has(error.code)) return undefined;
  const why = `robots.txt redirects to ${url}, which cannot be fetched (${error.code}: ${error.message}): unavailable, allow all`;
  return { robots: RobotsTxt.allowAll(why), ttlMs, reachable: true, unavailable: why };
}

function interpret(outcome: FetchOutcome, maxBytes: number): RobotsTxt {
  // Only a complete (or cap-truncated) 2xx body is parsed; a body cut short by a network
  // error or timeout is treated as unreachable, failing closed.
  const failed = outcome.error !== undefined && outcome.error.code !== FetchErrorCode.TOO_LARGE;
  const response: RobotsFetchOutcome =
    failed || outcome.status === 0
      ? {
          error: outcome.error ? `${outcome.error.code}: ${outcome.error.message}` : 'no response',
        }
      : { status: outcome.status, body: outcome.body ?? '' };
  return RobotsTxt.fromResponse(response, { maxBytes });
}

/** Lifetime of the disallow-all answer for an unreachable robots.txt: when it is retried. */
function retryMsFor(outcome: FetchOutcome, limits: AnswerLimits): number {
  return Math.min(Math.max(limits.unreachableRetryMs, outcome.retryAfterMs ?? 0), limits.ttlMs);
}

function ttlFor(outcome: FetchOutcome, limits: AnswerLimits): number {
  const maxAgeMs = parseMaxAgeMs(outcome.headers['cache-control']);
  if (maxAgeMs === undefined) return limits.ttlMs;
  return Math.min(limits.ttlMs, Math.max(limits.minTtlMs, maxAgeMs));
}

/** 5xx, 429 or no (complete) response: RFC 9309 §2.3.1.3–4 "unreachable", disallow all. */
function isUnreachable(outcome: FetchOutcome): boolean {
  return (
    (outcome.error !== undefined && outcome.error.code !== FetchErrorCode.TOO_LARGE) ||
    outcome.status === 0 ||
    outcome.status === 429 ||
    outcome.status >= 500
  );
}

/** `max-age` of a Cache-Control value in ms (`no-store` / `no-cache` count as 0). */
function parseMaxAgeMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const lower = value.toLowerCase();
  if (/(^|[\s,])(no-store|no-cache)([\s,]|$)/.test(lower)) return 0;
  const match = /(?:^|[\s,])max-age\s*=\s*"?(\d+)"?/.exec(lower);
  return match ? Number(match[1]) * 1000 : undefined;
}
