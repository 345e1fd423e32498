import calculateSlot from 'cluster-key-slot';
import { describe, expect, it } from 'vitest';
import { ARCHIVE_HASHES_PER_SLOT, archiveKeysPattern } from '../src/archive.js';
import { FrontierKeys } from '../src/keys.js';

/** The hash tag Redis Cluster hashes: the first {...} with something inside. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = key.indexOf('}', open + 1);
  return open >= 0 && close > open + 1 ? key.slice(open + 1, close) : key;
}

describe('FrontierKeys', () => {
  const keys = new FrontierKeys('sl');

  it('puts a domain’s archive hash in the slot of its keys, spread over a few hashes per slot', () => {
    const hashes = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const d = `site${i}.example.com`;
      expect(calculateSlot(keys.archive(d))).toBe(calculateSlot(keys.domain(d)));
      hashes.add(keys.archive(d));
    }
    // The layout is a constant: archived domains are found where they were put.
    expect(keys.archive('example.com')).toBe(
      new FrontierKeys('sl', 'other').archive('example.com'),
    );
    expect(keys.archive('example.com')).toMatch(/^sl:\{[0-9a-z]+\}:a:[0-7]$/);
    expect(ARCHIVE_HASHES_PER_SLOT).toBe(8);
    expect(hashes.size).toBeGreaterThan(1900);
    expect(keys.archiveField('example.com')).toBe('example.com');
    expect(new FrontierKeys('sl', 'wide').archiveField('example.com')).toBe('c:wide:example.com');
  });

  it('gives every key of a domain, its hosts included, the domain hash tag', () => {
    const d = 'example.com';
    const all = [
      keys.root(d),
      keys.domain(d),
      keys.hosts(d),
      keys.seenBucket(d, 7),
      keys.deadLetters(d),
      keys.hostState(d, 'www.example.com'),
      keys.hostLevels(d, 'www.example.com'),
      keys.hostQueue(d, 'www.example.com', -3),
      keys.hostLeases(d, 'a.example.com'),
      keys.hostLeaseDeadlines(d, 'a.example.com'),
    ];
    expect(new Set(all.map(hashTag))).toEqual(new Set(['d:example.com']));
    // The SCAN pattern of per-domain keys matches each of them and nothing global.
    const pattern = new RegExp(
      `^${keys.domainKeysPattern().replace(/[{}]/g, '\\$&').replace('*', '.*')}$`,
    );
    for (const key of all) expect(key).toMatch(pattern);
    for (const key of [keys.stats(), keys.domains(), keys.pods(), keys.due('pod-1')]) {
      expect(key).not.toMatch(pattern);
    }
    // The archive hashes' pattern matches a domain's archive hash, and no per-domain key.
    const archives = new RegExp(
      `^${archiveKeysPattern('sl').replace(/[{}]/g, '\\$&').replaceAll('*', '.*')}$`,
    );
    expect(keys.archive(d)).toMatch(archives);
    for (const key of [...all, keys.stats(), keys.due('pod-1')]) expect(key).not.toMatch(archives);
    expect(keys.hostQueue(d, 'www.example.com', 5)).toBe(
      'sl:{d:example.com}:h:www.example.com:q:5',
    );
  });

  it('puts a due index and its meta in one slot, per pod', () => {
    expect(hashTag(keys.due('pod-1'))).toBe(hashTag(keys.dueMeta('pod-1')));
    expect(hashTag(keys.due('pod-1'))).not.toBe(hashTag(keys.due('pod-2')));
  });

  it('spells one distinct ZSET per domain index, outside every domain and pod slot', () => {
    const indexes = [
      keys.domainIndex('depth'),
      keys.domainIndex('fetched'),
      keys.domainIndex('errors'),
      keys.deadLetterDomains(),
    ];
    expect(new Set(indexes).size).toBe(4);
    expect(indexes[0]).toBe(keys.domains());
    expect(keys.domainIndex('fetched')).toBe(keys.domainsByFetched());
    expect(keys.domainIndex('errors')).toBe(keys.domainsByErrors());
    for (const key of indexes) expect(key).not.toMatch(/[{}]/);
  });

  it("keeps a crawl's domain keys in the domain slot and its politeness under the default root", () => {
    const crawl = new FrontierKeys('sl', 'news-2026');
    const d = 'example.com';
    const all = [
      crawl.root(d),
      crawl.domain(d),
      crawl.seenBucket(d, 3),
      crawl.hostState(d, 'www.example.com'),
      crawl.hostPoliteness(d, 'www.example.com'),
      crawl.domainPoliteness(d),
    ];
    expect(new Set(all.map(hashTag))).toEqual(new Set(['d:example.com']));
    expect(crawl.root(d)).toBe('sl:{d:example.com}:c:news-2026:');
    expect(crawl.hostPoliteness(d, 'www.example.com')).toBe(keys.hostState(d, 'www.example.com'));
    expect(crawl.domainPoliteness(d)).toBe(keys.domain(d));
    // The crawl's global keys are its own; identity and the registry are shared.
    expect(crawl.stats()).toBe('sl:c:news-2026:stats');
    expect(crawl.due('pod-1')).toBe('sl:c:news-2026:pod:{p:pod-1}:due');
    expect(crawl.identity()).toBe(keys.identity());
    expect(hashTag(crawl.crawlDomains())).toBe(hashTag(crawl.crawls()));
    expect(crawl.crawls()).toBe(keys.crawls());
  });
});
