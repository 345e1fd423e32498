/**
 * The undici dispatch handler of one fetch (`Fetcher.fetch`): records the real send time,
 * reads the head, counts and caps the decoded body, stops at the wall-time limit or the
 * caller's signal, and settles exactly once with a {@link FetchOutcome}; plus the mapping of
 * undici / Node / DNS errors onto `FetchErrorCode`.
 */
import { createHash, type Hash } from 'node:crypto';
import { DnsErrorCode } from '@shardline/dns';
import type { Dispatcher } from 'undici';
import {
  isHtmlMediaType,
  normalizeCharset,
  parseContentType,
  parseRetryAfter,
  resolveCharset,
} from './content.js';
import { FetchErrorCode } from './errors.js';
import type { FetchOutcome, RawResponseHead } from './fetch-types.js';
import { WireTap } from './wire-tap.js';

export interface HandlerInit {
  url: string;
  startedAtMs: number;
  maxBodyBytes: number;
  maxDrainBytes: number;
  maxRetryAfterMs: number;
  oversize: 'truncate' | 'error';
  keepBody: 'html' | 'always' | 'never';
  /** Hash a 2xx body (`FetchOutcome.contentHash`). */
  hashBody: boolean;
  onSent: ((sentAtMs: number) => void) | undefined;
  /** Told when `onSent` throws; the fetch goes on (the request is already on its way). */
  onSentError: (error: unknown) => void;
  resolve: (outcome: FetchOutcome) => void;
}

/** Marker reason for aborts we start ourselves (cap reached, timeout, caller signal). */
class StopReading extends Error {
  override readonly name = 'StopReading';
}

/** undici dispatch handler of one fetch; settles exactly once. */
export class FetchHandler implements Dispatcher.DispatchHandler {
  readonly #init: HandlerInit;
  #controller: Dispatcher.DispatchController | undefined;
  // Once true, nothing more is recorded and any later callback only cleans up.
  #settled = false;
  #responseDone = false;
  #sentAtMs: number | undefined;
  #headersAtMs: number | undefined;
  #status = 0;
  #headers: Record<string, string> = {};
  #rawHead: RawResponseHead | undefined;
  #contentType: string | undefined;
  #headerCharset: string | undefined;
  #redirectTo: string | undefined;
  #retryAfterMs: number | undefined;
  #keep = false;
  // SHA-1 of the decoded body so far (2xx with hashBody only).
  #hash: Hash | undefined;
  #chunks: Buffer[] = [];
  #kept = 0;
  #bytes = 0;
  #truncated = false;
  #timer: NodeJS.Timeout | undefined;
  #signal: AbortSignal | undefined;
  readonly #onAbort = () => this.#stop(FetchErrorCode.ABORTED, 'aborted by the caller');

  constructor(init: HandlerInit) {
    this.#init = init;
  }

  get settled(): boolean {
    return this.#settled;
  }

  /**
   * The handler to give the agent in front of `decoding` (the decompress handler wrapping this
   * one): it passes everything on and records the response head as received for this fetch.
   */
  tap(decoding: Dispatcher.DispatchHandler): Dispatcher.DispatchHandler {
    return new WireTap(decoding, (head) => {
      if (!this.#settled) this.#rawHead = head;
    });
  }

  arm(maxFetchMs: number, signal: AbortSignal | undefined): void {
    this.#timer = setTimeout(
      () => this.#stop(FetchErrorCode.TIMEOUT, `fetch exceeded maxFetchMs (${maxFetchMs} ms)`),
      maxFetchMs,
    );
    if (signal) {
      if (signal.aborted) {
        this.#onAbort();
        return;
      }
      this.#signal = signal;
      signal.addEventListener('abort', this.#onAbort, { once: true });
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.#settled) {
      // Timed out or aborted while queued for a socket: never put it on the wire.
      controller.abort(new StopReading('settled before send'));
      return;
    }
    this.#controller = controller;
    // undici calls this synchronously right before writing the request head on the socket.
    this.#sentAtMs = Date.now();
    try {
      this.#init.onSent?.(this.#sentAtMs);
    } catch (error) {
      // A throwing observer must not break the fetch; the fetcher counts it.
      this.#init.onSentError(error);
    }
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (this.#settled || statusCode < 200) return;
    this.#headersAtMs = Date.now();
    this.#status = statusCode;
    this.#headers = flattenHeaders(headers);
    const { mediaType, charset } = parseContentType(this.#headers['content-type']);
    this.#contentType = mediaType;
    this.#headerCharset = charset;
    const location = this.#headers.location;
    if (statusCode >= 300 && statusCode < 400 && location !== undefined) {
      try {
        this.#redirectTo = new URL(location, this.#init.url).href;
      } catch {
        // An unresolvable Location is reported as a 3xx without redirectTo.
      }
    }
    const retryAfter = this.#headers['retry-after'];
    if (retryAfter !== undefined) {
      this.#retryAfterMs = parseRetryAfter(retryAfter, Date.now(), this.#init.maxRetryAfterMs);
    }
    const { keepBody } = this.#init;
    if (this.#init.hashBody && statusCode < 300) this.#hash = createHash('sha1');
    this.#keep =
      keepBody === 'always' ||
      (keepBody === 'html' && statusCode < 300 && isHtmlMediaType(this.#contentType));
    if (!this.#keep) {
      const length = Number(this.#headers['content-length']);
      if (Number.isFinite(length) && length > this.#init.maxDrainBytes) {
        // Not worth reading to save the socket: stop right after the head.
        this.#truncated = true;
        this.#finish(undefined);
        controller.abort(new StopReading('body not wanted'));
      }
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#bytes += chunk.length;
    this.#hash?.update(chunk);
    if (!this.#keep) {
      if (this.#bytes > this.#init.maxDrainBytes) {
        this.#truncated = true;
        this.#finish(undefined);
        controller.abort(new StopReading('drain limit reached'));
      }
      return;
    }
    const room = this.#init.maxBodyBytes - this.#kept;
    if (chunk.length <= room) {
      this.#chunks.push(chunk);
      this.#kept += chunk.length;
      return;
    }
    if (room > 0) {
      this.#chunks.push(chunk.subarray(0, room));
      this.#kept += room;
    }
    this.#truncated = true;
    this.#finish(
      this.#init.oversize === 'error'
        ? {
            code: FetchErrorCode.TOO_LARGE,
            message: `body exceeds maxBodyBytes (${this.#init.maxBodyBytes})`,
          }
        : undefined,
    );
    controller.abort(new StopReading('maxBodyBytes reached'));
  }

  onResponseEnd(): void {
    this.#responseDone = true;
    if (this.#settled) return;
    this.#finish(undefined);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.#responseDone = true;
    if (this.#settled) return;
    this.fail(err);
  }

  /** Settle with the error undici (or dispatch itself) reported. */
  fail(err: unknown): void {
    if (this.#settled) return;
    if (this.#headersAtMs !== undefined) this.#truncated = true;
    this.#finish(classifyError(err));
  }

  /** Our own stop (timeout, caller abort): settle, then tear the request down. */
  #stop(code: FetchErrorCode, message: string): void {
    if (this.#settled) return;
    if (this.#headersAtMs !== undefined) this.#truncated = true;
    this.#finish({ code, message });
    if (!this.#responseDone) this.#controller?.abort(new StopReading(message));
  }

  #finish(error: FetchOutcome['error']): void {
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#signal?.removeEventListener('abort', this.#onAbort);
    const body = this.#keep ? Buffer.concat(this.#chunks, this.#kept) : undefined;
    this.#chunks = [];
    const outcome: FetchOutcome = {
      url: this.#init.url,
      status: this.#status,
      headers: this.#headers,
      bytes: this.#bytes,
      truncated: this.#truncated,
      timings: {
        startedAtMs: this.#init.startedAtMs,
        endAtMs: Date.now(),
      },
    };
    if (this.#sentAtMs !== undefined) outcome.timings.sentAtMs = this.#sentAtMs;
    if (this.#headersAtMs !== undefined) outcome.timings.headersAtMs = this.#headersAtMs;
    if (this.#contentType !== undefined) outcome.contentType = this.#contentType;
    const charset = body
      ? resolveCharset(body, this.#headerCharset)
      : normalizeCharset(this.#headerCharset);
    if (charset !== undefined) outcome.charset = charset;
    if (body !== undefined) outcome.body = body;
    if (this.#redirectTo !== undefined) outcome.redirectTo = this.#redirectTo;
    if (this.#retryAfterMs !== undefined) outcome.retryAfterMs = this.#retryAfterMs;
    if (this.#rawHead !== undefined) outcome.rawHead = this.#rawHead;
    if (error) outcome.error = error;
    else if (this.#hash && !this.#truncated) outcome.contentHash = this.#hash.digest('base64url');
    this.#init.resolve(outcome);
  }
}

function flattenHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Map an undici / node / @shardline/dns error to an outcome error. */
function classifyError(err: unknown): { code: FetchErrorCode; message: string } {
  const message = err instanceof Error ? err.message : String(err);
  const codes: string[] = [];
  let cursor: unknown = err;
  for (let depth = 0; depth < 5 && cursor instanceof Error; depth++) {
    const code = (cursor as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    // undici 7 builds HTTPParserError's code from a name→number table looked up by number,
    // so the code is undefined; the class name is what is left to go by.
    else if (cursor.name === 'HTTPParserError') codes.push('HPE_UNKNOWN');
    cursor = cursor.cause;
  }
  for (const code of codes) {
    const mapped = mapCode(code);
    if (mapped) return { code: mapped, message: `${code}: ${message}` };
  }
  return { code: FetchErrorCode.UNKNOWN, message };
}

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ETIMEDOUT',
  'EADDRNOTAVAIL',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);

const DNS_CODES: ReadonlySet<string> = new Set(Object.values(DnsErrorCode));

function mapCode(code: string): FetchErrorCode | undefined {
  if (code === DnsErrorCode.REFUSED_ADDRESS) return FetchErrorCode.DNS_REFUSED;
  if (DNS_CODES.has(code) || /^(ENOTFOUND|EAI_|ENODATA|ESERVFAIL)/.test(code)) {
    return FetchErrorCode.DNS;
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return FetchErrorCode.CONNECT_TIMEOUT;
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return FetchErrorCode.HEADERS_TIMEOUT;
  if (code === 'UND_ERR_BODY_TIMEOUT') return FetchErrorCode.BODY_TIMEOUT;
  if (CONNECT_CODES.has(code)) return FetchErrorCode.CONNECT;
  if (
    /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|EPROTO)/.test(
      code,
    ) ||
    code.includes('CERT')
  ) {
    return FetchErrorCode.TLS;
  }
  if (code.startsWith('Z_') || code.startsWith('ERR__ERROR') || code.startsWith('ERR_BROTLI')) {
    return FetchErrorCode.DECODE;
  }
  if (
    code.startsWith('HPE_') ||
    code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' ||
    code === 'UND_ERR_HEADERS_OVERFLOW' ||
    code === 'UND_ERR_INFO'
  ) {
    return FetchErrorCode.PROTOCOL;
  }
  return undefined;
}
