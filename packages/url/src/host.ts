/**
 * Host checks applied after WHATWG parsing. WHATWG accepts hosts no resolver will ever
 * answer for (`a..b.com`, `a!b.com`, 64-character labels), because it sets
 * VerifyDnsLength=false and only forbids a few code points; a crawler wants DNS names.
 */

/** RFC 1035 §2.3.4: a name is at most 255 octets on the wire, 253 as dotted text. */
export const MAX_HOST_CHARS = 253;
/** RFC 1035 §2.3.4: at most 63 octets per label. */
export const MAX_LABEL_CHARS = 63;

/**
 * Letters, digits, hyphen and underscore, in any position. RFC 1123 allows neither `_`
 * nor a label starting or ending with `-`, but real DNS serves both (`my_site.example`,
 * `foo-.tumblr.com`) and every browser fetches them, so a crawler that refused them
 * would lose real pages. Upper case never reaches here: WHATWG lower-cases hosts.
 */
const DNS_NAME = /^[a-z0-9_-]{1,63}(?:\.[a-z0-9_-]{1,63})*$/;

/** IPv4 as WHATWG serialises every accepted form (`0x7f.1` → `127.0.0.1`). */
const IPV4 = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** What {@link checkHost} learnt about a WHATWG-serialised host. */
export type HostKind = 'dns' | 'ipv4' | 'ipv6';

/**
 * Classifies a host exactly as `URL.hostname` serialises it for http(s), with any
 * single trailing dot already removed. Returns the reason it is unusable as a string
 * when it is not a DNS name or an IP literal.
 */
export function checkHost(host: string): HostKind | string {
  if (host.length === 0) return 'empty host';
  const first = host.charCodeAt(0);
  if (first === 91 /* [ */) return 'ipv6';
  // WHATWG parses a host whose last label is a number as IPv4 (and fails if it is not
  // one) and serialises it dotted-decimal; `a.b1` ends in a digit but is a name.
  const last = host.charCodeAt(host.length - 1);
  if (last >= 48 && last <= 57 && IPV4.test(host)) return 'ipv4';
  if (host.length > MAX_HOST_CHARS) {
    return `host is ${host.length} characters, more than ${MAX_HOST_CHARS}`;
  }
  if (DNS_NAME.test(host)) return 'dns';
  return whyNotDnsName(host);
}

/** Slow path, only for refused hosts: name the first rule broken. */
function whyNotDnsName(host: string): string {
  let labelStart = 0;
  for (let i = 0; i <= host.length; i++) {
    if (i === host.length || host.charCodeAt(i) === 46) {
      const labelLength = i - labelStart;
      if (labelLength === 0) return 'host has an empty label';
      if (labelLength > MAX_LABEL_CHARS) {
        return `host label is ${labelLength} characters, more than ${MAX_LABEL_CHARS}`;
      }
      labelStart = i + 1;
    }
  }
  return 'host has characters other than letters, digits, "-", "_" and "."';
}

/** Drops one trailing dot: `example.com.` and `example.com` name the same DNS node. */
export function stripTrailingDot(host: string): string {
  return host.length > 1 && host.charCodeAt(host.length - 1) === 46 ? host.slice(0, -1) : host;
}
