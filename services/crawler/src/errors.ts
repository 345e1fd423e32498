/**
 * Stable error codes of the crawler's fetch and parse layer. The fetcher never throws for
 * network or protocol problems: these codes arrive as `FetchOutcome.error.code`. Only
 * programming errors (bad options, calls after `close()`) are thrown, as {@link CrawlerError}.
 */
export const FetchErrorCode = {
  /** `maxFetchMs` (total wall time, including a slow-drip body) ran out. */
  TIMEOUT: 'SHARDLINE_ERR_FETCH_TIMEOUT',
  /** No response headers within `headersTimeoutMs` after the request was sent. */
  HEADERS_TIMEOUT: 'SHARDLINE_ERR_FETCH_HEADERS_TIMEOUT',
  /** No body byte for `bodyTimeoutMs` (idle body). */
  BODY_TIMEOUT: 'SHARDLINE_ERR_FETCH_BODY_TIMEOUT',
  /** The TCP/TLS connect did not finish within `connectTimeoutMs`. */
  CONNECT_TIMEOUT: 'SHARDLINE_ERR_FETCH_CONNECT_TIMEOUT',
  /** The body passed `maxBodyBytes` and `oversize` is `'error'` (with `'truncate'` it is not an error). */
  TOO_LARGE: 'SHARDLINE_ERR_FETCH_TOO_LARGE',
  /** The DNS layer refused every address of the host (private, loopback, metadata…). */
  DNS_REFUSED: 'SHARDLINE_ERR_FETCH_DNS_REFUSED',
  /** The name did not resolve (NXDOMAIN, SERVFAIL, DNS timeout). */
  DNS: 'SHARDLINE_ERR_FETCH_DNS',
  /** The connection was refused, reset or closed before a complete response. */
  CONNECT: 'SHARDLINE_ERR_FETCH_CONNECT',
  /** TLS handshake or certificate failure. */
  TLS: 'SHARDLINE_ERR_FETCH_TLS',
  /** The server broke HTTP (bad status line or headers, length mismatch, oversized headers). */
  PROTOCOL: 'SHARDLINE_ERR_FETCH_PROTOCOL',
  /** The body could not be decoded (corrupt gzip/br/deflate stream). */
  DECODE: 'SHARDLINE_ERR_FETCH_DECODE',
  /** The caller's `signal` aborted the fetch. */
  ABORTED: 'SHARDLINE_ERR_FETCH_ABORTED',
  /** The URL is not an absolute http(s) URL. */
  INVALID_URL: 'SHARDLINE_ERR_FETCH_INVALID_URL',
  /** Anything undici reported that none of the codes above describes. */
  UNKNOWN: 'SHARDLINE_ERR_FETCH_UNKNOWN',
} as const;

export type FetchErrorCode = (typeof FetchErrorCode)[keyof typeof FetchErrorCode];

/** Codes of errors this layer throws (programming errors, never network conditions). */
export const CrawlerErrorCode = {
  /** An `XxxOptions` value has the wrong type or is out of range. */
  INVALID_OPTION: 'SHARDLINE_ERR_CRAWLER_INVALID_OPTION',
  /** `fetch()` or `load()` was called after `close()`. */
  CLOSED: 'SHARDLINE_ERR_CRAWLER_CLOSED',
  /** A robots.txt load was abandoned: its caller's or the loader's `signal` aborted (nothing cached). */
  ABORTED: 'SHARDLINE_ERR_CRAWLER_ABORTED',
  /** A method was called with an argument it cannot use (e.g. `LinkScope.decide` without the page URL). */
  INVALID_ARGUMENT: 'SHARDLINE_ERR_CRAWLER_INVALID_ARGUMENT',
  /** An environment variable or config-file value is malformed; the message names it (and the file). */
  CONFIG: 'SHARDLINE_ERR_CRAWLER_CONFIG',
  /** Redis did not answer within `REDIS_CONNECT_TIMEOUT_MS` at start; the message names the URL and cause. */
  REDIS_UNREACHABLE: 'SHARDLINE_ERR_CRAWLER_REDIS_UNREACHABLE',
  /** The health server could not bind `HEALTH_PORT` (in use, no such address…); the message says why. */
  LISTEN: 'SHARDLINE_ERR_CRAWLER_LISTEN',
} as const;

export type CrawlerErrorCode = (typeof CrawlerErrorCode)[keyof typeof CrawlerErrorCode];

/** The error class this layer throws; branch on `code`. */
export class CrawlerError extends Error {
  override readonly name = 'CrawlerError';
  readonly code: CrawlerErrorCode;
  /** With `INVALID_OPTION`: the option and what it must be, for a caller to name its source. */
  readonly option?: { name: string; expected: string };

  constructor(
    code: CrawlerErrorCode,
    message: string,
    options?: { cause?: unknown; option?: { name: string; expected: string } },
  ) {
    super(message, options);
    this.code = code;
    if (options?.option) this.option = options.option;
  }
}

/** Error for a bad constructor option; names the options type, the option, the value and its type. */
export function invalidOption(
  owner: string,
  option: string,
  value: unknown,
  expected: string,
): CrawlerError {
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return new CrawlerError(
    CrawlerErrorCode.INVALID_OPTION,
    `${owner}.${option} must be ${expected}; got ${shown} (${describeType(value)})`,
    { option: { name: option, expected } },
  );
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof RegExp) return 'RegExp';
  return typeof value;
}

/** Validation helpers shared by the option-taking classes of this service. */
export const check = {
  /** An integer in `[min, max]`, or `undefined` (then `fallback`). */
  int(
    owner: string,
    option: string,
    value: unknown,
    fallback: number,
    min = 0,
    max = Number.MAX_SAFE_INTEGER,
  ): number {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw invalidOption(owner, option, value, `an integer in [${min}, ${max}]`);
    }
    return value;
  },
  /** A non-empty string, or `undefined` (then `fallback`). */
  string(owner: string, option: string, value: unknown, fallback: string): string {
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || value.length === 0) {
      throw invalidOption(owner, option, value, 'a non-empty string');
    }
    return value;
  },
  /** A boolean, or `undefined` (then `fallback`). */
  bool(owner: string, option: string, value: unknown, fallback: boolean): boolean {
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') throw invalidOption(owner, option, value, 'a boolean');
    return value;
  },
  /** A function, or `undefined`. */
  fn<T>(owner: string, option: string, value: unknown): T | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'function') throw invalidOption(owner, option, value, 'a function');
    return value as T;
  },
};

/**
 * Codes the pod writes into crawl results (and dead-letter reasons) for decisions that are not
 * fetch failures. Never thrown.
 */
export const CrawlOutcomeCode = {
  /** robots.txt disallows the URL for our product token: not fetched. */
  ROBOTS_DISALLOWED: 'SHARDLINE_ERR_CRAWLER_ROBOTS_DISALLOWED',
  /** robots.txt was unreachable (5xx, 429, timeout, network): the host is disallowed until it is retried. */
  ROBOTS_UNREACHABLE: 'SHARDLINE_ERR_CRAWLER_ROBOTS_UNREACHABLE',
  /** The fetch was aborted because the pod is stopping; the lease was released. */
  STOPPED: 'SHARDLINE_ERR_CRAWLER_STOPPED',
  /** The lease expired and was taken back before the outcome could be recorded. */
  LEASE_LOST: 'SHARDLINE_ERR_CRAWLER_LEASE_LOST',
  /** The page handler threw or ran past `handlerTimeoutMs`: retried, dead-lettered after the retries. */
  HANDLER: 'SHARDLINE_ERR_HANDLER',
  /** The fetch's WARC records could not be written (disk full, permissions): retried. */
  WARC: 'SHARDLINE_ERR_WARC_IO',
} as const;

export type CrawlOutcomeCode = (typeof CrawlOutcomeCode)[keyof typeof CrawlOutcomeCode];

/**
 * `text` on one line (each line break and the spaces around it become one space): an error
 * quoted in a result, a dead letter or a one-line CLI message is read as one line.
 */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}
