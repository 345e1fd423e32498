import { invalidOption } from './errors.js';

/** Options of {@link DnsCache}. */
export interface DnsCacheOptions {
  /**
   * Static overrides like curl `--resolve`: `'site1.test:127.0.0.1'`, wildcard
   * `'*.test:127.0.0.1'`, catch-all `'*:127.0.0.1'`, curl form `'host:port:addr'` (applies to
   * that port only, when the caller names the port), IPv6 `'host:[::1]'`. Several entries for
   * one host give several addresses. Overrides are trusted: their targets bypass the address
   * policy (also `denyCidrs`) and never touch DNS.
   * @default []
   */
  overrides?: string[];
  /**
   * Which ports a port-less override (`host:addr`) applies to when the caller names a port
   * (`resolve(host, port)`, `lookupFor(port)`): `'any'`, or `'allowed'` — only the ports
   * `allowOverridePort` was given for a host under the same rule (a crawler: the ports of its
   * seeds), so a page cannot send the crawler to another port of an overridden (private) address.
   * @default 'any'
   */
  portlessOverridePorts?: 'any' | 'allowed';
  /**
   * Allow private, loopback, link-local, unique-local, CGNAT, metadata (169.254.169.254,
   * fd00:ec2::254) and other non-public ranges for resolved (non-override) addresses.
   * @default false
   */
  allowPrivateAddresses?: boolean;
  /** CIDRs always allowed (the most specific of allow/deny wins; deny on a tie). @default [] */
  allowCidrs?: string[];
  /** CIDRs always refused. @default [] */
  denyCidrs?: string[];
  /** DNS servers `'ip[:port]'` / `'[ipv6]:port'` for a dedicated resolver. @default the system's (/etc/resolv.conf) */
  servers?: string[];
  /** Lower clamp for record TTLs. @default 5_000 */
  minTtlMs?: number;
  /** Upper clamp for record TTLs. @default 3_600_000 */
  maxTtlMs?: number;
  /** How long a failure (NXDOMAIN, no data, SERVFAIL, timeout) is cached. @default 60_000 */
  negativeTtlMs?: number;
  /** Most hostnames kept (positive and negative); least recently used go first. @default 100_000 */
  maxEntries?: number;
  /** Per-try query timeout handed to c-ares; one resolution fails after at most `timeoutMs × tries`. @default 2_000 */
  timeoutMs?: number;
  /** Tries per server. @default 2 */
  tries?: number;
  /** Look up AAAA too (A addresses come first when both exist). @default true */
  ipv6?: boolean;
}

/** Options with defaults applied and values checked. */
export type ResolvedDnsCacheOptions = Required<DnsCacheOptions>;

export const DNS_CACHE_DEFAULTS: Readonly<ResolvedDnsCacheOptions> = Object.freeze({
  overrides: [],
  portlessOverridePorts: 'any',
  allowPrivateAddresses: false,
  allowCidrs: [],
  denyCidrs: [],
  servers: [],
  minTtlMs: 5_000,
  maxTtlMs: 3_600_000,
  negativeTtlMs: 60_000,
  maxEntries: 100_000,
  timeoutMs: 2_000,
  tries: 2,
  ipv6: true,
});

/** Applies defaults and validates; throws `SHARDLINE_ERR_DNS_INVALID_OPTION`. */
export function resolveOptions(options: DnsCacheOptions = {}): ResolvedDnsCacheOptions {
  if (typeof options !== 'object' || options === null) {
    throw invalidOption('(options)', options, 'an object');
  }
  const o = { ...DNS_CACHE_DEFAULTS, ...stripUndefined(options) };
  for (const key of ['overrides', 'allowCidrs', 'denyCidrs', 'servers'] as const) {
    const value = o[key];
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
      throw invalidOption(key, value, 'an array of strings');
    }
  }
  if (o.portlessOverridePorts !== 'any' && o.portlessOverridePorts !== 'allowed') {
    throw invalidOption('portlessOverridePorts', o.portlessOverridePorts, "'any' or 'allowed'");
  }
  for (const key of ['allowPrivateAddresses', 'ipv6'] as const) {
    if (typeof o[key] !== 'boolean') throw invalidOption(key, o[key], 'a boolean');
  }
  for (const key of ['minTtlMs', 'maxTtlMs', 'negativeTtlMs'] as const) {
    if (typeof o[key] !== 'number' || !Number.isFinite(o[key]) || o[key] < 0) {
      throw invalidOption(key, o[key], 'a finite number >= 0');
    }
  }
  if (o.minTtlMs > o.maxTtlMs) {
    throw invalidOption('minTtlMs', o.minTtlMs, `a number <= maxTtlMs (${o.maxTtlMs})`);
  }
  for (const key of ['maxEntries', 'timeoutMs', 'tries'] as const) {
    if (!Number.isSafeInteger(o[key]) || o[key] < 1) {
      throw invalidOption(key, o[key], 'an integer >= 1');
    }
  }
  return o;
}

function stripUndefined(options: DnsCacheOptions): DnsCacheOptions {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}
