/**
 * A domain's first host lives in its counter hash (`h1`), the others in its hosts set
 * (host.lua host_add): a one-host domain has no set, which on Redis 7.0 costs ~200 B. Every
 * reader and every script that walks a domain's hosts sees both.
 */
import { describe, expect, it } from 'vitest';
import { frontierFixture, LIVE_LAYOUT } from './frontier-fixture.js';

describe('a domain’s hosts', () => {
  const { connect, make } = frontierFixture('dh', [], LIVE_LAYOUT);

  it('keeps the first host in the domain hash and the others in the set', async () => {
    const redis = connect();
    const { frontier, keys } = make({ defaultDelayMs: 0 });
    const d = 'hosts-test.com';
    await frontier.enqueue([`https://www.${d}/1`, `https://www.${d}/2`]);
    expect(await redis.hget(keys.domain(d), 'h1')).toBe(`www.${d}`);
    expect(await redis.exists(keys.hosts(d))).toBe(0);

    await frontier.enqueue([`https://${d}/1`, `https://www.${d}/3`, `https://cdn.${d}/1`]);
    expect((await redis.smembers(keys.hosts(d))).sort()).toEqual([`cdn.${d}`, d]);
    expect(await frontier.inspector.domainHosts(d)).toEqual([`cdn.${d}`, d, `www.${d}`]);
    expect((await frontier.inspector.domainStats(d)).hosts).toEqual([`cdn.${d}`, d, `www.${d}`]);

    // A policy or a block on the first host keeps it where it is (no second entry).
    await frontier.setHostPolicy(`www.${d}`, { delayMs: 0 });
    await frontier.blockUntil({ host: `www.${d}` }, 0);
    expect(await redis.sismember(keys.hosts(d), `www.${d}`)).toBe(0);
    expect((await frontier.inspector.domainStats(d)).hosts).toHaveLength(3);

    // Pause and a domain-wide block walk every host, the first one included.
    await frontier.pause(d);
    expect((await frontier.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);
    await frontier.resume(d);
    const hosts = (await frontier.claim({ pod: 'pod-a', max: 10 })).leases.map((l) => l.host);
    expect(hosts.sort()).toEqual([`cdn.${d}`, d, `www.${d}`]);
  });

  it('a domain whose set exists (a policy came first) adds every host to the set', async () => {
    const redis = connect();
    const { frontier, keys } = make();
    const d = 'policy-first.com';
    await frontier.setHostPolicy(`www.${d}`, { delayMs: 10 });
    await frontier.enqueue([`https://www.${d}/1`, `https://${d}/1`]);
    expect(await redis.hget(keys.domain(d), 'h1')).toBeNull();
    expect((await redis.smembers(keys.hosts(d))).sort()).toEqual([d, `www.${d}`]);
    expect(await frontier.inspector.domainHosts(d)).toEqual([d, `www.${d}`]);
  });

  it('reindex moves the first host too', async () => {
    const redis = connect();
    const owner = { pod: 'pod-a' };
    const { frontier, keys } = make({ ownerOf: () => owner.pod });
    const d = 'moving-hosts.com';
    await frontier.enqueue([`https://${d}/1`]);
    expect(await redis.zscore(keys.due('pod-a'), `${d}/${d}`)).not.toBeNull();
    owner.pod = 'pod-b';
    await frontier.reindex(d, { evictFrom: 'pod-a' });
    expect(await redis.zscore(keys.due('pod-a'), `${d}/${d}`)).toBeNull();
    expect(await redis.zscore(keys.due('pod-b'), `${d}/${d}`)).not.toBeNull();
  });
});
