import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, buildConnector, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsCache, DnsErrorCode } from '../src/index.js';
import { startDnsServer, type TestDnsServer } from './dns-server.js';

const PUBLIC_V4 = '93.184.216.34';
const PUBLIC_V6 = '2606:2800:220:1:248:1893:25c8:1946';

let dns: TestDnsServer;
let http: Server;
let httpPort: number;
const seenHosts: string[] = [];

beforeAll(async () => {
  dns = await startDnsServer({
    'dual.test': { a: [PUBLIC_V4], aaaa: [PUBLIC_V6] },
    'v4only.test': { a: [PUBLIC_V4] },
    'private.test': { a: ['10.9.8.7'] },
    'loop.test': { a: ['127.0.0.1'] },
  });
  http = createServer((req, res) => {
    seenHosts.push(req.headers.host ?? '');
    res.end(`hello ${req.headers.host}`);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  httpPort = (http.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await dns.close();
});

type LookupResult = { error: NodeJS.ErrnoException | null; address: unknown; family?: number };

function callLookup(cache: DnsCache, host: string, options: object): Promise<LookupResult> {
  return new Promise((resolve) => {
    cache.lookup(host, options, (error, address, family) => resolve({ error, address, family }));
  });
}

describe('DnsCache.lookup', () => {
  const cache = () => new DnsCache({ servers: [dns.address], timeoutMs: 500, tries: 1 });

  it('answers one address (A first) without options.all', async () => {
    const result = await callLookup(cache(), 'dual.test', {});
    expect(result).toEqual({ error: null, address: PUBLIC_V4, family: 4 });
  });

  it('answers every address with options.all, as happy eyeballs asks', async () => {
    const result = await callLookup(cache(), 'dual.test', { all: true });
    expect(result.error).toBeNull();
    expect(result.address as LookupAddress[]).toEqual([
      { address: PUBLIC_V4, family: 4 },
      { address: PUBLIC_V6, family: 6 },
    ]);
  });

  it('honours options.family as a number or a string', async () => {
    const c = cache();
    expect(await callLookup(c, 'dual.test', { family: 6 })).toMatchObject({
      address: PUBLIC_V6,
      family: 6,
    });
    expect((await callLookup(c, 'dual.test', { family: 'IPv6', all: true })).address).toEqual([
      { address: PUBLIC_V6, family: 6 },
    ]);
    expect(await callLookup(c, 'dual.test', { family: 4 })).toMatchObject({
      address: PUBLIC_V4,
      family: 4,
    });
  });

  it('reports a missing family and refused addresses as DnsError codes', async () => {
    const c = cache();
    expect((await callLookup(c, 'v4only.test', { family: 6 })).error).toMatchObject({
      name: 'DnsError',
      code: DnsErrorCode.NOT_FOUND,
    });
    expect((await callLookup(c, 'private.test', { all: true })).error).toMatchObject({
      code: DnsErrorCode.REFUSED_ADDRESS,
      address: '10.9.8.7',
    });
    expect((await callLookup(c, 'nope.test', {})).error).toMatchObject({
      code: DnsErrorCode.NOT_FOUND,
    });
  });
});

describe('DnsCache.lookup in an undici Agent', () => {
  for (const autoSelectFamily of [false, true]) {
    it(`reaches an override-only host (autoSelectFamily: ${autoSelectFamily})`, async () => {
      const cache = new DnsCache({ servers: [dns.address], overrides: ['site1.test:127.0.0.1'] });
      const agent = new Agent({ connect: { lookup: cache.lookup, autoSelectFamily } });
      try {
        const response = await request(`http://site1.test:${httpPort}/`, { dispatcher: agent });
        expect(response.statusCode).toBe(200);
        expect(await response.body.text()).toBe(`hello site1.test:${httpPort}`);
        expect(dns.count('site1.test')).toBe(0);
      } finally {
        await agent.close();
      }
    });

    it(`refuses a host DNS maps to 127.0.0.1 (autoSelectFamily: ${autoSelectFamily})`, async () => {
      const cache = new DnsCache({ servers: [dns.address], ipv6: false });
      const agent = new Agent({ connect: { lookup: cache.lookup, autoSelectFamily } });
      const before = seenHosts.length;
      const asked = dns.count('loop.test');
      try {
        const error = await request(`http://loop.test:${httpPort}/`, { dispatcher: agent }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toMatchObject({ code: DnsErrorCode.REFUSED_ADDRESS, address: '127.0.0.1' });
        expect(dns.count('loop.test')).toBeGreaterThan(asked); // it really asked DNS
        expect(seenHosts.length).toBe(before); // and never reached the server
      } finally {
        await agent.close();
      }
    });
  }
});

describe('DnsCache.guardConnector', () => {
  function agentFor(cache: DnsCache): Agent {
    const connector = buildConnector({ lookup: cache.lookup });
    return new Agent({ connect: cache.guardConnector(connector) });
  }

  it('refuses an IP-literal URL, which never reaches lookup', async () => {
    const agent = agentFor(new DnsCache({ servers: [dns.address] }));
    const before = seenHosts.length;
    try {
      for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]']) {
        const error = await request(`http://${host}:${httpPort}/`, { dispatcher: agent }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, host).toMatchObject({ code: DnsErrorCode.REFUSED_ADDRESS });
      }
      expect(seenHosts.length).toBe(before);
    } finally {
      await agent.close();
    }
  });

  it('lets allowed IP literals and hostnames through', async () => {
    const cache = new DnsCache({
      servers: [dns.address],
      allowCidrs: ['127.0.0.1/32'],
      overrides: ['site2.test:127.0.0.1'],
    });
    const agent = agentFor(cache);
    try {
      for (const host of ['127.0.0.1', 'site2.test']) {
        const response = await request(`http://${host}:${httpPort}/`, { dispatcher: agent });
        expect(await response.body.text()).toBe(`hello ${host}:${httpPort}`);
      }
    } finally {
      await agent.close();
    }
  });
});
