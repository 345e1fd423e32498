import { isIP } from 'node:net';
import { DnsError, DnsErrorCode } from './errors.js';

/** One parsed `--resolve`-style override. */
export interface ParsedOverride {
  /** Lower-case host, `*.suffix` wildcard, or `*` (every host). */
  pattern: string;
  /** The target IP address, without brackets. */
  address: string;
  /**
   * The port of the curl form `host:port:address`: the override applies to that port only.
   * Without one it applies only to the ports allowed for the host (see `OverrideTable`).
   */
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
 * `site1.test:127.0.0.1`, `*.test:127.0.0.1`, `site1.test:8080:127.0.0.1` (curl form: the
 * override applies to port 8080 only), `site1.test:[::1]` (IPv6 in brackets; a bare IPv6 address
 * is accepted only when it cannot be read as `port:address`).
 *
 * @throws DnsError `SHARDLINE_ERR_DNS_INVALID_OVERRIDE`
 */
export function parseOverride(spec: string): ParsedOverride {
  const parsed = readOverride(spec);
  if ('problem' in parsed) throw invalid(spec, parsed.problem);
  return parsed;
}

/** What is wrong with an override spec (`no address after the host`), or undefined. */
export function overrideProblem(spec: string): string | undefined {
  const parsed = readOverride(spec);
  return 'problem' in parsed ? parsed.problem : undefined;
}

function readOverride(spec: string): ParsedOverride | { problem: string } {
  if (typeof spec !== 'string') return { problem: `not a string (${typeof spec})` };
  const colon = spec.indexOf(':');
  if (colon < 0) return { problem: 'no address after the host' };
  if (colon === 0) return { problem: 'no host before ":"' };
  let pattern = spec.slice(0, colon).toLowerCase();
  if (pattern.endsWith('.') && pattern.length > 1) pattern = pattern.slice(0, -1);
  if (!PATTERN.test(pattern) || pattern.length > 253) return { problem: 'bad host pattern' };

  let rest = spec.slice(colon + 1);
  let port: number | undefined;
  const portMatch = /^(\d{1,5}):(.+)$/.exec(rest);
  if (portMatch && unbracket(portMatch[2] ?? '') !== undefined) {
    port = Number(portMatch[1]);
    if (port < 1 || port > 65535) return { problem: `port ${port} out of range` };
    rest = portMatch[2] ?? '';
  }
  const address = unbracket(rest);
  if (address === undefined) return { problem: `"${rest}" is not an IP address` };
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

/** A target with the port its spec named (none: the ports allowed for the host). */
interface PortedTarget extends OverrideTarget {
  port: number | undefined;
}

/**
 * The override table: an exact host wins over any wildcard, a longer wildcard suffix wins
 * over a shorter one, and `*` is the last resort. `*.test` matches `a.test` and `b.a.test`
 * but not `test`. Several specs for one pattern accumulate addresses in the order given.
 *
 * Ports: an override sends a host to an address the address policy would refuse (a private
 * service, loopback), so it must not open every port of that address to whatever a crawled
 * page links or redirects to. A spec with a port (`host:port:address`) applies to that port
 * only; a spec without one applies to every port, or (`portless: 'allowed'`) only to the
 * ports {@link allowPort} was given for a host under the same rule — the ports of its seeds:
 * with `*.test:127.0.0.1` and a seed on `site1.test:8080`, `www.site3.test:8080` reaches the
 * override too (the operator named the hosts by the pattern and the port by the seed), port
 * 6379 of any of them does not. Any other port resolves as if there were no override, under
 * the address policy.
 */
export class OverrideTable {
  readonly #exact = new Map<string, PortedTarget[]>();
  // Suffix (with leading dot) → targets, checked longest first.
  readonly #wildcards = new Map<string, PortedTarget[]>();
  #suffixes: string[] = [];
  #catchAll: PortedTarget[] | undefined;
  // Rule ({@link ruleOf}) → ports its port-less overrides apply to (bounded: one entry per
  // seeded rule:port).
  readonly #allowedPorts = new Map<string, Set<number>>();

  // 'any': port-less overrides apply to every port (no allowPort needed).
  readonly #portless: 'any' | 'allowed';

  constructor(specs: readonly string[], portless: 'any' | 'allowed' = 'any') {
    this.#portless = portless;
    for (const spec of specs) {
      const { pattern, address, port } = parseOverride(spec);
      const target: PortedTarget = { address, family: isIP(address) === 6 ? 6 : 4, port };
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

  /**
   * The rule that applies to a normalised hostname: the host itself for an exact override,
   * `*.suffix` for a wildcard, `*` for the catch-all; undefined without an override.
   */
  ruleOf(hostname: string): string | undefined {
    return this.#lookup(hostname)?.rule;
  }

  /**
   * Lets the port-less overrides of `hostname`'s rule ({@link ruleOf}) apply to `port` (a
   * seed's port), for every host under that rule. No effect when no port-less override
   * matches the host.
   */
  allowPort(hostname: string, port: number): void {
    const found = this.#lookup(hostname);
    if (!found?.targets.some((t) => t.port === undefined)) return;
    let ports = this.#allowedPorts.get(found.rule);
    if (!ports) {
      ports = new Set();
      this.#allowedPorts.set(found.rule, ports);
    }
    ports.add(port);
  }

  /**
   * Whether `hostname` has a port-less override that does not apply to `port` yet because
   * the port was never allowed (`portless: 'allowed'`): the caller may know better (a seed
   * another process allowed) and call {@link allowPort}.
   */
  portPending(hostname: string, port: number): boolean {
    if (this.#portless === 'any') return false;
    const found = this.#lookup(hostname);
    if (!found || this.#allowedPorts.get(found.rule)?.has(port)) return false;
    return found.targets.some((t) => t.port === undefined);
  }

  /**
   * The targets for a normalised (lower-case, no trailing dot) hostname and port, if an
   * override applies to them (see the class comment). Without a port, every override of the
   * host applies.
   */
  match(hostname: string, port?: number): readonly OverrideTarget[] | undefined {
    const found = this.#lookup(hostname);
    if (!found) return undefined;
    const { targets } = found;
    const allowed = this.#allowedPorts.get(found.rule);
    // No port: the caller connects where it has checked the port itself (every override).
    const apply =
      port === undefined
        ? targets
        : targets.filter((t) =>
            t.port === undefined
              ? this.#portless === 'any' || (allowed?.has(port) ?? false)
              : t.port === port,
          );
    if (apply.length === 0) return undefined;
    return apply.map(({ address, family }) => ({ address, family }));
  }

  #lookup(hostname: string): { rule: string; targets: readonly PortedTarget[] } | undefined {
    const exact = this.#exact.get(hostname);
    if (exact) return { rule: hostname, targets: exact };
    for (const suffix of this.#suffixes) {
      if (hostname.endsWith(suffix) && hostname.length > suffix.length) {
        return { rule: `*${suffix}`, targets: this.#wildcards.get(suffix)! };
      }
    }
    return this.#catchAll && { rule: '*', targets: this.#catchAll };
  }
}

function add(map: Map<string, PortedTarget[]>, key: string, target: PortedTarget): void {
  const list = map.get(key);
  if (list) list.push(target);
  else map.set(key, [target]);
}
