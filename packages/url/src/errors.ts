/**
 * Stable codes of {@link UrlError}; callers branch on these, never on the message.
 *
 * - `SHARDLINE_ERR_URL_INVALID`: empty or whitespace-only input, a relative reference
 *   without a base, port 0, or anything WHATWG `URL` refuses to parse.
 * - `SHARDLINE_ERR_URL_SCHEME`: a scheme other than `http:` / `https:`.
 * - `SHARDLINE_ERR_URL_CREDENTIALS`: a user name or password in the URL.
 * - `SHARDLINE_ERR_URL_TOO_LONG`: the input or the canonical URL exceeds its bound.
 * - `SHARDLINE_ERR_URL_HOST`: a host that is not a DNS name or an IP literal.
 */
export const UrlErrorCode = {
  INVALID: 'SHARDLINE_ERR_URL_INVALID',
  SCHEME: 'SHARDLINE_ERR_URL_SCHEME',
  CREDENTIALS: 'SHARDLINE_ERR_URL_CREDENTIALS',
  TOO_LONG: 'SHARDLINE_ERR_URL_TOO_LONG',
  HOST: 'SHARDLINE_ERR_URL_HOST',
} as const;
export type UrlErrorCode = (typeof UrlErrorCode)[keyof typeof UrlErrorCode];

/** Inputs are kept in errors for logs; a hostile 10 MB link must not be. */
const MAX_INPUT_IN_ERROR_CHARS = 256;

function clip(input: string): string {
  return input.length <= MAX_INPUT_IN_ERROR_CHARS
    ? input
    : `${input.slice(0, MAX_INPUT_IN_ERROR_CHARS)}…(${input.length} chars)`;
}

/** A URL (or host) that cannot be crawled, with a typed `code` and a human `reason`. */
export class UrlError extends Error {
  override readonly name = 'UrlError';
  readonly code: UrlErrorCode;
  /** Why the input was refused, in words, without the input itself. */
  readonly reason: string;
  /** The offending input, cut to 256 characters (longer inputs end with `…(N chars)`). */
  readonly input: string;

  constructor(code: UrlErrorCode, reason: string, input: string) {
    const clipped = clip(input);
    super(`${reason}: ${JSON.stringify(clipped)}`);
    this.code = code;
    this.reason = reason;
    this.input = clipped;
  }
}

/** An invalid {@link CanonicalizeOptions} value; a programming error, not a bad URL. */
export class UrlOptionsError extends Error {
  override readonly name = 'UrlOptionsError';
  readonly code = 'SHARDLINE_ERR_URL_OPTIONS' as const;
  /** Name of the offending option, e.g. `maxUrlBytes`. */
  readonly option: string;
  readonly value: unknown;

  constructor(option: string, value: unknown, expected: string) {
    const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
    super(`option ${option} must be ${expected}, got ${shown} (${typeName(value)})`);
    this.option = option;
    this.value = value;
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof RegExp) return 'RegExp';
  return typeof value;
}
