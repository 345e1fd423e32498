import { domainToASCII } from 'node:url';
import { DnsError, DnsErrorCode } from './errors.js';

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * Lower-cases a hostname, drops URL brackets around IPv6 and one trailing dot, converts
 * Unicode to punycode, and checks RFC 1035 lengths. Underscores are tolerated because real
 * hosts use them even though RFC 952 does not.
 *
 * @throws DnsError `SHARDLINE_ERR_DNS_INVALID_HOSTNAME`
 */
export function normalizeHostname(input: string): string {
  if (typeof input !== 'string' || input.length === 0) {
    throw new DnsError(DnsErrorCode.INVALID_HOSTNAME, `invalid hostname ${JSON.stringify(input)}`);
  }
  if (input.startsWith('[') && input.endsWith(']')) return input.slice(1, -1).toLowerCase();
  if (input.includes(':')) return input.toLowerCase(); // bare IPv6; validated by the caller
  // biome-ignore lint/suspicious/noControlCharactersInRegex: detecting non-ASCII on purpose
  let host = /[^\x00-\x7f]/.test(input) ? domainToASCII(input) : input.toLowerCase();
  if (host.endsWith('.')) host = host.slice(0, -1);
  const labels = host.split('.');
  if (host.length === 0 || host.length > 253 || !labels.every((label) => LABEL.test(label))) {
    throw new DnsError(DnsErrorCode.INVALID_HOSTNAME, `invalid hostname ${JSON.stringify(input)}`, {
      hostname: input,
    });
  }
  return host;
}

/** `localhost` and `*.localhost` are loopback by RFC 6761 and never go to DNS. */
export function isLocalhost(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost');
}
