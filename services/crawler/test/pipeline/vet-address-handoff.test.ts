/**
 * A port-less `--resolve host:address` override reaches its seeds' ports on every pod: the pod
 * that takes a host over after a handoff never fetched the seed, and must still let the
 * override apply to the seed's port (shared through Redis), and to no other port.
 */
import { DnsCache } from '@shardline/dns';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../../test/helpers/redis.js';
import { FetchErrorCode } from '../../src/errors.js';
import { SharedOverridePorts } from '../../src/override-ports.js';
import { VetAddressStage } from '../../src/pipeline/vet-address.js';
import { contextOf } from './lease-fixture.js';

let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  redis.disconnect();
  await server.stop();
});

/** One pod's stage: its own DNS cache (no seed seen yet), the shared record of seed ports. */
function podStage(
  prefix: string,
  onFull: () => void = () => undefined,
  cap?: number,
  overrides = ['site.test:127.0.0.2'],
): VetAddressStage {
  // A resolver on a port nothing listens on: a name without an override fails fast, offline.
  const dns = new DnsCache({
    overrides,
    portlessOverridePorts: 'allowed',
    servers: ['127.0.0.1:9'],
    timeoutMs: 200,
    tries: 1,
  });
  const ports = new SharedOverridePorts({
    redis,
    prefix,
    onFull,
    ...(cap === undefined ? {} : { cap }),
  });
  return new VetAddressStage(dns, ports);
}

describe('VetAddressStage: seed ports across pods', () => {
  it('lets the pod that took the host over fetch deeper URLs on the seed port', async () => {
    const first = podStage('handoff');
    expect(await first.run(contextOf('http://site.test:8081/'))).toBeUndefined();
    expect(await redis.smembers('handoff:resolve:ports')).toEqual(['site.test:8081']);

    const second = podStage('handoff');
    const deeper = contextOf('http://site.test:8081/docs/a', { depth: 2 });
    expect(await second.run(deeper)).toBeUndefined();
  });

  it('shares a wildcard seed port with every host under the wildcard, and reads records made per host', async () => {
    const wildcard = ['*.wild.test:127.0.0.2'];
    const first = podStage('wild', undefined, undefined, wildcard);
    expect(await first.run(contextOf('http://a.wild.test:8081/'))).toBeUndefined();
    expect(await redis.smembers('wild:resolve:ports')).toEqual(['*.wild.test:8081']);
    const second = podStage('wild', undefined, undefined, wildcard);
    const sibling = contextOf('http://b.wild.test:8081/docs', { depth: 1 });
    expect(await second.run(sibling)).toBeUndefined();
    expect(await second.run(contextOf('http://b.wild.test:8082/', { depth: 1 }))).toMatchObject({
      kind: 'fail',
      code: FetchErrorCode.DNS,
    });
    // A crawl that recorded its seed ports per host before rules keeps them.
    await redis.sadd('wild:resolve:ports', 'c.wild.test:8083');
    const third = podStage('wild', undefined, undefined, wildcard);
    expect(await third.run(contextOf('http://c.wild.test:8083/a', { depth: 2 }))).toBeUndefined();
  });

  it('still keeps the override off ports no seed used', async () => {
    const first = podStage('other-port');
    expect(await first.run(contextOf('http://site.test:8081/'))).toBeUndefined();
    const second = podStage('other-port');
    const elsewhere = contextOf('http://site.test:6379/', { depth: 1 });
    expect(await second.run(elsewhere)).toMatchObject({
      kind: 'fail',
      code: FetchErrorCode.DNS,
      sent: false,
    });
  });

  it('records nothing for hosts without a port-less override, and stops at its cap', async () => {
    const full: number[] = [];
    const stage = podStage('capped', () => full.push(1), 1);
    await stage.run(contextOf('http://127.0.0.3:8080/'));
    expect(await redis.exists('capped:resolve:ports')).toBe(0);
    expect(await stage.run(contextOf('http://site.test:8081/'))).toBeUndefined();
    expect(await stage.run(contextOf('http://site.test:8082/'))).toBeUndefined();
    expect(await redis.smembers('capped:resolve:ports')).toEqual(['site.test:8081']);
    expect(full).toEqual([1]);
  });
});
