/**
 * Stage 6, classify: what the fetch outcome means for the lease. A fetch aborted by a stop is
 * released; network, protocol and timeout errors fail (retried when the host may recover;
 * not counted as sent when nothing reached the host); 429 and 5xx fail retryably (the host
 * backs off, `Retry-After` honoured). Everything else — 2xx, 3xx, other 4xx — was fetched and
 * goes on, a body cut at the cap recorded as bound `body-cap`.
 */
import { FetchErrorCode } from '../errors.js';
import { type LeaseContext, required } from './lease-context.js';
import type { LeaseStage, Settlement } from './stage.js';

/** Fetch error codes worth another attempt (the host may recover). */
const RETRYABLE_FETCH = new Set<string>([
  FetchErrorCode.TIMEOUT,
  FetchErrorCode.HEADERS_TIMEOUT,
  FetchErrorCode.BODY_TIMEOUT,
  FetchErrorCode.CONNECT_TIMEOUT,
  FetchErrorCode.CONNECT,
  FetchErrorCode.DNS,
  FetchErrorCode.UNKNOWN,
]);

/**
 * Fetch error codes raised before any packet reached the host (name resolution, address
 * policy, a URL that cannot be requested): such failures must not back the host off.
 */
const UNSENT_FETCH = new Set<string>([
  FetchErrorCode.DNS,
  FetchErrorCode.DNS_REFUSED,
  FetchErrorCode.INVALID_URL,
]);

/** Ends the lease unless its fetch outcome is a response to keep. */
export class ClassifyStage implements LeaseStage {
  readonly name = 'classify';

  run(ctx: LeaseContext): Settlement | undefined {
    const outcome = required(ctx.outcome, 'fetch outcome', this.name);
    const error = outcome.error;
    if (error?.code === FetchErrorCode.ABORTED) return { kind: 'release' };
    if (error) {
      return {
        kind: 'fail',
        retryable: RETRYABLE_FETCH.has(error.code),
        code: error.code,
        message: error.message,
        sent: !UNSENT_FETCH.has(error.code),
      };
    }
    if (outcome.status === 429 || outcome.status >= 500) {
      return {
        kind: 'fail',
        retryable: true,
        code: `http-${outcome.status}`,
        message: `HTTP ${outcome.status}`,
      };
    }
    if (outcome.truncated && outcome.body) ctx.bounds.push('body-cap');
    return undefined;
  }
}
