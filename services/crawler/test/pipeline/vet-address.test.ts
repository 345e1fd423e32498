/** The vet-address stage against a real DnsCache: overrides pass, policy refusals end the lease. */
import { DnsCache } from '@shardline/dns';
import { describe, expect, it } from 'vitest';
import { FetchErrorCode } from '../../src/errors.js';
import { VetAddressStage } from '../../src/pipeline/vet-address.js';
import { contextOf } from './lease-fixture.js';

describe('VetAddressStage', () => {
  it('passes a host the DNS policy resolves (an override here)', async () => {
    const stage = new VetAddressStage(new DnsCache({ overrides: ['*.test:127.0.0.1'] }));
    expect(await stage.run(contextOf('http://site.test/'))).toBeUndefined();
  });

  it('dead-letters a refused address without counting it as sent', async () => {
    const stage = new VetAddressStage(new DnsCache());
    expect(await stage.run(contextOf('http://127.0.0.1:8080/'))).toMatchObject({
      kind: 'fail',
      retryable: false,
      code: FetchErrorCode.DNS_REFUSED,
      sent: false,
    });
  });

  it('retries a name that does not resolve, not counted as sent', async () => {
    // A resolver on a port nothing listens on: the lookup fails quickly, no internet involved.
    const dns = new DnsCache({ servers: ['127.0.0.1:9'], timeoutMs: 200, tries: 1 });
    const stage = new VetAddressStage(dns);
    expect(await stage.run(contextOf('http://nowhere.example/'))).toMatchObject({
      kind: 'fail',
      retryable: true,
      code: FetchErrorCode.DNS,
      sent: false,
    });
  });

  it('lets errors that are not DNS answers through', async () => {
    const stage = new VetAddressStage({
      resolve: () => Promise.reject(new TypeError('bug')),
      allowOverridePort: () => undefined,
      overridePortPending: () => false,
      overrideRule: () => undefined,
    });
    await expect(stage.run(contextOf('http://site.test/'))).rejects.toThrow(TypeError);
  });
});
