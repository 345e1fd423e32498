/**
 * Errors of `@shardline/api`. Thrown errors (`ApiOptionsError`, `ApiConfigError`) are
 * programming or deployment mistakes; `HttpError` is what a route throws to answer a
 * client with a 4xx/5xx JSON body. Callers and clients branch on `code`, never on text.
 */

/** Stable codes: thrown by the package or sent in HTTP error bodies. */
export const ApiErrorCode = {
  OPTIONS: 'SHARDLINE_ERR_API_OPTIONS',
  CONFIG: 'SHARDLINE_ERR_API_CONFIG',
  LISTEN: 'SHARDLINE_ERR_API_LISTEN',
  BAD_JSON: 'SHARDLINE_ERR_API_BAD_JSON',
  BAD_UTF8: 'SHARDLINE_ERR_API_BAD_UTF8',
  VALIDATION: 'SHARDLINE_ERR_API_VALIDATION',
  BODY_TOO_LARGE: 'SHARDLINE_ERR_API_BODY_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'SHARDLINE_ERR_API_UNSUPPORTED_MEDIA_TYPE',
  NOT_FOUND: 'SHARDLINE_ERR_API_NOT_FOUND',
  UNKNOWN_DOMAIN: 'SHARDLINE_ERR_API_UNKNOWN_DOMAIN',
  UNKNOWN_CRAWL: 'SHARDLINE_ERR_API_UNKNOWN_CRAWL',
  CRAWL_CONFLICT: 'SHARDLINE_ERR_API_CRAWL_CONFLICT',
  CURSOR: 'SHARDLINE_ERR_API_CURSOR',
  TOKEN_NOT_CONFIGURED: 'SHARDLINE_ERR_API_TOKEN_NOT_CONFIGURED',
  UNAUTHORIZED: 'SHARDLINE_ERR_API_UNAUTHORIZED',
  NO_PODS: 'SHARDLINE_ERR_API_NO_PODS',
  UNAVAILABLE: 'SHARDLINE_ERR_API_UNAVAILABLE',
  INTERNAL: 'SHARDLINE_ERR_API_INTERNAL',
} as const;
export type ApiErrorCode = (typeof ApiErrorCode)[keyof typeof ApiErrorCode];

/** Base class: every error of this package has a fixed `name` and a stable `code`. */
export class ApiError extends Error {
  override readonly name: string = 'ApiError';
  readonly code: ApiErrorCode;

  constructor(code: ApiErrorCode, message: string) {
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
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? '[…]' : '{…}';
  return String(value);
}

/** An invalid {@link ApiServerOptions} value. */
export class ApiOptionsError extends ApiError {
  override readonly name = 'ApiOptionsError';
  readonly option: string;
  readonly value: unknown;

  constructor(option: string, value: unknown, expected: string) {
    super(
      ApiErrorCode.OPTIONS,
      `option ${option} must be ${expected}, got ${show(value)} (${typeName(value)})`,
    );
    this.option = option;
    this.value = value;
  }
}

/** A malformed environment variable read by `loadApiConfig`. */
export class ApiConfigError extends ApiError {
  override readonly name = 'ApiConfigError';
  readonly variable: string;

  constructor(variable: string, value: string, expected: string) {
    super(ApiErrorCode.CONFIG, `${variable} must be ${expected}, got ${JSON.stringify(value)}`);
    this.variable = variable;
  }
}

/** One problem found by request validation, as sent in `details`. */
export interface ErrorDetail {
  /** JSON pointer into the request part, e.g. `/urls/3/priority`. */
  path: string;
  message: string;
}

/** An error answered to the client as `{ statusCode, error, code, message, details? }`. */
export class HttpError extends ApiError {
  override readonly name = 'HttpError';
  readonly statusCode: number;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    statusCode: number,
    code: ApiErrorCode,
    message: string,
    extra: { details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(code, message);
    this.statusCode = statusCode;
    this.details = extra.details;
    this.headers = extra.headers ?? {};
  }
}
