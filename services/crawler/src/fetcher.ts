/**
 * One HTTP GET per call over a single undici `Agent`: never follows redirects, bounds the body
 * (decoded bytes, so zip bombs stop at the cap), the wall time and the headers, reports the real
 * send time for politeness, and turns every network or protocol failure into an outcome.
 */
import { isIP, type LookupFunction } from 'node:net';
import { Agent, Client, type Dispatcher, interceptors, Pool } from 'undici';
import { CrawlerError, CrawlerErrorCode, check, FetchErrorCode, invalidOption } from './errors.js';
import { FetchHandler } from './fetch-handler.js';
import type { FetchOptions, FetchOutcome } from './fetch-types.js';
import { quietKnownWarnings } from './process-warnings.js';

export type {
  FetchOptions,
  FetchOutcome,
  FetchTimings,
  RawResponseHead,
} from './fetch-types.js';

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
  /**
   * The lookup of connections to one port. Used when present, so that a `host:address`
   * override reaches only the ports it is meant for (`DnsCache.lookupFor`).
   */
  lookupFor?(port: number): LookupFunction;
  resolve?(hostname: string): Promise<unknown>;
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
  // undici's decompress interceptor; each fetch puts it between its handler and the wire tap.
  readonly #decompress: Dispatcher.DispatcherComposeInterceptor;
  readonly #maxFetchMs: number;
  readonly #maxBodyBytes: number;
  readonly #maxDrainBytes: number;
  readonly #maxRetryAfterMs: number;
  readonly #oversize: 'truncate' | 'error';
  // Sent on every request, user-agent last so extra headers cannot disguise us (robots.txt is
  // matched on its token).
  readonly #requestHeaders: Record<string, string>;
  readonly #dns: FetcherDns | undefined;
  #closed = false;
  #onSentErrors = 0;

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
    this.#requestHeaders = {
      accept: DEFAULT_ACCEPT,
      'accept-encoding': DEFAULT_ACCEPT_ENCODING,
      ...validateHeaders(options.headers),
      'user-agent': this.userAgent,
    };

    this.#agent = new Agent({
      connections,
      keepAliveTimeout,
      // A server's `Keep-Alive: timeout=` may not stretch an idle socket past our own choice.
      keepAliveMaxTimeout: keepAliveTimeout,
      headersTimeout,
      bodyTimeout,
      connect: lookup ? { timeout: connectTimeout, lookup } : { timeout: connectTimeout },
      // One pool per origin, hence per port: each gets the lookup of its port (see FetcherDns).
      factory: (origin, agentOpts) => {
        const opts = agentOpts as Pool.Options;
        const lookupFor = dns?.lookupFor;
        const pool: Pool.Options = lookupFor
          ? {
              ...opts,
              connect: { timeout: connectTimeout, lookup: lookupFor.call(dns, portOf(origin)) },
            }
          : opts;
        return pool.connections === 1 ? new Client(origin, pool) : new Pool(origin, pool);
      },
    });
    // No redirect interceptor on purpose: a redirect is a new URL for the frontier, which owns
    // dedup, scope and politeness for it. undici's decompress interceptor hands us decoded
    // chunks with backpressure, so our cap counts decoded bytes (zip bombs stop at the cap).
    // Its ExperimentalWarning would greet every program that builds a pod (pinned, tested).
    quietKnownWarnings();
    this.#decompress = interceptors.decompress({ skipErrorResponses: false });
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
    let headers: Record<string, string>;
    const keepBody = options.keepBody ?? 'html';
    try {
      headers = validateHeaders(options.headers, 'FetchOptions');
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
        hashBody: options.hashBody === true,
        onSent: options.onSent,
        onSentError: () => {
          this.#onSentErrors += 1;
        },
        resolve,
      });
      handler.arm(this.#maxFetchMs, options.signal);
      const dispatch = () => this.#dispatch(target, handler, headers);
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

  #dispatch(target: URL, handler: FetchHandler, callHeaders: Record<string, string>): void {
    if (handler.settled) return;
    // handler ← decompress ← wire tap ← agent: the tap sees the head as received, before the
    // decompress step strips it, and hands it to this fetch's handler.
    const toWire: Dispatcher['dispatch'] = (request, decoding) =>
      this.#agent.dispatch(request, handler.tap(decoding));
    try {
      this.#decompress(toWire)(
        {
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          method: 'GET',
          // Per-call fields (conditional refetch) join the fixed ones; the user agent stays last,
          // so extra headers cannot disguise us: robots.txt is matched on this token.
          headers:
            Object.keys(callHeaders).length === 0
              ? this.#requestHeaders
              : { ...this.#requestHeaders, ...callHeaders, 'user-agent': this.userAgent },
        },
        handler,
      );
    } catch (err) {
      handler.fail(err);
    }
  }

  /**
   * The header fields every request carries, in the order sent (undici adds `host` and its
   * connection fields); what an archive records as the request.
   */
  get requestHeaders(): Array<[string, string]> {
    return Object.entries(this.#requestHeaders);
  }

  /** Counters since construction: `onSentErrors` counts `FetchOptions.onSent` callbacks that threw. */
  stats(): { onSentErrors: number } {
    return { onSentErrors: this.#onSentErrors };
  }

  /** Stop accepting fetches and close the agent's sockets once in-flight requests finish. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#agent.close();
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

function validateHeaders(headers: unknown, owner = OWNER): Record<string, string> {
  if (headers === undefined) return {};
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    throw invalidOption(owner, 'headers', headers, 'an object of string values');
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') {
      throw invalidOption(owner, `headers.${name}`, value, 'a string');
    }
    out[name.toLowerCase()] = value;
  }
  return out;
}

/** The port a URL or origin connects to, its scheme's default included. */
export function portOf(origin: string | URL): number {
  const url = typeof origin === 'string' ? new URL(origin) : origin;
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}
