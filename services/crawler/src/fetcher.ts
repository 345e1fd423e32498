/**
 * One HTTP GET per call over a single undici `Agent`: never follows redirects, bounds the body
 * (decoded bytes, so zip bombs stop at the cap), the wall time and the headers, reports the real
 * send time for politeness, and turns every network or protocol failure into an outcome.
 */
import { isIP, type LookupFunction } from 'node:net';
import { Agent, type Dispatcher, interceptors } from 'undici';
import { CrawlerError, CrawlerErrorCode, check, FetchErrorCode, invalidOption } from './errors.js';

const OWNER = 'FetcherOptions';

/** Options of {@link Fetcher}. Every duration is in milliseconds, every size in bytes. */
export interface FetcherOptions {
  /** Product token of the User-Agent, also the token robots.txt groups are matched against. @default 'shardline' */
  productToken?: string;
  /** Version in the User-Agent. @default '0.1' */
  productVersion?: string;
  /** Where site owners read about the bot; appended as `(+url)`. @default undefined (no contact part) */
  contactUrl?: string;
  /**
   * Name resolution and address policy, normally a `DnsCache` from `@shardline/dns`: `lookup`
   * is handed to `net.connect`; `resolve`, when present, vets IP-literal hosts (which never
   * reach a lookup function) so `http://10.0.0.1/` meets the same policy as a name.
   * @default undefined (the OS resolver, no address policy)
   */
  dns?: FetcherDns;
  /** Keep-alive connections per origin (undici pool size). @default 2 */
  connectionsPerOrigin?: number;
  /** How long an idle keep-alive socket is kept. @default 4000 */
  keepAliveTimeoutMs?: number;
  /** TCP + TLS connect budget. @default 10000 */
  connectTimeoutMs?: number;
  /** From send to the end of the response headers. @default 15000 */
  headersTimeoutMs?: number;
  /** Longest silence between two body chunks (resets on every byte; see `maxFetchMs`). @default 15000 */
  bodyTimeoutMs?: number;
  /** Total wall time of one fetch, queueing and slow-drip bodies included. @default 30000 */
  maxFetchMs?: number;
  /** Cap on the DECODED body that is kept; reading stops at the cap. @default 5242880 (5 MiB) */
  maxBodyBytes?: number;
  /** What reaching `maxBodyBytes` means: keep the prefix (`'truncate'`) or fail with `TOO_LARGE`. @default 'truncate' */
  oversize?: 'truncate' | 'error';
  /**
   * Bodies that are not kept (non-HTML, redirects, errors) are read and discarded up to this many
   * bytes so the keep-alive socket survives; longer ones are aborted after the headers.
   * @default 65536
   */
  maxDrainBytes?: number;
  /** Upper bound on a parsed `Retry-After`. @default 3600000 (1 h) */
  maxRetryAfterMs?: number;
  /** Extra request headers sent on every fetch (e.g. `accept-language`); `user-agent` cannot be overridden. @default {} */
  headers?: Record<string, string>;
}

/** The part of `DnsCache` (`@shardline/dns`) the fetcher uses. */
export interface FetcherDns {
  lookup: LookupFunction;
  resolve?(hostname: string): Promise<unknown>;
}

/** Per-call options of {@link Fetcher.fetch}. */
export interface FetchOptions {
  /** Aborts the fetch; the outcome then carries `SHARDLINE_ERR_FETCH_ABORTED`. */
  signal?: AbortSignal;
  /** Called (synchronously, epoch ms) at the moment the request head is written to the socket. */
  onSent?: (sentAtMs: number) => void;
  /** Overrides `FetcherOptions.maxBodyBytes` for this call (robots.txt uses 500 KiB). */
  maxBodyBytes?: number;
  /**
   * Which bodies are kept: `'html'` keeps 2xx `text/html` / `application/xhtml+xml` (and responses
   * without a Content-Type); `'always'` keeps every body (robots.txt); `'never'` keeps none.
   * @default 'html'
   */
  keepBody?: 'html' | 'always' | 'never';
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
  /** Absolute target of a 3xx `Location`, resolved against `url`; never followed. */
  redirectTo?: string;
  /** Parsed `Retry-After` (delta seconds or HTTP-date), capped by `maxRetryAfterMs`. */
  retryAfterMs?: number;
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

const DEFAULT_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.5';
const DEFAULT_ACCEPT_ENCODING = 'gzip, deflate, br';

/** HTTP GET with crawler-grade bounds over one undici `Agent` (per-origin keep-alive pools). */
export class Fetcher {
  /** The User-Agent header value sent on every request. */
  readonly userAgent: string;
  /** The product token (what robots.txt `User-agent:` lines are matched against). */
  readonly productToken: string;
  readonly #agent: Agent;
  // The agent with the decompress interceptor in front; all requests go through this one.
  readonly #dispatcher: Dispatcher;
  readonly #maxFetchMs: number;
  readonly #maxBodyBytes: number;
  readonly #maxDrainBytes: number;
  readonly #maxRetryAfterMs: number;
  readonly #oversize: 'truncate' | 'error';
  readonly #headers: Record<string, string>;
  readonly #dns: FetcherDns | undefined;
  #closed = false;

  constructor(options: FetcherOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw invalidOption('Fetcher', 'options', options, 'an object');
    }
    this.productToken = check.string(OWNER, 'productToken', options.productToken, 'shardline');
    if (!/^[A-Za-z_-]+$/.test(this.productToken)) {
      // RFC 9309 §2.2.1: the product token may only hold letters, '_' and '-'.
      throw invalidOption(OWNER, 'productToken', this.productToken, 'letters, "_" and "-" only');
    }
    const version = check.string(OWNER, 'productVersion', options.productVersion, '0.1');
    const contact =
      options.contactUrl === undefined
        ? undefined
        : check.string(OWNER, 'contactUrl', options.contactUrl, '');
    this.userAgent = `${this.productToken}/${version}${contact ? ` (+${contact})` : ''}`;
    const dns = options.dns;
    if (
      dns !== undefined &&
      (typeof dns !== 'object' || dns === null || typeof dns.lookup !== 'function')
    ) {
      throw invalidOption(OWNER, 'dns', dns, 'an object with a lookup function (a DnsCache)');
    }
    this.#dns = dns;
    const lookup = dns ? dns.lookup.bind(dns) : undefined;
    const connections = check.int(
      OWNER,
      'connectionsPerOrigin',
      options.connectionsPerOrigin,
      2,
      1,
      1024,
    );
    const keepAliveTimeout = check.int(
      OWNER,
      'keepAliveTimeoutMs',
      options.keepAliveTimeoutMs,
      4000,
      1,
    );
    const connectTimeout = check.int(
      OWNER,
      'connectTimeoutMs',
      options.connectTimeoutMs,
      10_000,
      1,
    );
    const headersTimeout = check.int(
      OWNER,
      'headersTimeoutMs',
      options.headersTimeoutMs,
      15_000,
      1,
    );
    const bodyTimeout = check.int(OWNER, 'bodyTimeoutMs', options.bodyTimeoutMs, 15_000, 1);
    this.#maxFetchMs = check.int(OWNER, 'maxFetchMs', options.maxFetchMs, 30_000, 1);
    this.#maxBodyBytes = check.int(OWNER, 'maxBodyBytes', options.maxBodyBytes, 5 * 1024 * 1024, 1);
    this.#maxDrainBytes = check.int(OWNER, 'maxDrainBytes', options.maxDrainBytes, 64 * 1024, 0);
    this.#maxRetryAfterMs = check.int(
      OWNER,
      'maxRetryAfterMs',
      options.maxRetryAfterMs,
      3_600_000,
      0,
    );
    if (
      options.oversize !== undefined &&
      options.oversize !== 'truncate' &&
      options.oversize !== 'error'
    ) {
      throw invalidOption(OWNER, 'oversize', options.oversize, "'truncate' or 'error'");
    }
    this.#oversize = options.oversize ?? 'truncate';
    this.#headers = validateHeaders(options.headers);

    this.#agent = new Agent({
      connections,
      keepAliveTimeout,
      // A server's `Keep-Alive: timeout=` may not stretch an idle socket past our own choice.
      keepAliveMaxTimeout: keepAliveTimeout,
      headersTimeout,
      bodyTimeout,
      connect: lookup ? { timeout: connectTimeout, lookup } : { timeout: connectTimeout },
    });
    // No redirect interceptor on purpose: a redirect is a new URL for the frontier, which owns
    // dedup, scope and politeness for it. undici's decompress interceptor hands us decoded
    // chunks with backpressure, so our cap counts decoded bytes (zip bombs stop at the cap).
    this.#dispatcher = this.#agent.compose(interceptors.decompress({ skipErrorResponses: false }));
  }

  /**
   * GET `url` once. Resolves with an outcome for every network, protocol or timeout problem;
   * rejects only with {@link CrawlerError} `CLOSED` after {@link close}.
   */
  fetch(url: string, options: FetchOptions = {}): Promise<FetchOutcome> {
    if (this.#closed) {
      return Promise.reject(new CrawlerError(CrawlerErrorCode.CLOSED, 'Fetcher is closed'));
    }
    const startedAtMs = Date.now();
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.resolve(failedBeforeSend(url, startedAtMs, 'not an absolute URL'));
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return Promise.resolve(
        failedBeforeSend(url, startedAtMs, `scheme ${target.protocol} is not http(s)`),
      );
    }
    let maxBodyBytes: number;
    const keepBody = options.keepBody ?? 'html';
    try {
      maxBodyBytes = check.int(
        'FetchOptions',
        'maxBodyBytes',
        options.maxBodyBytes,
        this.#maxBodyBytes,
        1,
      );
      if (keepBody !== 'html' && keepBody !== 'always' && keepBody !== 'never') {
        throw invalidOption('FetchOptions', 'keepBody', keepBody, "'html', 'always' or 'never'");
      }
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<FetchOutcome>((resolve) => {
      const handler = new FetchHandler({
        url,
        startedAtMs,
        maxBodyBytes,
        maxDrainBytes: this.#maxDrainBytes,
        maxRetryAfterMs: this.#maxRetryAfterMs,
        oversize: this.#oversize,
        keepBody,
        onSent: options.onSent,
        resolve,
      });
      handler.arm(this.#maxFetchMs, options.signal);
      const dispatch = () => this.#dispatch(target, handler);
      const resolveLiteral = this.#dns?.resolve;
      if (resolveLiteral && isIpLiteral(target.hostname)) {
        // net.connect skips `lookup` for IP literals, so the address policy is applied here.
        resolveLiteral
          .call(this.#dns, target.hostname.replace(/^\[|\]$/g, ''))
          .then(dispatch, (err) => handler.fail(err));
      } else {
        dispatch();
      }
    });
  }

  #dispatch(target: URL, handler: FetchHandler): void {
    if (handler.settled) return;
    try {
      this.#dispatcher.dispatch(
        {
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          method: 'GET',
          headers: {
            accept: DEFAULT_ACCEPT,
            'accept-encoding': DEFAULT_ACCEPT_ENCODING,
            ...this.#headers,
            // Last, so extra headers cannot disguise us: robots.txt is matched on this token.
            'user-agent': this.userAgent,
          },
        },
        handler,
      );
    } catch (err) {
      handler.fail(err);
    }
  }

  /** Stop accepting fetches and close the agent's sockets once in-flight requests finish. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#agent.close();
  }
}

interface HandlerInit {
  url: string;
  startedAtMs: number;
  maxBodyBytes: number;
  maxDrainBytes: number;
  maxRetryAfterMs: number;
  oversize: 'truncate' | 'error';
  keepBody: 'html' | 'always' | 'never';
  onSent: ((sentAtMs: number) => void) | undefined;
  resolve: (outcome: FetchOutcome) => void;
}

/** Marker reason for aborts we start ourselves (cap reached, timeout, caller signal). */
class StopReading extends Error {
  override readonly name = 'StopReading';
}

/** undici dispatch handler of one fetch; settles exactly once. */
class FetchHandler implements Dispatcher.DispatchHandler {
  readonly #init: HandlerInit;
  #controller: Dispatcher.DispatchController | undefined;
  // Once true, nothing more is recorded and any later callback only cleans up.
  #settled = false;
  #responseDone = false;
  #sentAtMs: number | undefined;
  #headersAtMs: number | undefined;
  #status = 0;
  #headers: Record<string, string> = {};
  #contentType: string | undefined;
  #headerCharset: string | undefined;
  #redirectTo: string | undefined;
  #retryAfterMs: number | undefined;
  #keep = false;
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
    } catch {
      // A throwing observer must not break the fetch.
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
    if (error) outcome.error = error;
    this.#init.resolve(outcome);
  }
}

function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith('[') || isIP(hostname) !== 0;
}

function failedBeforeSend(url: string, startedAtMs: number, why: string): FetchOutcome {
  return {
    url,
    status: 0,
    headers: {},
    bytes: 0,
    truncated: false,
    timings: { startedAtMs, endAtMs: Date.now() },
    error: { code: FetchErrorCode.INVALID_URL, message: `${url}: ${why}` },
  };
}

function validateHeaders(headers: unknown): Record<string, string> {
  if (headers === undefined) return {};
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    throw invalidOption(OWNER, 'headers', headers, 'an object of string values');
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') {
      throw invalidOption(OWNER, `headers.${name}`, value, 'a string');
    }
    out[name.toLowerCase()] = value;
  }
  return out;
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

/** `text/html; charset="UTF-8"` → `{ mediaType: 'text/html', charset: 'UTF-8' }`. */
export function parseContentType(value: string | undefined): {
  mediaType?: string;
  charset?: string;
} {
  if (value === undefined) return {};
  const [type = '', ...params] = value.split(';');
  const result: { mediaType?: string; charset?: string } = {};
  const mediaType = type.trim().toLowerCase();
  if (mediaType) result.mediaType = mediaType;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (charset) result.charset = charset;
    break;
  }
  return result;
}

/** Bodies we parse for links; a missing Content-Type is sniffed as HTML by the caller. */
function isHtmlMediaType(mediaType: string | undefined): boolean {
  return (
    mediaType === undefined || mediaType === 'text/html' || mediaType === 'application/xhtml+xml'
  );
}

/**
 * `Retry-After` as milliseconds from `nowMs`: delta-seconds or an HTTP-date (past dates → 0),
 * capped at `maxMs`; `undefined` when unparseable.
 */
export function parseRetryAfter(value: string, nowMs: number, maxMs: number): number | undefined {
  const trimmed = value.trim();
  let ms: number;
  if (/^\d+$/.test(trimmed)) {
    ms = Number(trimmed) * 1000;
  } else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return undefined;
    ms = Math.max(0, at - nowMs);
  }
  return Math.min(ms, maxMs);
}

/** A WHATWG encoding name for `label`, or `undefined` if TextDecoder does not know it. */
function normalizeCharset(label: string | undefined): string | undefined {
  if (label === undefined) return undefined;
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return undefined;
  }
}

const META_CHARSET = /<meta\b[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)/i;

/**
 * The body's encoding, in the WHATWG order of precedence: byte-order mark, then the
 * Content-Type charset, then a `<meta charset>` / `http-equiv` declaration within the first
 * 1024 bytes, else `utf-8`.
 */
export function resolveCharset(body: Uint8Array, headerCharset?: string): string {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  const fromHeader = normalizeCharset(headerCharset);
  if (fromHeader) return fromHeader;
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, 1024)).toString(
    'latin1',
  );
  const declared = normalizeCharset(META_CHARSET.exec(head)?.[1]);
  // A meta tag claiming UTF-16 was read as ASCII, so it cannot be right (WHATWG prescan rule).
  if (declared === 'utf-16le' || declared === 'utf-16be') return 'utf-8';
  if (declared === 'x-user-defined') return 'windows-1252';
  return declared ?? 'utf-8';
}

/** Decode a fetched body to text (`charset` from the outcome; invalid sequences become U+FFFD). */
export function decodeBody(body: Uint8Array, charset = 'utf-8'): string {
  const encoding = normalizeCharset(charset) ?? 'utf-8';
  if (encoding === 'windows-1252') return decodeWindows1252(body);
  return new TextDecoder(encoding).decode(body);
}

// WHATWG windows-1252 for bytes 0x80..0x9F (the rest is Latin-1).
const WINDOWS_1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * Node 20.18.3+ decodes `windows-1252` (and every Latin-1 label mapped to it) as ISO-8859-1,
 * turning 0x80..0x9F into C1 controls (nodejs/node#60888), so smart quotes and € vanish.
 * Latin-1 plus the fixed 32-entry table is the whole encoding.
 */
function decodeWindows1252(body: Uint8Array): string {
  const latin1 = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1');
  return latin1.replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80] ?? c);
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

function mapCode(code: string): FetchErrorCode | undefined {
  if (code === 'SHARDLINE_ERR_DNS_REFUSED_ADDRESS') return FetchErrorCode.DNS_REFUSED;
  if (code.startsWith('SHARDLINE_ERR_DNS_') || /^(ENOTFOUND|EAI_|ENODATA|ESERVFAIL)/.test(code)) {
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
