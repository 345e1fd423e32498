/**
 * Stage 1, vet address: the host must resolve to an address the DNS policy allows before
 * anything is sent to it — not even its robots.txt. A refused address (private, loopback,
 * link-local, metadata…, unless allowed; `resolve` overrides are trusted) is dead-lettered;
 * a name that does not resolve is retried. Neither counts as sent: the host keeps its slot.
 */
import { DnsError, DnsErrorCode } from '@shardline/dns';
import { FetchErrorCode } from '../errors.js';
import type { LeaseContext } from './lease-context.js';
import type { LeaseStage, Settlement } from './stage.js';

/** What the stage needs from the DNS layer (a `DnsCache` fits). */
export interface AddressPolicy {
  /** Resolves `host` under the address policy; rejects with a `DnsError`. */
  resolve(host: string): Promise<unknown>;
}

/** DNS codes that say "never this host" rather than "not now". */
const REFUSED = new Set<string>([DnsErrorCode.REFUSED_ADDRESS, DnsErrorCode.INVALID_HOSTNAME]);

/** Ends the lease when its host resolves to no address the policy allows. */
export class VetAddressStage implements LeaseStage {
  readonly name = 'vet-address';
  readonly #dns: AddressPolicy;

  constructor(dns: AddressPolicy) {
    this.#dns = dns;
  }

  async run(ctx: LeaseContext): Promise<Settlement | undefined> {
    try {
      await this.#dns.resolve(ctx.lease.host);
      return undefined;
    } catch (error) {
      if (!(error instanceof DnsError)) throw error;
      const refused = REFUSED.has(error.code);
      return {
        kind: 'fail',
        retryable: !refused,
        code: refused ? FetchErrorCode.DNS_REFUSED : FetchErrorCode.DNS,
        message: error.message,
        sent: false,
      };
    }
  }
}
