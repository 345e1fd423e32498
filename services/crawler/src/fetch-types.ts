/**
 * The types `Fetcher` and its dispatch handler share: what a fetch is asked (`FetchOptions`) and
 * what it produced (`FetchOutcome`). Apart from both, so the fetcher depends on the handler and
 * neither module imports the other for its types.
 */
import type { FetchErrorCode } from './errors.js';

/** Per-call options of `Fetcher.fetch`. */
export interface FetchOptions {
  /** Aborts the fetch; the outcome then carries `SHARDLINE_ERR_FETCH_ABORTED`. */
  signal?: AbortSignal;
  /**
   * Called (synchronously, epoch ms) at the moment the request head is written to the socket.
   * If it throws, the fetch goes on and `Fetcher.stats().onSentErrors` counts it.
   */
  onSent?: (sentAtMs: number) => void;
  /** Overrides `FetcherOptions.maxBodyBytes` for this call (robots.txt uses 500 KiB). */
  maxBodyBytes?: number;
  /**
   * Which bodies are kept: `'html'` keeps 2xx `text/html` / `application/xhtml+xml` (and responses
   * without a Content-Type); `'always'` keeps every body (robots.txt); `'never'` keeps none.
   * @default 'html'
   */
  keepBody?: 'html' | 'always' | 'never';
  /**
   * Extra request headers of this call (a conditional refetch's `if-none-match`), after the
   * fetcher's own; `user-agent` cannot be overridden. @default {}
   */
  headers?: Record<string, string>;
  /** Hash a complete 2xx body into `FetchOutcome.contentHash`. @default false */
  hashBody?: boolean;
}

/** What one fetch produced. Never thrown; failures carry `error`. */
export interface FetchOutcome {
  /** The URL as requested. */
  url: string;
  /** HTTP status, or 0 when no response head arrived. */
  status: number;
  /** Response headers, names lower-cased, repeated fields joined with `, `. Content-Encoding and Content-Length are removed when the body was decoded. */
  headers: Record<string, string>;
  /** Lower-cased media type without parameters (`text/html`). */
  contentType?: string;
  /** Encoding the body is in (WHATWG name): BOM, then Content-Type, then `<meta>` in the first 1024 bytes, else `utf-8`. */
  charset?: string;
  /** The kept body (see `FetchOptions.keepBody`), at most the cap; may be partial when `truncated` or `error`. */
  body?: Buffer;
  /** Decoded body bytes received (may pass the cap by less than one chunk). */
  bytes: number;
  /** Reading stopped before the end of the body (cap, drain limit, timeout). */
  truncated: boolean;
  /**
   * SHA-1 (base64url) of the whole decoded body of a 2xx response, when `hashBody` was asked;
   * absent when the body was cut short (cap, drain limit, timeout, error).
   */
  contentHash?: string;
  /** Absolute target of a 3xx `Location`, resolved against `url`; never followed. */
  redirectTo?: string;
  /** Parsed `Retry-After` (delta seconds or HTTP-date), capped by `maxRetryAfterMs`. */
  retryAfterMs?: number;
  /** The final response head as the server sent it (for archiving); absent when none arrived. */
  rawHead?: RawResponseHead;
  timings: FetchTimings;
  error?: { code: FetchErrorCode; message: string };
}

/** Epoch-ms timestamps of one fetch. */
export interface FetchTimings {
  /** When `fetch()` was called. */
  startedAtMs: number;
  /** When the request head was written to the socket; absent if it never was. Politeness gaps are measured between these. */
  sentAtMs?: number;
  /** When the response head was complete; absent if it never was. */
  headersAtMs?: number;
  /** When the outcome was settled. */
  endAtMs: number;
}

/**
 * The response head as it came off the wire, before undici's decompress step drops
 * Content-Encoding and Content-Length from a decoded response (`FetchOutcome.headers` is the
 * decoded view). undici does not surface the HTTP version of the status line.
 */
export interface RawResponseHead {
  /** Reason phrase of the status line (`'OK'`, `'Not Found'`); `''` when the server sent none. */
  statusText: string;
  /**
   * Header fields in the order received, each name as the server spelled it; a repeated field
   * is one pair per line. Names and values are latin1 text, so `Buffer.from(value, 'latin1')`
   * gives back the bytes sent.
   */
  headers: Array<[name: string, value: string]>;
}
