import { describe, expect, it } from 'vitest';
import { DnsErrorCode, isAddressAllowed } from '../src/index.js';

describe('isAddressAllowed', () => {
  it('allows public and refuses every non-public class by default', () => {
    expect(isAddressAllowed('8.8.8.8', {})).toBe(true);
    expect(isAddressAllowed('2001:4860::8888', {})).toBe(true);
    for (const address of [
      '10.0.0.1',
      '127.0.0.1',
      '169.254.169.254',
      '100.64.0.1',
      'fd00:ec2::254',
      'fe80::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '192.0.2.1',
    ]) {
      expect(isAddressAllowed(address, {}), address).toBe(false);
    }
  });

  it('allowPrivateAddresses opens every non-public class', () => {
    for (const address of ['10.0.0.1', '127.0.0.1', '169.254.169.254', 'fc00::1', '::1']) {
      expect(isAddressAllowed(address, { allowPrivateAddresses: true }), address).toBe(true);
    }
  });

  it('allowCidrs opens a range without opening the rest', () => {
    const policy = { allowCidrs: ['10.1.0.0/16'] };
    expect(isAddressAllowed('10.1.2.3', policy)).toBe(true);
    expect(isAddressAllowed('10.2.0.1', policy)).toBe(false);
  });

  it('denyCidrs refuses public addresses, also through their IPv4-mapped form', () => {
    const policy = { denyCidrs: ['8.8.8.0/24'] };
    expect(isAddressAllowed('8.8.8.8', policy)).toBe(false);
    expect(isAddressAllowed('::ffff:8.8.8.8', policy)).toBe(false);
    expect(isAddressAllowed('64:ff9b::8.8.8.8', policy)).toBe(false);
    expect(isAddressAllowed('8.8.4.4', policy)).toBe(true);
  });

  it('the more specific CIDR wins; deny wins a tie', () => {
    expect(
      isAddressAllowed('10.1.2.3', {
        allowPrivateAddresses: true,
        denyCidrs: ['10.0.0.0/8'],
        allowCidrs: ['10.1.2.0/24'],
      }),
    ).toBe(true);
    expect(
      isAddressAllowed('10.1.2.3', { allowCidrs: ['10.0.0.0/8'], denyCidrs: ['10.1.0.0/16'] }),
    ).toBe(false);
    expect(
      isAddressAllowed('8.8.8.8', { allowCidrs: ['8.8.8.8/32'], denyCidrs: ['8.8.8.8'] }),
    ).toBe(false);
  });

  it('IPv6 CIDRs match IPv6 addresses', () => {
    expect(isAddressAllowed('fd00:1::5', { allowCidrs: ['fd00:1::/32'] })).toBe(true);
    expect(isAddressAllowed('2001:4860::8888', { denyCidrs: ['2001:4860::/32'] })).toBe(false);
  });

  it('rejects a malformed CIDR with INVALID_OPTION naming the list', () => {
    expect(() => isAddressAllowed('8.8.8.8', { denyCidrs: ['10.0.0.0/33'] })).toThrow(
      expect.objectContaining({
        code: DnsErrorCode.INVALID_OPTION,
        message: expect.stringContaining('denyCidrs'),
      }),
    );
  });
});
