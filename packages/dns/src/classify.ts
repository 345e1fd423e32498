import ipaddr from 'ipaddr.js';
import { embeddedIPv4, type ParsedAddress, requireAddress } from './address.js';

/** The kind of network an address belongs to; only `public` is reachable by default. */
export type AddressClass =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link-local'
  | 'unique-local'
  | 'carrier-grade-nat'
  | 'metadata'
  | 'multicast'
  | 'reserved'
  | 'unspecified';

type Table = ReadonlyArray<readonly [AddressClass, readonly [ParsedAddress, number]]>;

function table(rows: ReadonlyArray<readonly [AddressClass, string]>): Table {
  return rows.map(([cls, cidr]) => [cls, ipaddr.parseCIDR(cidr)] as const);
}

// First match wins, so the single metadata addresses sit before the ranges that contain them.
const V4: Table = table([
  // Cloud instance-metadata endpoints: AWS/GCP/Azure/OCI IMDS, AWS ECS task metadata,
  // Alibaba Cloud, and Azure's WireServer (a public-looking address only the host answers).
  ['metadata', '169.254.169.254/32'],
  ['metadata', '169.254.170.2/32'],
  ['metadata', '100.100.100.200/32'],
  ['metadata', '168.63.129.16/32'],
  ['unspecified', '0.0.0.0/8'], // "this network"; connecting to 0.0.0.0 reaches the local host
  ['loopback', '127.0.0.0/8'],
  ['private', '10.0.0.0/8'],
  ['private', '172.16.0.0/12'],
  ['private', '192.168.0.0/16'],
  ['link-local', '169.254.0.0/16'],
  ['carrier-grade-nat', '100.64.0.0/10'],
  ['multicast', '224.0.0.0/4'],
  ['reserved', '192.0.0.0/24'], // IETF protocol assignments
  ['reserved', '192.0.2.0/24'], // TEST-NET-1 (documentation)
  ['reserved', '198.51.100.0/24'], // TEST-NET-2
  ['reserved', '203.0.113.0/24'], // TEST-NET-3
  ['reserved', '198.18.0.0/15'], // benchmarking
  ['reserved', '192.88.99.0/24'], // deprecated 6to4 relay anycast
  ['reserved', '240.0.0.0/4'], // class E, includes limited broadcast 255.255.255.255
]);

const V6: Table = table([
  ['unspecified', '::/128'],
  ['loopback', '::1/128'],
  ['metadata', 'fd00:ec2::254/128'], // AWS IMDS over IPv6
  ['metadata', 'fd20:ce::254/128'], // GCP metadata server over IPv6
  ['reserved', '::/96'], // deprecated IPv4-compatible addresses
  ['reserved', '100::/64'], // discard-only
  ['reserved', '2001::/32'], // Teredo: the client address is obfuscated, never a crawl target
  ['reserved', '2001:db8::/32'], // documentation
  ['reserved', '3fff::/20'], // documentation (RFC 9637)
  ['reserved', '2001::/23'], // IETF protocol assignments (benchmarking, ORCHID, …)
  ['reserved', '5f00::/16'], // SRv6 SIDs
  ['link-local', 'fe80::/10'],
  ['private', 'fec0::/10'], // deprecated site-local
  ['unique-local', 'fc00::/7'],
  ['multicast', 'ff00::/8'],
]);

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

function lookup(address: ParsedAddress, rows: Table): AddressClass | undefined {
  for (const [cls, range] of rows) {
    if (address.kind() === range[0].kind() && address.match(range[0], range[1])) return cls;
  }
  return undefined;
}

/** Classifies an already parsed address; see {@link classifyAddress}. */
export function classifyParsed(address: ParsedAddress): AddressClass {
  if (address.kind() === 'ipv4') return lookup(address, V4) ?? 'public';
  const v6 = address as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) {
    const inner = lookup(embedded, V4) ?? 'public';
    // Local-use NAT64 (RFC 8215) translates inside one network only.
    if (inner === 'public' && v6.parts[2] === 1 && v6.parts[0] === 0x64) return 'private';
    return inner;
  }
  const known = lookup(v6, V6);
  if (known) return known;
  // Everything outside 2000::/3 is unallocated for global unicast.
  return v6.match(GLOBAL_UNICAST_V6[0], GLOBAL_UNICAST_V6[1]) ? 'public' : 'reserved';
}

/**
 * Classifies an IP address by the network it belongs to. IPv6 forms that carry an IPv4
 * address (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) take the
 * class of the embedded IPv4 address, since that is where the packets end up.
 *
 * @throws DnsError `SHARDLINE_ERR_DNS_INVALID_ADDRESS` when `address` is not an IP address.
 */
export function classifyAddress(address: string): AddressClass {
  return classifyParsed(requireAddress(address));
}
