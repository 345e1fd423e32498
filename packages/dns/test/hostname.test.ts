import { describe, expect, it } from 'vitest';
import { isLocalhost, normalizeHostname } from '../src/hostname.js';
import { DnsErrorCode } from '../src/index.js';

describe('normalizeHostname', () => {
  it.each([
    ['Example.COM', 'example.com'],
    ['example.com.', 'example.com'],
    ['[::1]', '::1'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['_dmarc.example.com', '_dmarc.example.com'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeHostname(input)).toBe(expected);
  });

  it.each([
    '',
    'a..b',
    '-a.com',
    'a-.com',
    `${'a'.repeat(64)}.com`,
    'sp ace.com',
    `${'a.'.repeat(127)}com`,
  ])('rejects %j with INVALID_HOSTNAME', (input) => {
    expect(() => normalizeHostname(input)).toThrow(
      expect.objectContaining({ code: DnsErrorCode.INVALID_HOSTNAME }),
    );
  });
});

describe('isLocalhost', () => {
  it('is true for localhost and *.localhost only', () => {
    expect(isLocalhost('localhost')).toBe(true);
    expect(isLocalhost('app.localhost')).toBe(true);
    expect(isLocalhost('localhost.example')).toBe(false);
    expect(isLocalhost('notlocalhost')).toBe(false);
  });
});
