import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { DnsError, DnsErrorCode } from './errors.js';

/** A parsed IPv4 or IPv6 address (ipaddr.js). */
export type ParsedAddress = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Parses an IP literal: dotted-quad IPv4, IPv6 with or without brackets and zone id, and the
 * legacy IPv4 spellings that `inet_aton` and the WHATWG URL parser accept (`127.1`,
 * `0x7f.0.0.1`, `2130706433`), because a host written that way still reaches the address.
 * Returns `undefined` for anything else (i.e. a hostname).
 */
export function parseAddress(input: string): ParsedAddress | undefined {
  let text = input;
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const kind = isIP(text);
  if (kind === 6) {
    // ipaddr.js keeps the zone id apart; the zone does not change the address class.
    return ipaddr.IPv6.parse(text);
  }
  if (kind === 4) return ipaddr.IPv4.parse(text);
  if (/^[0-9a-fx.]+$/i.test(text) && ipaddr.IPv4.isValid(text)) return ipaddr.IPv4.parse(text);
  return undefined;
}

/** Like {@link parseAddress} but throws `SHARDLINE_ERR_DNS_INVALID_ADDRESS` for a non-address. */
export function requireAddress(input: string): ParsedAddress {
  const parsed = typeof input === 'string' ? parseAddress(input) : undefined;
  if (!parsed) {
    throw new DnsError(DnsErrorCode.INVALID_ADDRESS, `not an IP address: ${String(input)}`);
  }
  return parsed;
}

/** The canonical text of an address: dotted quad for IPv4, RFC 5952 for IPv6. */
export function formatAddress(address: ParsedAddress): string {
  return address.kind() === 'ipv4'
    ? address.toString()
    : (address as ipaddr.IPv6).toRFC5952String();
}

/**
 * The IPv4 address embedded in an IPv6 one by a translation mechanism, which decides where
 * a connection really goes: IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`,
 * NAT64 `64:ff9b::a.b.c.d` and local-use NAT64 `64:ff9b:1::/48` (last 32 bits), and 6to4
 * `2002:AABB:CCDD::/48` (bits 16–47).
 */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = address.parts;
  const word = (i: number): number => p[i] ?? 0;
  const fromWords = (hi: number, lo: number): ipaddr.IPv4 =>
    new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const zeros = (from: number, to: number): boolean => {
    for (let i = from; i < to; i++) if (word(i) !== 0) return false;
    return true;
  };
  if (zeros(0, 5) && word(5) === 0xffff) return fromWords(word(6), word(7));
  if (zeros(0, 4) && word(4) === 0xffff && word(5) === 0) return fromWords(word(6), word(7));
  if (word(0) === 0x64 && word(1) === 0xff9b && zeros(2, 6)) return fromWords(word(6), word(7));
  if (word(0) === 0x64 && word(1) === 0xff9b && word(2) === 1) return fromWords(word(6), word(7));
  if (word(0) === 0x2002) return fromWords(word(1), word(2));
  return undefined;
}

/** Parses `a.b.c.d/n`, `v6::/n` or a bare address (a /32 or /128). */
export function parseCidr(text: string): [ParsedAddress, number] | undefined {
  if (typeof text !== 'string') return undefined;
  const slash = text.indexOf('/');
  if (slash === -1) {
    const parsed = isIP(text) ? parseAddress(text) : undefined;
    return parsed ? [parsed, parsed.kind() === 'ipv4' ? 32 : 128] : undefined;
  }
  try {
    const [base, bits] = ipaddr.parseCIDR(text);
    // parseCIDR accepts the loose IPv4 forms; a policy list should be spelled plainly.
    return isIP(text.slice(0, slash)) ? [base, bits] : undefined;
  } catch {
    return undefined;
  }
}
