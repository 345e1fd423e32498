/** Stable error codes thrown by `@shardline/dns`; callers branch on these, never on messages. */
export const DnsErrorCode = {
  /** NXDOMAIN, or the name exists but has no A/AAAA record (NODATA). */
  NOT_FOUND: 'SHARDLINE_ERR_DNS_NOT_FOUND',
  /** No answer from the DNS servers within `timeoutMs × tries`. */
  TIMEOUT: 'SHARDLINE_ERR_DNS_TIMEOUT',
  /** The servers answered with SERVFAIL / REFUSED / a malformed reply, or were unreachable. */
  SERVER_FAILURE: 'SHARDLINE_ERR_DNS_SERVER_FAILURE',
  /** Every address of the host is refused by the address policy (private, loopback, metadata…). */
  REFUSED_ADDRESS: 'SHARDLINE_ERR_DNS_REFUSED_ADDRESS',
  /** The hostname is empty, too long or not a valid DNS name. */
  INVALID_HOSTNAME: 'SHARDLINE_ERR_DNS_INVALID_HOSTNAME',
  /** `classifyAddress` / `isAddressAllowed` got something that is not an IP address. */
  INVALID_ADDRESS: 'SHARDLINE_ERR_DNS_INVALID_ADDRESS',
  /** An override spec (`host[:port]:address`) cannot be parsed. */
  INVALID_OVERRIDE: 'SHARDLINE_ERR_DNS_INVALID_OVERRIDE',
  /** A `DnsCacheOptions` value has the wrong type or is out of range. */
  INVALID_OPTION: 'SHARDLINE_ERR_DNS_INVALID_OPTION',
} as const;

export type DnsErrorCode = (typeof DnsErrorCode)[keyof typeof DnsErrorCode];

/** Extra facts attached to a {@link DnsError}. */
export interface DnsErrorDetails {
  /** The hostname being resolved, when there is one. */
  hostname?: string;
  /** For `REFUSED_ADDRESS`: the first refused address and its class. */
  address?: string;
  addressClass?: string;
  /** The node:dns / c-ares code behind the failure (`ENOTFOUND`, `ETIMEOUT`, …). */
  dnsCode?: string;
  cause?: unknown;
}

/** The one error class of this package; branch on `code`. */
export class DnsError extends Error {
  override readonly name = 'DnsError';
  readonly code: DnsErrorCode;
  readonly hostname: string | undefined;
  readonly address: string | undefined;
  readonly addressClass: string | undefined;
  readonly dnsCode: string | undefined;

  constructor(code: DnsErrorCode, message: string, details: DnsErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.hostname = details.hostname;
    this.address = details.address;
    this.addressClass = details.addressClass;
    this.dnsCode = details.dnsCode;
  }
}

/** Error for a bad constructor option; names the option, the value and its type. */
export function invalidOption(option: string, value: unknown, expected: string): DnsError {
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return new DnsError(
    DnsErrorCode.INVALID_OPTION,
    `DnsCacheOptions.${option} must be ${expected}; got ${shown} (${describeType(value)})`,
  );
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
