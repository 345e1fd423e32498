/**
 * Stage 1, vet address: the host must resolve to an address the DNS policy allows before
 * anything is sent to it — not even its robots.txt. A refused address (private, loopback,
 * link-local, metadata…, unless allowed; `resolve` overrides are trusted for the ports they
 * apply to) is dead-lettered; a name that does not resolve is retried. Neither counts as sent:
 * the host keeps its slot.
 *
 * A port-less override (`--resolve host:address`, `*.suffix:address`) applies to the ports of
 * the seeds of the hosts under it only: a seed (depth 0, not a sitemap a robots.txt listed)
 * allows its port for its rule before it is vetted; a link or redirect to another port meets
 * the address policy, and when that fails the error says which port the override lacks. Seed
 * ports are shared through Redis (override-ports.ts), so the pod that takes a host over after
 * a handoff lets the override reach the ports the first pod's seeds allowed.
 */
import { DnsError, DnsErrorCode } from '@shardline/dns';
import { FetchErrorCode } from '../errors.js';
import { portOf } from '../fetcher.js';
import type { LeaseContext } from './lease-context.js';
import type { LeaseStage, Settlement } from './stage.js';

/** What the stage needs from the DNS layer (a `DnsCache` fits). */
export interface AddressPolicy {
  /** Resolves `host` for `port` under the address policy; rejects with a `DnsError`. */
  resolve(host: string, port: number): Promise<unknown>;
  /** Lets the port-less overrides of the host's rule apply to a seed's port (`DnsCache.allowOverridePort`). */
  allowOverridePort(host: string, port: number): void;
  /** Whether a port-less override of the host waits for `port` to be allowed. */
  overridePortPending(host: string, port: number): boolean;
  /**
   * The override rule of the host and its address (`DnsCache.overrideRule`): the rule is the
   * key its seed ports share.
   */
  overrideRule(host: string): { rule: string; address: string } | undefined;
}

/** Seed ports shared by the pods, by override rule (`SharedOverridePorts`). */
export interface SeedPorts {
  remember(rule: string, port: number): Promise<void>;
  seeded(rule: string, port: number): Promise<boolean>;
}

/** DNS codes that say "never this host" rather than "not now". */
const REFUSED = new Set<string>([DnsErrorCode.REFUSED_ADDRESS, DnsErrorCode.INVALID_HOSTNAME]);

/** Ends the lease when its host resolves to no address the policy allows. */
export class VetAddressStage implements LeaseStage {
  readonly name = 'vet-address';
  readonly #dns: AddressPolicy;
  readonly #seedPorts: SeedPorts | undefined;

  constructor(dns: AddressPolicy, seedPorts?: SeedPorts) {
    this.#dns = dns;
    this.#seedPorts = seedPorts;
  }

  async run(ctx: LeaseContext): Promise<Settlement | undefined> {
    const { host } = ctx.lease;
    const port = portOf(ctx.lease.url);
    // One table lookup per lease; the rule is read only for a port its override lacks.
    if (this.#dns.overridePortPending(host, port)) {
      const rule = this.#dns.overrideRule(host)?.rule ?? host;
      if (ctx.lease.depth === 0 && ctx.sitemapLevel === undefined) {
        await this.#seedPorts?.remember(rule, port);
        this.#dns.allowOverridePort(host, port);
      } else if (await this.#seeded(rule, host, port)) {
        this.#dns.allowOverridePort(host, port);
      }
    }
    try {
      await this.#dns.resolve(host, port);
      return undefined;
    } catch (error) {
      if (!(error instanceof DnsError)) throw error;
      const refused = REFUSED.has(error.code);
      return {
        kind: 'fail',
        retryable: !refused,
        code: refused ? FetchErrorCode.DNS_REFUSED : FetchErrorCode.DNS,
        message: `${error.message}${this.#missingPort(host, port)}`,
        sent: false,
      };
    }
  }

  /** What the operator's override lacks when it would answer on a seed's port; else ''. */
  #missingPort(host: string, port: number): string {
    const override = this.#dns.overridePortPending(host, port)
      ? this.#dns.overrideRule(host)
      : undefined;
    if (!override) return '';
    const { rule } = override;
    const address = override.address.includes(':') ? `[${override.address}]` : override.address;
    return `; --resolve ${rule}:${address} reaches only its seeds' ports, not ${port}: name the port (--resolve '${rule}:${port}:${address}') or seed a URL on it`;
  }

  /** Whether a pod recorded a seed on `port` under `rule` (or, as before rules, of `host`). */
  async #seeded(rule: string, host: string, port: number): Promise<boolean> {
    if (!this.#seedPorts) return false;
    if (await this.#seedPorts.seeded(rule, port)) return true;
    return rule !== host && this.#seedPorts.seeded(host, port);
  }
}
