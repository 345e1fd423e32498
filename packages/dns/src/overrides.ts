import { isIP } from 'node:net';
import { DnsError, DnsErrorCode } from './errors.js';

/** One parsed `--resolve`-style override. */
export interface ParsedOverride {
  /** Lower-case host, `*.suffix` wildcard, or `*` (every host). */
  pattern: string;
  /** The target IP address, without brackets. */
  address: string;
  /** The port of the curl form `host:port:address`; parsed but not used by `DnsCache`. */
  port?: number;
}

const PATTERN =
  /^(\*|(\*\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*)$/;

function invalid(spec: unknown, why: string): DnsError {
  return new DnsError(
    DnsErrorCode.INVALID_OVERRIDE,
    `invalid DNS override ${JSON.stringify(spec)}: ${why}; expected "host:address", "host:port:address", "*.suffix:address" or "host:[ipv6]"`,
  );
}

/**
 * Parses a static override in the style of curl's `--resolve`:
 * `site1.test:127.0.0.1`, `*.test:127.0.0.1`, `site1.test:8080:127.0.0.1` (curl form; the port
 * is returned but `DnsCache` applies the override to every port, because a connect-time
 * `lookup` never sees the port), `site1.test:[::1]` (IPv6 in brackets; a bare IPv6 address
 * is accepted only when it cannot be read as `port:address`).
 *
 * @throws DnsError `SHARDLINE_ERR_DNS_INVALID_OVERRIDE`
 */
export function parseOverride(spec: string): ParsedOverride {
  if (typeof spec !== 'string') throw invalid(spec, `not a string (${typeof spec})`);
  const colon = spec.indexOf(':');
  if (colon <= 0) throw invalid(spec, 'no host before ":"');
  let pattern = spec.slice(0, colon).toLowerCase();
  if (pattern.endsWith('.') && pattern.length > 1) pattern = pattern.slice(0, -1);
  if (!PATTERN.test(pattern) || pattern.length > 253) throw invalid(spec, 'bad host pattern');

  let rest = spec.slice(colon + 1);
  let port: number | undefined;
  const portMatch = /^(\d{1,5}):(.+)$/.exec(rest);
  if (portMatch && unbracket(portMatch[2] ?? '') !== undefined) {
    port = Number(portMatch[1]);
    if (port < 1 || port > 65535) throw invalid(spec, `port ${port} out of range`);
    rest = portMatch[2] ?? '';
  }
  const address = unbracket(rest);
  if (address === undefined) throw invalid(spec, `"${rest}" is not an IP address`);
  return port === undefined ? { pattern, address } : { pattern, address, port };
}

/** `1.2.3.4` → itself, `[::1]` → `::1`, bare IPv6 → itself; anything else → undefined. */
function unbracket(text: string): string | undefined {
  if (text.startsWith('[') && text.endsWith(']')) {
    const inner = text.slice(1, -1);
    return isIP(inner) === 6 ? inner.toLowerCase() : undefined;
  }
  return isIP(text) ? text.toLowerCase() : undefined;
}

/** A resolved override target. */
export interface OverrideTarget {
  address: string;
  family: 4 | 6;
}

/**
 * The override table: an exact host wins over any wildcard, a longer wildcard suffix wins
 * over a shorter one, and `*` is the last resort. `*.test` matches `a.test` and `b.a.test`
 * but not `test`. Several specs for one pattern accumulate addresses in the order given.
 */
export class OverrideTable {
  readonly #exact = new Map<string, OverrideTarget[]>();
  // Suffix (with leading dot) → targets, checked longest first.
  readonly #wildcards = new Map<string, OverrideTarget[]>();
  #suffixes: string[] = [];
  #catchAll: OverrideTarget[] | undefined;

  constructor(specs: readonly string[]) {
    for (const spec of specs) {
      const { pattern, address } = parseOverride(spec);
      const target: OverrideTarget = { address, family: isIP(address) === 6 ? 6 : 4 };
      if (pattern === '*') {
        this.#catchAll ??= [];
        this.#catchAll.push(target);
      } else if (pattern.startsWith('*.')) {
        add(this.#wildcards, pattern.slice(1), target);
      } else {
        add(this.#exact, pattern, target);
      }
    }
    this.#suffixes = [...this.#wildcards.keys()].sort((a, b) => b.length - a.length);
  }

  get size(): number {
    return this.#exact.size + this.#wildcards.size + (this.#catchAll ? 1 : 0);
  }

  /** The targets for a normalised (lower-case, no trailing dot) hostname, if overridden. */
  match(hostname: string): readonly OverrideTarget[] | undefined {
    const exact = this.#exact.get(hostname);
    if (exact) return exact;
    for (const suffix of this.#suffixes) {
      if (hostname.endsWith(suffix) && hostname.length > suffix.length) {
        return this.#wildcards.get(suffix);
      }
    }
    return this.#catchAll;
  }
}

function add(map: Map<string, OverrideTarget[]>, key: string, target: OverrideTarget): void {
  const list = map.get(key);
  if (list) list.push(target);
  else map.set(key, [target]);
}
