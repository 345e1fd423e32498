/**
 * `npm run bench -- dns`: what the cache saves. Baseline: a raw c-ares `Resolver.resolve4`
 * against a loopback authoritative server (the cheapest real DNS round trip there is).
 * Measured: cached `resolve()` and `lookup()` hits, cold resolutions, coalescing of a burst,
 * and `classifyAddress`.
 */
import { Resolver } from 'node:dns/promises';
import { performance } from 'node:perf_hooks';
import { classifyAddress, DnsCache } from '../src/index.js';
import { startDnsServer } from '../test/dns-server.js';

const dns = await startDnsServer();
for (let i = 0; i < 2_000; i++) dns.set(`host${i}.bench`, { a: [`93.184.${i >> 8}.${i & 255}`] });
dns.set('burst.bench', { a: ['93.184.216.34'] });

async function opsPerSec(label: string, count: number, run: (i: number) => Promise<unknown>) {
  const started = performance.now();
  for (let i = 0; i < count; i++) await run(i);
  const ms = performance.now() - started;
  const rate = (count / ms) * 1000;
  console.log(`${label.padEnd(44)} ${rate.toFixed(0).padStart(10)} ops/s  (${count} ops)`);
  return rate;
}

const raw = new Resolver({ timeout: 1_000, tries: 1 });
raw.setServers([dns.address]);
const baseline = await opsPerSec('baseline: raw resolve4 (loopback server)', 2_000, (i) =>
  raw.resolve4(`host${i % 2_000}.bench`),
);

const cold = new DnsCache({ servers: [dns.address], ipv6: false });
const coldRate = await opsPerSec('DnsCache.resolve, cold (every name new)', 2_000, (i) =>
  cold.resolve(`host${i}.bench`),
);

const hot = new DnsCache({ servers: [dns.address], ipv6: false });
for (let i = 0; i < 100; i++) await hot.resolve(`host${i}.bench`);
const hitRate = await opsPerSec('DnsCache.resolve, cached (100 names)', 200_000, (i) =>
  hot.resolve(`host${i % 100}.bench`),
);
const lookupRate = await opsPerSec('DnsCache.lookup, cached, all: true', 100_000, (i) => {
  return new Promise((resolve, reject) => {
    hot.lookup(`host${i % 100}.bench`, { all: true }, (error, address) =>
      error ? reject(error) : resolve(address),
    );
  });
});

const burst = new DnsCache({ servers: [dns.address], ipv6: false });
await Promise.all(Array.from({ length: 1_000 }, () => burst.resolve('burst.bench')));
console.log(
  `burst of 1000 concurrent resolves of one cold name: ${dns.count('burst.bench')} query`,
);

const samples = ['8.8.8.8', '10.1.2.3', '169.254.169.254', '2001:4860::8888', '::ffff:127.0.0.1'];
const started = performance.now();
const rounds = 200_000;
for (let i = 0; i < rounds; i++) classifyAddress(samples[i % samples.length]!);
const classifyRate = (rounds / (performance.now() - started)) * 1000;
console.log(
  `${'classifyAddress (mixed v4/v6)'.padEnd(44)} ${classifyRate.toFixed(0).padStart(10)} ops/s`,
);

console.log(`\ncold resolve / baseline:   ${(coldRate / baseline).toFixed(2)}x`);
console.log(`cached resolve / baseline: ${(hitRate / baseline).toFixed(1)}x`);
console.log(`cached lookup / baseline:  ${(lookupRate / baseline).toFixed(1)}x`);
await dns.close();
