import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DnsCache, type DnsCacheOptions, DnsErrorCode } from '../src/index.js';
import { DnsQuerier } from '../src/query.js';
import { startDnsServer, type TestDnsServer } from './dns-server.js';

const PUBLIC_V4 = '93.184.216.34';
const PUBLIC_V6 = '2606:2800:220:1:248:1893:25c8:1946';

let dns: TestDnsServer;

beforeAll(async () => {
  dns = await startDnsServer({
    'ttl1.test': { a: [PUBLIC_V4], ttl: 1 },
    'clampmin.test': { a: [PUBLIC_V4], ttl: 1 },
    'clampmax.test': { a: [PUBLIC_V4], ttl: 300 },
    'servfail.test': { rcode: 'SERVFAIL' },
    'v6only.test': { aaaa: [PUBLIC_V6] },
    'coalesce.test': { a: [PUBLIC_V4], aaaa: [PUBLIC_V6] },
    'lru-a.test': { a: ['93.184.216.1'] },
    'lru-b.test': { a: ['93.184.216.2'] },
    'lru-c.test': { a: ['93.184.216.3'] },
    'silent.test': { silent: true },
    'private.test': { a: ['10.1.2.3'] },
    'metadata.test': { a: ['169.254.169.254'] },
    'mapped.test': { aaaa: ['::ffff:127.0.0.1'] },
    'mixed.test': { a: ['10.0.0.5', PUBLIC_V4] },
    'site1.test': { a: [PUBLIC_V4] },
    'dual.test': { a: [PUBLIC_V4], aaaa: [PUBLIC_V6] },
    'clear.test': { a: [PUBLIC_V4] },
    'crash.test': { a: [PUBLIC_V4] },
  });
});

afterAll(async () => {
  await dns.close();
});

/** A cache pointed at the test server; IPv4 only unless a test needs AAAA. */
function cacheWith(options: DnsCacheOptions = {}): DnsCache {
  return new DnsCache({
    servers: [dns.address],
    ipv6: false,
    timeoutMs: 500,
    tries: 1,
    ...options,
  });
}

function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (error: { code?: string }) => error.code,
  );
}

describe('DnsCache TTL', () => {
  it('asks again after a 1 s TTL expires, not before; minTtlMs and maxTtlMs clamp it', async () => {
    const plain = cacheWith({ minTtlMs: 0 });
    const clampedUp = cacheWith({ minTtlMs: 30_000 });
    const clampedDown = cacheWith({ maxTtlMs: 500, minTtlMs: 0 });

    const before = Date.now();
    const [first] = await plain.resolve('ttl1.test');
    expect(first?.address).toBe(PUBLIC_V4);
    expect(first?.expiresAt).toBeGreaterThan(before);
    expect(first?.expiresAt).toBeLessThanOrEqual(Date.now() + 1_000);
    await clampedUp.resolve('clampmin.test');
    await clampedDown.resolve('clampmax.test');

    await plain.resolve('ttl1.test');
    await clampedUp.resolve('clampmin.test');
    await clampedDown.resolve('clampmax.test');
    expect(dns.count('ttl1.test')).toBe(1);
    expect(dns.count('clampmin.test')).toBe(1);
    expect(dns.count('clampmax.test')).toBe(1);
    expect(plain.stats()).toMatchObject({ hits: 1, misses: 1 });

    await sleep(1_600);
    await plain.resolve('ttl1.test');
    await clampedUp.resolve('clampmin.test');
    await clampedDown.resolve('clampmax.test');
    expect(dns.count('ttl1.test')).toBe(2); // expired after 1 s
    expect(dns.count('clampmin.test')).toBe(1); // TTL 1 s raised to 30 s
    expect(dns.count('clampmax.test')).toBe(2); // TTL 300 s cut to 0.5 s
  });
});

describe('DnsCache negative caching', () => {
  it('caches NXDOMAIN for negativeTtlMs, then asks again', async () => {
    const cache = cacheWith({ negativeTtlMs: 500 });
    expect(await codeOf(cache.resolve('nxdomain.test'))).toBe(DnsErrorCode.NOT_FOUND);
    expect(await codeOf(cache.resolve('nxdomain.test'))).toBe(DnsErrorCode.NOT_FOUND);
    expect(dns.count('nxdomain.test')).toBe(1);
    expect(cache.stats()).toMatchObject({ misses: 1, negativeHits: 1 });

    await sleep(800);
    expect(await codeOf(cache.resolve('nxdomain.test'))).toBe(DnsErrorCode.NOT_FOUND);
    expect(dns.count('nxdomain.test')).toBe(2);
  });

  it('caches SERVFAIL as SERVER_FAILURE', async () => {
    const cache = cacheWith();
    const error = await cache.resolve('servfail.test').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: DnsErrorCode.SERVER_FAILURE, dnsCode: 'ESERVFAIL' });
    const asked = dns.count('servfail.test');
    expect(asked).toBeGreaterThanOrEqual(1);
    expect(await codeOf(cache.resolve('servfail.test'))).toBe(DnsErrorCode.SERVER_FAILURE);
    expect(dns.count('servfail.test')).toBe(asked);
  });

  it('a name with no A record (NODATA) is NOT_FOUND when AAAA is off', async () => {
    const cache = cacheWith();
    const error = await cache.resolve('v6only.test').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: DnsErrorCode.NOT_FOUND, dnsCode: 'ENODATA' });
    expect(dns.count('v6only.test', 'AAAA')).toBe(0);
  });
});

describe('DnsCache coalescing', () => {
  it('twenty concurrent resolutions of one name send one A and one AAAA query', async () => {
    const cache = cacheWith({ ipv6: true });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => cache.resolve('coalesce.test')),
    );
    expect(dns.count('coalesce.test', 'A')).toBe(1);
    expect(dns.count('coalesce.test', 'AAAA')).toBe(1);
    for (const result of results) expect(result).toEqual(results[0]);
    expect(cache.stats()).toMatchObject({ misses: 1, coalesced: 19 });
  });
});

describe('DnsCache LRU bound', () => {
  it('evicts the least recently used name and asks for it again', async () => {
    const cache = cacheWith({ maxEntries: 2 });
    await cache.resolve('lru-a.test');
    await cache.resolve('lru-b.test');
    await cache.resolve('lru-a.test'); // a becomes most recent
    await cache.resolve('lru-c.test'); // evicts b
    expect(cache.stats().size).toBe(2);

    await cache.resolve('lru-a.test');
    expect(dns.count('lru-a.test')).toBe(1);
    await cache.resolve('lru-b.test');
    expect(dns.count('lru-b.test')).toBe(2);
    expect(cache.stats().size).toBe(2);
  });
});

describe('DnsCache query failures', () => {
  it('a query that throws rejects every waiting caller, caches nothing, and the next call asks again', async () => {
    // The querier turns every resolver error into a result, so a throw is a bug in between;
    // the real server cannot produce one, hence the injected fault.
    const crash = new Error('querier bug');
    const spy = vi.spyOn(DnsQuerier.prototype, 'query').mockRejectedValueOnce(crash);
    try {
      const cache = cacheWith();
      const calls = [cache.resolve('crash.test'), cache.resolve('crash.test')];
      for (const call of calls) await expect(call).rejects.toBe(crash);
      expect(cache.stats()).toMatchObject({ misses: 1, coalesced: 1, size: 0 });
      expect((await cache.resolve('crash.test'))[0]?.address).toBe(PUBLIC_V4);
      expect(dns.count('crash.test')).toBe(1);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('DnsCache timeouts', () => {
  it('a server that never answers gives TIMEOUT within timeoutMs × tries', async () => {
    const cache = cacheWith({ timeoutMs: 200, tries: 2 });
    const started = Date.now();
    const error = await cache.resolve('silent.test').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: DnsErrorCode.TIMEOUT, hostname: 'silent.test' });
    expect(Date.now() - started).toBeLessThan(5_000); // generous bound: no hang
    const asked = dns.count('silent.test');
    expect(asked).toBeGreaterThanOrEqual(1);
    // The failure is cached so a dead name does not stall every URL of its host.
    expect(await codeOf(cache.resolve('silent.test'))).toBe(DnsErrorCode.TIMEOUT);
    expect(dns.count('silent.test')).toBe(asked);
  });
});

describe('DnsCache address policy', () => {
  it('refuses a private answer by default and allows it with allowPrivateAddresses', async () => {
    const error = await cacheWith()
      .resolve('private.test')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: DnsErrorCode.REFUSED_ADDRESS,
      address: '10.1.2.3',
      addressClass: 'private',
    });
    const open = await cacheWith({ allowPrivateAddresses: true }).resolve('private.test');
    expect(open.map((a) => a.address)).toEqual(['10.1.2.3']);
  });

  it('refuses metadata and IPv4-mapped loopback answers', async () => {
    const cache = cacheWith({ ipv6: true });
    expect(await cache.resolve('metadata.test').catch((e: unknown) => e)).toMatchObject({
      code: DnsErrorCode.REFUSED_ADDRESS,
      addressClass: 'metadata',
    });
    expect(await cache.resolve('mapped.test').catch((e: unknown) => e)).toMatchObject({
      code: DnsErrorCode.REFUSED_ADDRESS,
      addressClass: 'loopback',
    });
    expect(cache.stats().refused).toBe(2);
  });

  it('drops refused addresses from a mixed answer', async () => {
    const addresses = await cacheWith().resolve('mixed.test');
    expect(addresses.map((a) => a.address)).toEqual([PUBLIC_V4]);
  });

  it('allowCidrs opens one private range and denyCidrs closes a public one', async () => {
    const allowed = await cacheWith({ allowCidrs: ['10.1.0.0/16'] }).resolve('private.test');
    expect(allowed.map((a) => a.address)).toEqual(['10.1.2.3']);
    expect(await codeOf(cacheWith({ denyCidrs: [`${PUBLIC_V4}/32`] }).resolve('dual.test'))).toBe(
      DnsErrorCode.REFUSED_ADDRESS,
    );
  });

  it('IP literals skip DNS but are still policy-checked', async () => {
    const asked = dns.queries.length;
    const cache = cacheWith({ ipv6: true });
    expect(await codeOf(cache.resolve('10.0.0.1'))).toBe(DnsErrorCode.REFUSED_ADDRESS);
    expect(await codeOf(cache.resolve('[::ffff:127.0.0.1]'))).toBe(DnsErrorCode.REFUSED_ADDRESS);
    expect(await codeOf(cache.resolve('2130706433'))).toBe(DnsErrorCode.REFUSED_ADDRESS);
    expect(await cache.resolve('8.8.8.8')).toEqual([
      { address: '8.8.8.8', family: 4, expiresAt: Number.POSITIVE_INFINITY },
    ]);
    expect(await cache.resolve('[2001:4860::8888]')).toEqual([
      { address: '2001:4860::8888', family: 6, expiresAt: Number.POSITIVE_INFINITY },
    ]);
    const open = cacheWith({ allowPrivateAddresses: true });
    expect((await open.resolve('10.0.0.1'))[0]?.address).toBe('10.0.0.1');
    expect(dns.queries.length).toBe(asked);
  });

  it('localhost and *.localhost are loopback without asking DNS', async () => {
    const asked = dns.queries.length;
    expect(await codeOf(cacheWith().resolve('localhost'))).toBe(DnsErrorCode.REFUSED_ADDRESS);
    expect(await codeOf(cacheWith().resolve('app.localhost'))).toBe(DnsErrorCode.REFUSED_ADDRESS);
    const open = cacheWith({ allowPrivateAddresses: true, ipv6: true });
    expect((await open.resolve('app.localhost')).map((a) => a.address)).toEqual([
      '127.0.0.1',
      '::1',
    ]);
    expect(dns.queries.length).toBe(asked);
  });
});

describe('DnsCache overrides', () => {
  it('answers from overrides without asking the server, trusted, with wildcard precedence', async () => {
    const cache = cacheWith({
      overrides: [
        'SITE1.test:127.0.0.1',
        '*.test:127.0.0.2',
        '*.a.test:8080:127.0.0.3',
        'v6.example:[::1]',
      ],
    });
    const first = async (host: string) => (await cache.resolve(host))[0]?.address;
    expect(await first('site1.test')).toBe('127.0.0.1'); // the zone says public; override wins
    expect(await first('Site1.Test.')).toBe('127.0.0.1');
    expect(await first('other.test')).toBe('127.0.0.2');
    expect(await first('deep.other.test')).toBe('127.0.0.2');
    expect(await first('x.a.test')).toBe('127.0.0.3');
    expect(await cache.resolve('v6.example')).toEqual([
      { address: '::1', family: 6, expiresAt: Number.POSITIVE_INFINITY },
    ]);
    for (const name of ['site1.test', 'other.test', 'deep.other.test', 'x.a.test', 'v6.example']) {
      expect(dns.count(name), name).toBe(0);
    }
    // `*.test` does not cover `test` itself: that goes to DNS.
    expect(await codeOf(cache.resolve('test'))).toBe(DnsErrorCode.NOT_FOUND);
    expect(dns.count('test')).toBe(1);
  });
});

describe('DnsCache families', () => {
  it('returns A before AAAA, and asks no AAAA with ipv6: false', async () => {
    const both = await cacheWith({ ipv6: true }).resolve('dual.test');
    expect(both.map((a) => [a.address, a.family])).toEqual([
      [PUBLIC_V4, 4],
      [PUBLIC_V6, 6],
    ]);
    const aaaaAsked = dns.count('dual.test', 'AAAA');
    const v4 = await cacheWith({ ipv6: false }).resolve('dual.test');
    expect(v4.map((a) => a.address)).toEqual([PUBLIC_V4]);
    expect(dns.count('dual.test', 'AAAA')).toBe(aaaaAsked);
  });

  it('an AAAA-only name resolves when AAAA is on', async () => {
    const addresses = await cacheWith({ ipv6: true }).resolve('v6only.test');
    expect(addresses.map((a) => a.address)).toEqual([PUBLIC_V6]);
  });
});

describe('DnsCache.clear and hostnames', () => {
  it('clear() forgets answers so the next resolution asks again', async () => {
    const cache = cacheWith();
    await cache.resolve('clear.test');
    await cache.resolve('clear.test');
    expect(dns.count('clear.test')).toBe(1);
    cache.clear();
    expect(cache.stats().size).toBe(0);
    await cache.resolve('clear.test');
    expect(dns.count('clear.test')).toBe(2);
  });

  it('rejects invalid hostnames without asking DNS', async () => {
    const asked = dns.queries.length;
    const cache = cacheWith();
    for (const bad of ['', 'a..b', 'no spaces.test', 'fe80::zz']) {
      expect(await codeOf(cache.resolve(bad)), bad).toBe(DnsErrorCode.INVALID_HOSTNAME);
    }
    expect(dns.queries.length).toBe(asked);
  });
});
