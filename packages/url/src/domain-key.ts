import { parse } from 'tldts';
import { UrlError, UrlErrorCode } from './errors.js';
import { checkHost, type HostKind, stripTrailingDot } from './host.js';

/**
 * Options for tldts, fixed once. Callers hand us a host that WHATWG already extracted,
 * lower-cased, punycoded and that {@link checkHost} validated, so tldts need not
 * extract, validate or detect IPs again; private suffixes count so that
 * `a.github.io` and `b.github.io` are different domains (different owners).
 */
const TLDTS_OPTIONS = {
  allowPrivateDomains: true,
  extractHostname: false,
  mixedInputs: false,
  validateHostname: false,
  detectIp: false,
} as const;

/**
 * Domain key of a host already canonical (WHATWG-serialised, trailing dot removed) and
 * classified by {@link checkHost}. IP literals, hosts under no known public suffix
 * (`localhost`, `www.site3.test`) and hosts that are themselves a public suffix
 * (`github.io`) key by the whole host.
 */
export function domainKeyOfCanonicalHost(host: string, kind: HostKind): string {
  if (kind !== 'dns') return host;
  return RECENT_KEYS.get(host);
}

/** Entries per generation of {@link RecentKeys}; at most twice this many are held. */
const RECENT_KEYS_PER_GENERATION = 4096;

/**
 * A bounded memo of host → key. A crawler canonicalises the links of one page, mostly to
 * the same few hosts, back to back, so a small memo saves most PSL lookups. Two
 * generations: a hit in the old one is promoted; when the young one fills, the old one
 * is dropped whole. Bounded (2 × 4096 hosts of ≤ 253 chars) without LRU bookkeeping.
 */
class RecentKeys {
  #young = new Map<string, string>();
  #old = new Map<string, string>();

  get(host: string): string {
    let key = this.#young.get(host);
    if (key !== undefined) return key;
    key = this.#old.get(host) ?? lookUpDomainKey(host);
    if (this.#young.size >= RECENT_KEYS_PER_GENERATION) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(host, key);
    return key;
  }
}

const RECENT_KEYS = new RecentKeys();

function lookUpDomainKey(host: string): string {
  const result = parse(host, TLDTS_OPTIONS);
  // Without a matching rule tldts falls back to the PSL's implicit `*` rule (the last
  // label is the suffix); both flags are false then, and that guess is not a registry.
  if (result.domain === null || (result.isIcann !== true && result.isPrivate !== true)) {
    return host;
  }
  return result.domain;
}

/** Lower-case ASCII DNS name; anything else (upper case, Unicode, xn--) goes through WHATWG. */
const CANONICAL_NAME = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?$/;
/** Characters that make a bare host a URL fragment rather than a host. */
const NOT_IN_HOST = /[/\\?#@\s]/;

/**
 * The shard key of a URL or host: its registrable domain (eTLD+1, private suffixes
 * counted), e.g. `news.bbc.co.uk` → `bbc.co.uk`, `a.github.io` → `a.github.io`. IP
 * literals and hosts without a known public suffix key by the whole host (`[::1]`,
 * `127.0.0.1`, `localhost`, `www.site3.test`). Always lower-case punycode.
 *
 * `urlOrHost` is an absolute http(s) URL when it contains `://`, otherwise a bare host
 * (Unicode, upper case, a trailing dot and unbracketed IPv6 are accepted; a port is not).
 * Only the host is checked: a URL refused by {@link canonicalize} for credentials or
 * length still has a domain key.
 *
 * @throws {UrlError} `SHARDLINE_ERR_URL_INVALID`, `SHARDLINE_ERR_URL_SCHEME` or
 *   `SHARDLINE_ERR_URL_HOST`.
 */
export function domainKey(urlOrHost: string): string {
  return keyOf(urlOrHost, 'domain');
}

/** A host as the frontier keys it, and its {@link domainKey}. */
export interface HostKey {
  /** Lower-case punycode, no trailing dot, IPv6 in brackets: `CanonicalUrl.host`. */
  host: string;
  domain: string;
}

/**
 * The host of a URL or bare host as the canonicaliser writes it (the frontier's key of its
 * politeness state) with its domain key: `WWW.Example.COM.`, `www.example.com` and
 * `https://www.example.com/x` all name host `www.example.com` of domain `example.com`. Accepts
 * and refuses what {@link domainKey} does.
 */
export function hostKey(urlOrHost: string): HostKey {
  const host = keyOf(urlOrHost, 'host');
  // The canonical host keys by itself: domainKey's fast path, and its memo.
  return { host, domain: keyOf(host, 'domain') };
}

/**
 * What a key is taken from: the canonical host, or its domain key. One string either way, so
 * domainKey — on the link-scope path, once per link — allocates no result object.
 */
type KeyPart = 'host' | 'domain';

function keyOf(urlOrHost: string, part: KeyPart): string {
  if (typeof urlOrHost !== 'string') {
    throw new UrlError(UrlErrorCode.INVALID, 'expected a string', String(urlOrHost));
  }
  if (urlOrHost.includes('://')) return keyOfUrl(urlOrHost, part);
  return keyOfBareHost(urlOrHost, part);
}

function keyOfUrl(input: string, part: KeyPart): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new UrlError(UrlErrorCode.INVALID, 'not a valid URL', input);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UrlError(UrlErrorCode.SCHEME, `scheme "${url.protocol}" is not http or https`, input);
  }
  return keyOfParsedHost(url.hostname, input, part);
}

function keyOfBareHost(input: string, part: KeyPart): string {
  if (input.length === 0) {
    throw new UrlError(UrlErrorCode.HOST, 'empty host', input);
  }
  if (CANONICAL_NAME.test(input) && !needsWhatwg(input)) {
    return keyOfParsedHost(input, input, part);
  }
  if (NOT_IN_HOST.test(input)) {
    throw new UrlError(UrlErrorCode.HOST, 'not a bare host', input);
  }
  let host = input;
  const colon = input.indexOf(':');
  if (colon !== -1) {
    // Two colons or more outside brackets can only be an IPv6 address; one is a port.
    if (input.charCodeAt(0) === 91 /* [ */) {
      if (input.charCodeAt(input.length - 1) !== 93 /* ] */) {
        throw new UrlError(UrlErrorCode.HOST, 'host has a port or stray "["', input);
      }
    } else if (input.indexOf(':', colon + 1) !== -1) {
      host = `[${input}]`;
    } else {
      throw new UrlError(UrlErrorCode.HOST, 'host has a port', input);
    }
  }
  let url: URL;
  try {
    url = new URL(`http://${host}/`);
  } catch {
    throw new UrlError(UrlErrorCode.HOST, 'not a valid host', input);
  }
  return keyOfParsedHost(url.hostname, input, part);
}

/**
 * A canonical-looking name still needs WHATWG when its last label may be numeric
 * (`127.1`, `0x7f.1`: IPv4 forms to normalise or refuse) or it holds punycode, whose
 * validity only the IDNA step checks.
 */
function needsWhatwg(name: string): boolean {
  const trimmed = stripTrailingDot(name);
  const lastLabel = trimmed.lastIndexOf('.') + 1;
  const first = trimmed.charCodeAt(lastLabel);
  return (first >= 48 && first <= 57) || name.includes('xn--');
}

function keyOfParsedHost(hostname: string, input: string, part: KeyPart): string {
  const host = stripTrailingDot(hostname);
  const kind = checkHost(host);
  if (kind !== 'dns' && kind !== 'ipv4' && kind !== 'ipv6') {
    throw new UrlError(UrlErrorCode.HOST, kind, input);
  }
  return part === 'host' ? host : domainKeyOfCanonicalHost(host, kind);
}
