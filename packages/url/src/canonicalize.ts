import {
  type CanonicalizeOptions,
  type CanonicalizeResult,
  Canonicalizer,
  type CanonicalUrl,
} from './canonicalizer.js';

/** Shared by every call without options; a Canonicalizer holds no per-call state. */
const DEFAULT_CANONICALIZER = new Canonicalizer();

function canonicalizerFor(options: CanonicalizeOptions | undefined): Canonicalizer {
  // Options are compiled per call here; hot paths should hold a createCanonicalizer().
  return options === undefined ? DEFAULT_CANONICALIZER : new Canonicalizer(options);
}

/**
 * Canonicalises an http(s) URL or a link resolved against `options.base`: lower-case
 * scheme and host, IDN → punycode, no default port, no fragment, no empty query, dot
 * segments resolved, unreserved escapes decoded and other escapes upper-cased, empty
 * path → `/`, tracking parameters removed (default) and optionally the query sorted.
 *
 * @throws {UrlError} `SHARDLINE_ERR_URL_INVALID`, `_SCHEME`, `_CREDENTIALS`,
 *   `_TOO_LONG` or `_HOST`.
 * @throws {UrlOptionsError} when `options` is malformed.
 */
export function canonicalize(input: string | URL, options?: CanonicalizeOptions): CanonicalUrl {
  return canonicalizerFor(options).canonicalize(input);
}

/**
 * {@link canonicalize} without exceptions for bad URLs (malformed options still throw).
 */
export function tryCanonicalize(
  input: string | URL,
  options?: CanonicalizeOptions,
): CanonicalizeResult {
  return canonicalizerFor(options).tryCanonicalize(input);
}

/**
 * The robots.txt URL governing `url`: its origin + `/robots.txt` (RFC 9309 §2.3 — per
 * scheme, host and port). A string is canonicalised first with default options.
 * @throws {UrlError} when `url` is a string that {@link canonicalize} refuses.
 */
export function robotsTxtUrl(url: string | CanonicalUrl): string {
  const origin =
    typeof url === 'string' ? DEFAULT_CANONICALIZER.canonicalize(url).origin : url.origin;
  return `${origin}/robots.txt`;
}
