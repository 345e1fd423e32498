import type ipaddr from 'ipaddr.js';
import { embeddedIPv4, type ParsedAddress, parseCidr, requireAddress } from './address.js';
import { type AddressClass, classifyParsed } from './classify.js';
import { DnsError, DnsErrorCode } from './errors.js';

/** Which resolved addresses may be connected to. */
export interface AddressPolicy {
  /** Allow every non-public class (private, loopback, link-local, metadata, …). @default false */
  allowPrivateAddresses?: boolean;
  /** CIDRs (or bare addresses) always allowed. @default [] */
  allowCidrs?: string[];
  /** CIDRs (or bare addresses) always refused. @default [] */
  denyCidrs?: string[];
}

/** The outcome of checking one address. */
export interface PolicyVerdict {
  allowed: boolean;
  addressClass: AddressClass;
}

type Cidr = readonly [ParsedAddress, number];

/**
 * An {@link AddressPolicy} with its CIDR lists parsed once.
 *
 * Decision order: the most specific matching `allowCidrs`/`denyCidrs` entry decides (an IPv4
 * /n counts as the IPv6 /(96+n) it maps to; on a tie, deny wins); with no CIDR match, public
 * addresses are allowed and the rest only with `allowPrivateAddresses`. CIDRs are matched
 * against the address and against the IPv4 address embedded in it, if any.
 */
export class CompiledPolicy {
  readonly #allowPrivate: boolean;
  readonly #allow: readonly Cidr[];
  readonly #deny: readonly Cidr[];

  constructor(policy: AddressPolicy = {}, optionPrefix = '') {
    this.#allowPrivate = policy.allowPrivateAddresses === true;
    this.#allow = compileList(policy.allowCidrs, `${optionPrefix}allowCidrs`);
    this.#deny = compileList(policy.denyCidrs, `${optionPrefix}denyCidrs`);
  }

  /** Checks a parsed address. */
  check(address: ParsedAddress): PolicyVerdict {
    const addressClass = classifyParsed(address);
    const candidates: ParsedAddress[] = [address];
    if (address.kind() === 'ipv6') {
      const inner = embeddedIPv4(address as ipaddr.IPv6);
      if (inner) candidates.push(inner);
    } else {
      candidates.push((address as ipaddr.IPv4).toIPv4MappedAddress());
    }
    const allowBits = bestMatch(this.#allow, candidates);
    const denyBits = bestMatch(this.#deny, candidates);
    if (denyBits >= 0 && denyBits >= allowBits) return { allowed: false, addressClass };
    if (allowBits >= 0) return { allowed: true, addressClass };
    return { allowed: addressClass === 'public' || this.#allowPrivate, addressClass };
  }
}

function compileList(list: string[] | undefined, option: string): Cidr[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) {
    throw new DnsError(
      DnsErrorCode.INVALID_OPTION,
      `${option} must be an array of CIDR strings; got ${String(list)} (${typeof list})`,
    );
  }
  return list.map((text) => {
    const cidr = parseCidr(text);
    if (!cidr) {
      throw new DnsError(
        DnsErrorCode.INVALID_OPTION,
        `${option} entries must be CIDRs like "10.0.0.0/8" or "fc00::/7"; got ${JSON.stringify(text)} (${typeof text})`,
      );
    }
    return cidr;
  });
}

/** The specificity (prefix length on the IPv6 scale) of the best match, or -1. */
function bestMatch(cidrs: readonly Cidr[], candidates: readonly ParsedAddress[]): number {
  let best = -1;
  for (const cidr of cidrs) {
    for (const candidate of candidates) {
      if (candidate.kind() !== cidr[0].kind() || !candidate.match(cidr[0], cidr[1])) continue;
      const bits = cidr[0].kind() === 'ipv4' ? cidr[1] + 96 : cidr[1];
      if (bits > best) best = bits;
    }
  }
  return best;
}

/**
 * Whether `address` may be connected to under `policy` (see {@link CompiledPolicy} for the
 * decision order). Parses the CIDR lists on every call; `DnsCache` compiles them once.
 *
 * @throws DnsError `SHARDLINE_ERR_DNS_INVALID_ADDRESS` for a non-address,
 *   `SHARDLINE_ERR_DNS_INVALID_OPTION` for a bad CIDR.
 */
export function isAddressAllowed(address: string, policy: AddressPolicy = {}): boolean {
  return new CompiledPolicy(policy).check(requireAddress(address)).allowed;
}
