import { domainKeyOfCanonicalHost } from './domain-key.js';
import { UrlError, UrlErrorCode, UrlOptionsError } from './errors.js';
import { checkHost, stripTrailingDot } from './host.js';
import { normalizePercentEncoding } from './percent-encoding.js';
import { compileTrackingFilter, type ParamFilter } from './tracking-params.js';

/** Options of {@link Canonicalizer} and {@link canonicalize}. */
export interface CanonicalizeOptions {
  /**
   * Remove tracking parameters (`utm_*` and {@link DEFAULT_TRACKING_PARAMS}: `gclid`,
   * `fbclid`, `msclkid`, `mc_eid`, `_ga`, `yclid`, `igshid`, ...). When `false`,
   * `trackingParams` are kept too.
   * @default true
   */
  stripTrackingParams?: boolean;
  /**
   * Extra parameter names (matched case-insensitively) or RegExps (tested against the
   * name as it appears in the canonical URL) treated as tracking parameters.
   * @default []
   */
  trackingParams?: (string | RegExp)[];
  /** Sort query parameters by name (stable: equal names keep their order). @default false */
  sortQuery?: boolean;
  /** Maximum length of the canonical URL in UTF-8 bytes. @default 2048 */
  maxUrlBytes?: number;
  /**
   * Longest input string (UTF-16 code units) even looked at; checked before parsing so
   * a 10 MB link costs nothing. Larger than `maxUrlBytes` because canonicalisation can
   * shorten a URL (fragment, tracking parameters, escapes, dot segments).
   * @default 4 × maxUrlBytes
   */
  maxInputChars?: number;
  /** Base URL for resolving relative references (links). */
  base?: string | URL;
}

/** A canonical http(s) URL and the keys a crawler derives from it. */
export interface CanonicalUrl {
  /** Canonical absolute URL (always ASCII). */
  url: string;
  scheme: 'http' | 'https';
  /** Host name only: lower-case punycode, no trailing dot, IPv6 in brackets (`[::1]`). */
  host: string;
  /** Effective port (80/443 when the URL uses the default). */
  port: number;
  /** `scheme://host[:port]`, the port only when not the default; robots.txt is per origin. */
  origin: string;
  /** {@link domainKey} of the host: the shard key. */
  domain: string;
}

/** Result of the non-throwing variants. */
export type CanonicalizeResult = { ok: true; value: CanonicalUrl } | { ok: false; error: UrlError };

const DEFAULT_MAX_URL_BYTES = 2048;
const INPUT_CHARS_PER_URL_BYTE = 4;

/**
 * A compiled canonicalisation configuration for hot paths: options are validated and
 * the tracking filter built once, and a per-call `base` lets one instance serve every
 * page of a crawl. Stateless apart from its options, so it is safe to share.
 */
export class Canonicalizer {
  /** `null` when tracking parameters are kept. */
  readonly #dropParam: ParamFilter | null;
  readonly #sortQuery: boolean;
  readonly #maxUrlBytes: number;
  readonly #maxInputChars: number;
  readonly #base: string | undefined;

  /** @throws {UrlOptionsError} when an option has the wrong type or range. */
  constructor(options: CanonicalizeOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw new UrlOptionsError('options', options, 'an object');
    }
    const strip = optionalBoolean('stripTrackingParams', options.stripTrackingParams, true);
    const extra = options.trackingParams ?? [];
    if (!Array.isArray(extra)) {
      throw new UrlOptionsError('trackingParams', extra, 'an array of strings or RegExps');
    }
    for (const item of extra) {
      if (typeof item !== 'string' && !(item instanceof RegExp)) {
        throw new UrlOptionsError('trackingParams[]', item, 'a string or a RegExp');
      }
    }
    this.#dropParam = strip ? compileTrackingFilter(extra) : null;
    this.#sortQuery = optionalBoolean('sortQuery', options.sortQuery, false);
    this.#maxUrlBytes = positiveInteger('maxUrlBytes', options.maxUrlBytes, DEFAULT_MAX_URL_BYTES);
    this.#maxInputChars = positiveInteger(
      'maxInputChars',
      options.maxInputChars,
      this.#maxUrlBytes * INPUT_CHARS_PER_URL_BYTE,
    );
    const base = options.base;
    if (base !== undefined && typeof base !== 'string' && !(base instanceof URL)) {
      throw new UrlOptionsError('base', base, 'a string or a URL');
    }
    if (typeof base === 'string' && !URL.canParse(base)) {
      throw new UrlOptionsError('base', base, 'an absolute URL');
    }
    this.#base = base === undefined ? undefined : String(base);
  }

  /**
   * Canonicalises `input`, resolved against `base` (or the `base` option) when relative.
   * @throws {UrlError} with a `SHARDLINE_ERR_URL_*` code.
   */
  canonicalize(input: string | URL, base?: string | URL): CanonicalUrl {
    const text = typeof input === 'string' ? input : input instanceof URL ? input.href : null;
    if (text === null) {
      throw new UrlError(UrlErrorCode.INVALID, 'expected a string or a URL', String(input));
    }
    if (text.length > this.#maxInputChars) {
      throw new UrlError(
        UrlErrorCode.TOO_LONG,
        `input is ${text.length} characters, more than ${this.#maxInputChars}`,
        text,
      );
    }
    if (isBlank(text)) {
      throw new UrlError(UrlErrorCode.INVALID, 'empty or whitespace-only input', text);
    }
    const baseText = base === undefined ? this.#base : String(base);
    let parsed: URL;
    try {
      parsed = new URL(text, baseText);
    } catch {
      throw new UrlError(
        UrlErrorCode.INVALID,
        baseText === undefined
          ? `not a valid absolute URL${schemeHint(text)}`
          : 'not a valid URL reference',
        text,
      );
    }
    return this.#fromParsed(parsed, text, baseText === undefined);
  }

  /** Like {@link Canonicalizer.canonicalize} but returns the error instead of throwing it. */
  tryCanonicalize(input: string | URL, base?: string | URL): CanonicalizeResult {
    try {
      return { ok: true, value: this.canonicalize(input, base) };
    } catch (error) {
      if (error instanceof UrlError) return { ok: false, error };
      throw error;
    }
  }

  #fromParsed(parsed: URL, input: string, absolute = false): CanonicalUrl {
    const protocol = parsed.protocol;
    let scheme: 'http' | 'https';
    if (protocol === 'https:') scheme = 'https';
    else if (protocol === 'http:') scheme = 'http';
    else {
      const hint = absolute && HOST_PORT.test(input) ? schemeHint(input) : '';
      throw new UrlError(
        UrlErrorCode.SCHEME,
        `scheme "${protocol}" is not http or https${hint}`,
        input,
      );
    }
    if (parsed.username !== '' || parsed.password !== '') {
      throw new UrlError(UrlErrorCode.CREDENTIALS, 'URL carries credentials', input);
    }
    const host = stripTrailingDot(parsed.hostname);
    const kind = checkHost(host);
    if (kind !== 'dns' && kind !== 'ipv4' && kind !== 'ipv6') {
      throw new UrlError(UrlErrorCode.HOST, kind, input);
    }
    // WHATWG already drops a default port, so a non-empty port is never 80 on http.
    const portText = parsed.port;
    const port = portText === '' ? (scheme === 'https' ? 443 : 80) : Number(portText);
    if (port === 0) throw new UrlError(UrlErrorCode.INVALID, 'port 0', input);
    const origin = portText === '' ? `${scheme}://${host}` : `${scheme}://${host}:${portText}`;
    const path = normalizePercentEncoding(parsed.pathname);
    const search = parsed.search;
    const query = search.length <= 1 ? '' : this.#canonicalQuery(search);
    const url = origin + path + query;
    // The serialisation is ASCII (WHATWG escapes everything else, hosts are punycode),
    // so its length in code units is its length in UTF-8 bytes.
    if (url.length > this.#maxUrlBytes) {
      throw new UrlError(
        UrlErrorCode.TOO_LONG,
        `canonical URL is ${url.length} bytes, more than ${this.#maxUrlBytes}`,
        input,
      );
    }
    return { url, scheme, host, port, origin, domain: domainKeyOfCanonicalHost(host, kind) };
  }

  /** `search` includes its leading `?` and is not empty. Returns `''` or `?…`. */
  #canonicalQuery(search: string): string {
    const query = normalizePercentEncoding(search.slice(1));
    const drop = this.#dropParam;
    if (drop === null && !this.#sortQuery) return `?${query}`;
    // Pairs are split on the raw text, not with URLSearchParams, whose
    // form-urlencoded serialiser would rewrite `%20` as `+` and escape more.
    const pairs: string[] = [];
    let start = 0;
    while (start <= query.length) {
      let end = query.indexOf('&', start);
      if (end === -1) end = query.length;
      if (end > start) {
        const pair = query.slice(start, end);
        if (drop === null || !drop(paramName(pair))) pairs.push(pair);
      }
      start = end + 1;
    }
    if (pairs.length === 0) return '';
    if (this.#sortQuery && pairs.length > 1) {
      // Array.prototype.sort is stable, so repeated names keep their relative order.
      pairs.sort((a, b) => {
        const nameA = paramName(a);
        const nameB = paramName(b);
        return nameA < nameB ? -1 : nameA > nameB ? 1 : 0;
      });
    }
    return `?${pairs.join('&')}`;
  }
}

/**
 * Compiles `options` once for canonicalising many URLs (every link of a crawl).
 * @throws {UrlOptionsError} when an option has the wrong type or range.
 */
export function createCanonicalizer(options?: CanonicalizeOptions): Canonicalizer {
  return new Canonicalizer(options);
}

function paramName(pair: string): string {
  const eq = pair.indexOf('=');
  return eq === -1 ? pair : pair.slice(0, eq);
}

/** WHATWG strips C0 controls and spaces around a URL; Unicode blanks count as empty too. */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20) continue;
    if (code < 0x80) return false;
    if (!/\s/.test(text[i]!)) return false;
  }
  return true;
}

function optionalBoolean(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new UrlOptionsError(name, value, 'a boolean');
  return value;
}

function positiveInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new UrlOptionsError(name, value, 'a positive integer');
  }
  return value;
}

/** `host:port…` with no scheme, which WHATWG reads as the scheme `host:` (`example.com:8080/a`). */
const HOST_PORT = /^[^/:?#]+:\d+(?:[/?#]|$)/;

/**
 * ` (did you mean "https://example.com"?)` for what a person types as a URL without its scheme
 * (`example.com`, `example.com:8080/a`): a host with a dot, or localhost, once `https://` is
 * put in front. Empty for anything else.
 */
function schemeHint(text: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) || !URL.canParse(`https://${text}`)) return '';
  const { hostname } = new URL(`https://${text}`);
  const labels = hostname.split('.');
  if (labels.includes('') || (labels.length < 2 && hostname !== 'localhost')) return '';
  return ` (did you mean ${JSON.stringify(`https://${text}`)}?)`;
}
