import { describe, expect, it } from 'vitest';
import { DnsCache, type DnsCacheOptions, DnsErrorCode } from '../src/index.js';

describe('DnsCacheOptions validation', () => {
  it.each<[DnsCacheOptions, string]>([
    [{ minTtlMs: -1 }, 'minTtlMs'],
    [{ maxTtlMs: Number.NaN }, 'maxTtlMs'],
    [{ minTtlMs: 10, maxTtlMs: 5 }, 'minTtlMs'],
    [{ negativeTtlMs: '5' as unknown as number }, 'negativeTtlMs'],
    [{ maxEntries: 0 }, 'maxEntries'],
    [{ timeoutMs: 1.5 }, 'timeoutMs'],
    [{ tries: 0 }, 'tries'],
    [{ ipv6: 'yes' as unknown as boolean }, 'ipv6'],
    [{ allowPrivateAddresses: 1 as unknown as boolean }, 'allowPrivateAddresses'],
    [{ overrides: 'a.test:127.0.0.1' as unknown as string[] }, 'overrides'],
    [{ denyCidrs: ['10.0.0.0/99'] }, 'denyCidrs'],
    [{ allowCidrs: ['example.com'] }, 'allowCidrs'],
    [{ servers: ['not a server'] }, 'servers'],
  ])('%j names %s', (options, name) => {
    expect(() => new DnsCache(options)).toThrow(
      expect.objectContaining({
        code: DnsErrorCode.INVALID_OPTION,
        message: expect.stringContaining(name),
      }),
    );
  });

  it('names the bad value and its type', () => {
    expect(() => new DnsCache({ maxEntries: '10' as unknown as number })).toThrow(
      /maxEntries must be an integer >= 1; got "10" \(string\)/,
    );
  });

  it('a bad override fails construction with INVALID_OVERRIDE', () => {
    expect(() => new DnsCache({ overrides: ['a.test:nope'] })).toThrow(
      expect.objectContaining({ code: DnsErrorCode.INVALID_OVERRIDE }),
    );
  });
});
