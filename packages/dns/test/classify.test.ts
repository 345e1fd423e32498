import { describe, expect, it } from 'vitest';
import { type AddressClass, classifyAddress, DnsErrorCode } from '../src/index.js';

const CASES: ReadonlyArray<readonly [string, AddressClass]> = [
  // IPv4 public
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['93.184.216.34', 'public'],
  ['172.32.0.1', 'public'], // just above 172.16.0.0/12
  ['100.128.0.1', 'public'], // just above 100.64.0.0/10
  ['192.169.0.1', 'public'],
  ['223.255.255.255', 'public'],
  // IPv4 special
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'metadata'],
  ['169.254.170.2', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['169.254.1.1', 'link-local'],
  ['100.64.0.1', 'carrier-grade-nat'],
  ['100.127.255.254', 'carrier-grade-nat'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'reserved'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  // legacy IPv4 spellings still reach the address they encode
  ['127.1', 'loopback'],
  ['0x7f.0.0.1', 'loopback'],
  ['2130706433', 'loopback'],
  ['012.0.0.1', 'private'], // octal 012 = 10
  // IPv6 public
  ['2001:4860::8888', 'public'],
  ['2606:4700:4700::1111', 'public'],
  ['[2a00:1450:4001:82b::200e]', 'public'],
  // IPv6 special
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local'],
  ['fd00:ec2::254', 'metadata'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['100::1', 'reserved'],
  ['2001::1', 'reserved'], // Teredo
  ['::2', 'reserved'], // IPv4-compatible, deprecated
  ['4000::1', 'reserved'], // outside 2000::/3
  ['fec0::1', 'private'],
  // IPv6 carrying IPv4: the embedded address decides
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:8.8.8.8', 'public'],
  ['::ffff:0:10.0.0.1', 'private'], // IPv4-translated
  ['64:ff9b::10.0.0.1', 'private'], // NAT64
  ['64:ff9b::7f00:1', 'loopback'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['64:ff9b:1::8.8.8.8', 'private'], // local-use NAT64
  ['2002:7f00:1::1', 'loopback'], // 6to4 of 127.0.0.1
  ['2002:0808:0808::1', 'public'], // 6to4 of 8.8.8.8
];

describe('classifyAddress', () => {
  it.each(CASES)('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it('covers at least 40 cases across both families', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    expect(CASES.filter(([a]) => a.includes(':')).length).toBeGreaterThanOrEqual(15);
  });

  it.each(['example.com', '', '1.2.3.999', 'fe80::zz', '::ffff:1.2.3'])(
    'rejects the non-address %j with INVALID_ADDRESS',
    (input) => {
      expect(() => classifyAddress(input)).toThrow(
        expect.objectContaining({ code: DnsErrorCode.INVALID_ADDRESS }),
      );
    },
  );
});
