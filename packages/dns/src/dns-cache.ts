import type { LookupFunction } from 'node:net';
import { LRUCache } from 'lru-cache';
import { formatAddress, type ParsedAddress, parseAddress } from './address.js';
import type { AddressClass } from './classify.js';
import { DnsError, DnsErrorCode } from './errors.js';
import { isLocalhost, normalizeHostname } from './hostname.js';
import { type Connector, createLookup, guardConnector } from './lookup.js';
import { type DnsCacheOptions, type ResolvedDnsCacheOptions, resolveOptions } from './options.js';
import { OverrideTable } from './overrides.js';
import { CompiledPolicy } from './policy.js';
import { DnsQuerier } from './query.js';

/** One usable address of a host. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
  /** Epoch ms after which the answer is stale; `Infinity` for overrides and IP literals. */
  expiresAt: number;
}

/** Counters since construction (`clear()` does not reset them). */
export interface DnsCacheStats {
  /** Answers served from a fresh positive entry. */
  hits: number;
  /** Resolutions that went to DNS. */
  misses: number;
  /** Failures served from a fresh negative entry. */
  negativeHits: number;
  /** Calls that joined a query already in flight for the same name. */
  coalesced: number;
  /** Calls rejected because every address was refused by the policy. */
  refused: number;
  /** Entries held now (fresh or expired but not yet looked up again, positive or negative). */
  size: number;
}

/** An address with its policy verdict decided once, when the entry is stored. */
interface Candidate {
  address: string;
  family: 4 | 6;
  addressClass: AddressClass;
  allowed: boolean;
}

type Entry =
  | { kind: 'answer'; expiresAt: number; candidates: Candidate[] }
  | { kind: 'failure'; expiresAt: number; code: DnsErrorCode; dnsCode: string; message: string };

/**
 * A TTL-respecting DNS cache with an SSRF address policy, for a crawler's outgoing
 * connections. Queries A (and AAAA) with a dedicated `node:dns` `Resolver`, caches answers for
 * their clamped TTL and failures for `negativeTtlMs`, coalesces concurrent queries for one
 * name, bounds itself with an LRU, and refuses addresses outside the public internet unless
 * allowed. `lookup` plugs the same logic into `net.connect` / undici.
 */
export class DnsCache {
  readonly #options: ResolvedDnsCacheOptions;
  readonly #policy: CompiledPolicy;
  readonly #overrides: OverrideTable;
  readonly #querier: DnsQuerier;
  // Each entry expires on its own TTL (the clamped record TTL, or negativeTtlMs); an expired
  // one is dropped when next looked up, or evicted as least recently used.
  readonly #cache: LRUCache<string, Entry>;
  readonly #inflight = new Map<string, Promise<Entry>>();
  // Bumped by clear(): queries started before it must not write their answer back.
  #generation = 0;
  #hits = 0;
  #misses = 0;
  #negativeHits = 0;
  #coalesced = 0;
  #refused = 0;

  constructor(options: DnsCacheOptions = {}) {
    this.#options = resolveOptions(options);
    this.#policy = new CompiledPolicy(this.#options);
    this.#overrides = new OverrideTable(
      this.#options.overrides,
      this.#options.portlessOverridePorts,
    );
    // Bounded by count through `maxSize` (every entry weighs 1) rather than `max`, which would
    // allocate all `maxEntries` slots (100 000 by default, ~3 MB) before the first lookup.
    this.#cache = new LRUCache({ maxSize: this.#options.maxEntries, sizeCalculation: () => 1 });
    this.#querier = new DnsQuerier(this.#options);
  }

  /**
   * The usable addresses of `hostname`, IPv4 first. IP literals skip DNS, overrides and
   * `localhost` answer locally; every non-override address passes the address policy, and
   * refused addresses are dropped from the answer.
   *
   * With `port`, an override applies only when it names that port or, without a port of its
   * own, under `portlessOverridePorts` (`'allowed'`: when {@link allowOverridePort} allowed it
   * for the host); otherwise the host resolves
   * as if there were no override (address policy included). Without `port` every override of
   * the host applies: only for callers that checked the port themselves.
   *
   * @throws DnsError `SHARDLINE_ERR_DNS_NOT_FOUND`, `…_TIMEOUT`, `…_SERVER_FAILURE`,
   *   `…_REFUSED_ADDRESS` (every address refused), `…_INVALID_HOSTNAME`
   */
  async resolve(hostname: string, port?: number): Promise<ResolvedAddress[]> {
    const host = normalizeHostname(hostname);

    const literal = parseAddress(host);
    if (literal) return this.#admit(host, [this.#candidate(literal)], Number.POSITIVE_INFINITY);
    if (host.includes(':')) {
      const message = `invalid hostname ${JSON.stringify(hostname)}`;
      throw new DnsError(DnsErrorCode.INVALID_HOSTNAME, message, { hostname });
    }

    const targets = this.#overrides.match(host, port);
    if (targets) {
      return targets.map((t) => ({ ...t, expiresAt: Number.POSITIVE_INFINITY }));
    }

    if (isLocalhost(host)) {
      const loopback = ['127.0.0.1', ...(this.#options.ipv6 ? ['::1'] : [])];
      const candidates = loopback.map((a) => this.#candidate(parseAddress(a)!));
      return this.#admit(host, candidates, Number.POSITIVE_INFINITY);
    }

    const entry = await this.#entry(host);
    if (entry.kind === 'failure') {
      throw new DnsError(entry.code, entry.message, { hostname: host, dnsCode: entry.dnsCode });
    }
    return this.#admit(host, entry.candidates, entry.expiresAt);
  }

  /**
   * A `net.connect`-compatible `lookup` (`(hostname, options, callback)`), for
   * `new Agent({ connect: { lookup: cache.lookup } })`. Honours `options.family` (4, 6,
   * 'IPv4', 'IPv6', 0) and `options.all` (happy-eyeballs `autoSelectFamily` asks for all).
   * Errors reach the callback as {@link DnsError}, so a refused address fails the request with
   * `code === DnsErrorCode.REFUSED_ADDRESS`.
   *
   * `net.connect` never calls `lookup` for an IP-literal host: wrap the connector with
   * {@link DnsCache.guardConnector} (or call `resolve()` first) to check those.
   */
  readonly lookup: LookupFunction = createLookup((hostname) => this.resolve(hostname));

  /**
   * The `lookup` of connections to `port`: overrides apply as {@link resolve} with that port
   * says. A connection pool serves one origin, hence one port: give each pool its own.
   */
  lookupFor(port: number): LookupFunction {
    return createLookup((hostname) => this.resolve(hostname, port));
  }

  /**
   * The `--resolve` rule that applies to `hostname` (the host, `*.suffix` or `*`) and its first
   * address; undefined when no override does. Ports allowed by {@link allowOverridePort} are
   * shared by the rule.
   */
  overrideRule(hostname: string): { rule: string; address: string } | undefined {
    const host = normalizeHostname(hostname);
    const rule = this.#overrides.ruleOf(host);
    const address = this.#overrides.match(host)?.[0]?.address;
    return rule === undefined || address === undefined ? undefined : { rule, address };
  }

  /**
   * Lets the port-less overrides of `hostname` (`host:address`, `*.suffix:address`) apply to
   * `port` too, for every host under the same rule: the port of a seed URL the operator gave.
   * No effect on hosts without such an override.
   */
  allowOverridePort(hostname: string, port: number): void {
    this.#overrides.allowPort(normalizeHostname(hostname), port);
  }

  /**
   * Whether `hostname` has a port-less override that would apply to `port` once allowed
   * ({@link allowOverridePort}); false when it applies already or there is none.
   */
  overridePortPending(hostname: string, port: number): boolean {
    return this.#overrides.portPending(normalizeHostname(hostname), port);
  }

  /**
   * Wraps an undici-style connector (`buildConnector({ lookup: cache.lookup })`) so that
   * IP-literal hosts, which never reach `lookup`, are policy-checked too; a refusal reaches
   * the connector's callback as a {@link DnsError}.
   */
  guardConnector<O extends { hostname: string }, C extends (...args: never) => void>(
    connector: Connector<O, C>,
  ): Connector<O, C> {
    return guardConnector((hostname) => this.resolve(hostname), connector);
  }

  /** Counters and current size. */
  stats(): DnsCacheStats {
    return {
      hits: this.#hits,
      misses: this.#misses,
      negativeHits: this.#negativeHits,
      coalesced: this.#coalesced,
      refused: this.#refused,
      size: this.#cache.size,
    };
  }

  /** Drops every cached answer and failure; queries in flight still answer their callers. */
  clear(): void {
    this.#generation++;
    this.#cache.clear();
    this.#inflight.clear();
  }

  #candidate(parsed: ParsedAddress): Candidate {
    const verdict = this.#policy.check(parsed);
    return {
      address: formatAddress(parsed),
      family: parsed.kind() === 'ipv4' ? 4 : 6,
      addressClass: verdict.addressClass,
      allowed: verdict.allowed,
    };
  }

  #admit(host: string, candidates: readonly Candidate[], expiresAt: number): ResolvedAddress[] {
    const allowed: ResolvedAddress[] = [];
    for (const c of candidates) {
      if (c.allowed) allowed.push({ address: c.address, family: c.family, expiresAt });
    }
    const refused = candidates[0];
    if (allowed.length === 0 && refused) {
      this.#refused++;
      throw new DnsError(
        DnsErrorCode.REFUSED_ADDRESS,
        `${host} resolves only to refused addresses (${refused.address} is ${refused.addressClass})`,
        { hostname: host, address: refused.address, addressClass: refused.addressClass },
      );
    }
    return allowed;
  }

  async #entry(host: string): Promise<Entry> {
    const cached = this.#cache.get(host);
    if (cached) {
      if (cached.kind === 'answer') this.#hits++;
      else this.#negativeHits++;
      return cached;
    }
    const pending = this.#inflight.get(host);
    if (pending) {
      this.#coalesced++;
      return pending;
    }
    this.#misses++;
    const generation = this.#generation;
    // The entry is cached inside the promise every caller awaits, so it is there by the time
    // they wake; a rejection reaches the first caller and every coalesced one alike.
    const query: Promise<Entry> = this.#query(host)
      .then((entry) => {
        const ttl = entry.expiresAt - Date.now();
        if (generation === this.#generation && ttl > 0) this.#cache.set(host, entry, { ttl });
        return entry;
      })
      .finally(() => {
        if (this.#inflight.get(host) === query) this.#inflight.delete(host);
      });
    this.#inflight.set(host, query);
    return query;
  }

  async #query(host: string): Promise<Entry> {
    const result = await this.#querier.query(host);
    const now = Date.now();
    if (!result.ok) {
      return {
        kind: 'failure',
        expiresAt: now + this.#options.negativeTtlMs,
        code: result.code,
        dnsCode: result.dnsCode,
        message: `cannot resolve ${host}: ${result.dnsCode}`,
      };
    }
    const ttlMs = Math.min(...result.records.map((r) => r.ttl * 1000));
    const { minTtlMs, maxTtlMs } = this.#options;
    return {
      kind: 'answer',
      expiresAt: now + Math.min(maxTtlMs, Math.max(minTtlMs, ttlMs)),
      // c-ares returns canonical text already; parsing again yields the policy verdict.
      candidates: result.records.map((r) => this.#candidate(parseAddress(r.address)!)),
    };
  }
}
