import { describeValue, RobotsError, RobotsErrorCode } from './errors.js';

/** Options of {@link RobotsTxt.parse} and {@link RobotsTxt.fromResponse}. */
export interface RobotsOptions {
  /**
   * Bytes of the body that are parsed; the rest is ignored and `truncated` is set.
   * RFC 9309 §2.5 requires a limit of at least 500 KiB, so smaller values are rejected.
   * @default 512000
   */
  maxBytes?: number;
  /** Cap applied to Crawl-delay values, in milliseconds. @default 60_000 */
  maxCrawlDelayMs?: number;
}

/** RFC 9309 §2.5: "The parsing limit MUST be at least 500 kibibytes". */
export const ROBOTS_MIN_MAX_BYTES = 512_000;
export const DEFAULT_MAX_BYTES = 512_000;
export const DEFAULT_MAX_CRAWL_DELAY_MS = 60_000;

export interface ResolvedRobotsOptions {
  maxBytes: number;
  maxCrawlDelayMs: number;
}

/** Applies defaults and validates; the error names the option, the value and its type. */
export function resolveOptions(options: RobotsOptions | undefined): ResolvedRobotsOptions {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new RobotsError(
      RobotsErrorCode.INVALID_OPTION,
      `options must be an object; got ${describeValue(options)}`,
    );
  }
  const maxBytes = options?.maxBytes ?? DEFAULT_MAX_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < ROBOTS_MIN_MAX_BYTES) {
    throw new RobotsError(
      RobotsErrorCode.INVALID_OPTION,
      `maxBytes must be an integer >= ${ROBOTS_MIN_MAX_BYTES} (RFC 9309 §2.5); got ${describeValue(maxBytes)}`,
    );
  }
  const maxCrawlDelayMs = options?.maxCrawlDelayMs ?? DEFAULT_MAX_CRAWL_DELAY_MS;
  if (
    typeof maxCrawlDelayMs !== 'number' ||
    !Number.isFinite(maxCrawlDelayMs) ||
    maxCrawlDelayMs < 0
  ) {
    throw new RobotsError(
      RobotsErrorCode.INVALID_OPTION,
      `maxCrawlDelayMs must be a finite number >= 0; got ${describeValue(maxCrawlDelayMs)}`,
    );
  }
  return { maxBytes, maxCrawlDelayMs };
}
