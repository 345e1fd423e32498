/**
 * The folded host queue (queue.lua): a small queue lives in the field `Q` of the host state
 * hash, with no level ZSET and no lists; it hands out in the same order as the lists
 * (highest level first, FIFO within a level, requeues at the front of their level), moves to
 * the lists in order when it outgrows the fold, and folds again once drained. Checked in what
 * Redis holds (keys, encodings) and in what claims and the readers return.
 */
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { FOLD_MAX_BYTES, unpackFolded } from '../src/host-queue.js';
import {
  CrawlRegistry,
  type EnqueueItem,
  hashListpackEntriesShortfall,
  hashListpackShortfall,
} from '../src/index.js';
import type { FrontierKeys } from '../src/keys.js';
import { frontierFixture, LIVE_LAYOUT } from './frontier-fixture.js';

/** The keys under `prefix` whose names end in a host queue suffix (`:l`, `:q:<level>`). */
async function queueKeys(redis: Redis, prefix: string): Promise<string[]> {
  const keys = await redis.keys(`${prefix}:*`);
  return keys.filter((k) => /:h:[^:]+:(l|q:-?\d+)$/.test(k)).sort();
}

async function layout(redis: Redis, keys: FrontierKeys, domain: string, host = domain) {
  // A queue in lists keeps its one level in the host hash's `lv`, two or more in a ZSET.
  const [folded, one, many] = await Promise.all([
    redis.hexists(keys.hostState(domain, host), 'Q'),
    redis.hexists(keys.hostState(domain, host), 'lv'),
    redis.exists(keys.hostLevels(domain, host)),
  ]);
  if (one && many) throw new Error(`${host}: one level and a level set at once`);
  const levels = one || many;
  if (folded && levels) throw new Error(`${host}: folded and in lists at once`);
  return folded ? 'folded' : levels ? 'lists' : 'empty';
}

const pathOf = (url: string) => url.slice('https://fold.example/'.length);

const item = (path: string, priority = 0, meta = ''): EnqueueItem => ({
  url: `https://fold.example/${path}`,
  priority,
  meta,
});

describe('folded host queue', () => {
  const { connect, make } = frontierFixture('fq', [], LIVE_LAYOUT);

  it('hands out a folded queue by level, FIFO within one, requeues first in their level', async () => {
    const redis = connect();
    const { frontier, keys, prefix } = make({ defaultConcurrency: 10 });
    // Meta with the separators and multi-byte characters: lengths, not separators, count.
    await frontier.enqueue([item('a'), item('b', 5, 'x,1,2,\né€'), item('c')]);
    await frontier.enqueue([item('d', 5), item('e', 1), item('f', -2)]);
    expect(await layout(redis, keys, 'fold.example')).toBe('folded');
    expect(await queueKeys(redis, prefix)).toEqual([]);
    const queue = await frontier.inspector.hostQueue('fold.example', 'fold.example');
    expect(queue.map((q) => [pathOf(q.url), q.priority])).toEqual([
      ['b', 5],
      ['d', 5],
      ['e', 1],
      ['a', 0],
      ['c', 0],
      ['f', -2],
    ]);
    expect(queue[0]!.meta).toBe('x,1,2,\né€');
    const { leases } = await frontier.claim({ pod: 'pod-a', max: 3 });
    expect(leases.map((l) => pathOf(l.url))).toEqual(['b', 'd', 'e']);
    expect(leases[0]!.meta).toBe('x,1,2,\né€');
    // Released in the order b, d: each goes to the front of level 5, so d comes first.
    await frontier.release(leases[0]!);
    await frontier.release(leases[1]!);
    await frontier.enqueue([item('g', 5)]);
    const again = await frontier.claim({ pod: 'pod-a', max: 10 });
    expect(again.leases.map((l) => pathOf(l.url))).toEqual(['d', 'b', 'g', 'a', 'c', 'f']);
    expect(await layout(redis, keys, 'fold.example')).toBe('empty');
    expect((await frontier.inspector.hostState('fold.example', 'fold.example')).queued).toBe(0);
  });

  it('moves to the lists in order past 8 entries or 512 B, and folds again once drained', async () => {
    const redis = connect();
    const { frontier, keys, prefix } = make({ defaultConcurrency: 20 });
    await frontier.enqueue([0, 1, 2, 3].map((i) => item(`${i}`, i % 2)));
    await frontier.enqueue([4, 5, 6, 7].map((i) => item(`${i}`, i % 2)));
    expect(await layout(redis, keys, 'fold.example')).toBe('folded');
    // The ninth entry (a requeue at the front of level 1) outgrows the fold.
    const [first] = (await frontier.claim({ pod: 'pod-a', max: 1 })).leases;
    expect(first!.url).toBe('https://fold.example/1');
    await frontier.enqueue([item('8', 0)]);
    expect(await layout(redis, keys, 'fold.example')).toBe('folded');
    await frontier.release(first!);
    expect(await layout(redis, keys, 'fold.example')).toBe('lists');
    const host = 'fold.example';
    expect(await queueKeys(redis, prefix)).toEqual(
      [keys.hostLevels(host, host), keys.hostQueue(host, host, 0), keys.hostQueue(host, host, 1)]
        .slice()
        .sort(),
    );
    const order = ['1', '3', '5', '7', '0', '2', '4', '6', '8'];
    const queue = await frontier.inspector.hostQueue(host, host);
    expect(queue.map((q) => pathOf(q.url))).toEqual(order);
    // A batch that would outgrow the fold goes to the lists with the fold's entries ahead.
    const { frontier: bulk, keys: bk } = make({ defaultConcurrency: 20 });
    await bulk.enqueue([item('x', 3), item('y')]);
    await bulk.enqueue(Array.from({ length: 8 }, (_, i) => item(`n${i}`, i === 7 ? 3 : 0)));
    expect(await layout(redis, bk, host)).toBe('lists');
    expect((await bulk.inspector.hostQueue(host, host)).map((q) => pathOf(q.url))).toEqual([
      'x',
      'n7',
      'y',
      'n0',
      'n1',
      'n2',
      'n3',
      'n4',
      'n5',
      'n6',
    ]);
    // Bytes: two entries of 300 B of meta do not fit in 512 B.
    const { frontier: wide, keys: wk } = make({ defaultConcurrency: 5 });
    await wide.enqueue([item('m1', 0, 'm'.repeat(300))]);
    expect(await layout(redis, wk, host)).toBe('folded');
    await wide.enqueue([item('m2', 0, 'm'.repeat(300))]);
    expect(await layout(redis, wk, host)).toBe('lists');
    // One level: no level ZSET, the level in the host hash.
    expect(await redis.exists(wk.hostLevels(host, host))).toBe(0);
    expect(await redis.hget(wk.hostState(host, host), 'lv')).toBe('0');
    expect((await wide.inspector.queueHead(host, host))?.url).toBe('https://fold.example/m1');
    // A second level moves both to the ZSET; the pops keep the order.
    await wide.enqueue([item('m3', 5)]);
    expect(await redis.hexists(wk.hostState(host, host), 'lv')).toBe(0);
    expect(await redis.zrevrange(wk.hostLevels(host, host), 0, -1)).toEqual(['5', '0']);
    const three = await wide.claim({ pod: 'pod-a', max: 5 });
    expect(three.leases.map((l) => pathOf(l.url))).toEqual(['m3', 'm1', 'm2']);
    expect(await layout(redis, wk, host)).toBe('empty');
    // Drained: everything handed out in order, the lists gone; the next URLs fold again.
    const all = await frontier.claim({ pod: 'pod-a', max: 20 });
    expect(all.leases.map((l) => pathOf(l.url))).toEqual(order);
    await frontier.completeMany(all.leases.map((lease) => ({ lease })));
    expect(await layout(redis, keys, host)).toBe('empty');
    await frontier.enqueue([item('z1'), item('z2', 2)]);
    expect(await layout(redis, keys, host)).toBe('folded');
    const last = await frontier.claim({ pod: 'pod-a', max: 5 });
    expect(last.leases.map((l) => pathOf(l.url))).toEqual(['z2', 'z1']);
  });

  it('readers, dropHost and crawl deletion see a folded queue', async () => {
    const redis = connect();
    const { frontier, keys, prefix } = make();
    const { inspector } = frontier;
    await frontier.enqueue([item('a'), item('b', 2, 'm;é'), item('c'), item('d')]);
    expect(await layout(redis, keys, 'fold.example')).toBe('folded');
    expect(await inspector.queueHead('fold.example', 'fold.example')).toMatchObject({
      url: 'https://fold.example/b',
      priority: 2,
      meta: 'm;é',
    });
    const page = await inspector.hostQueue('fold.example', 'fold.example', { offset: 1, limit: 2 });
    expect(page.map((q) => pathOf(q.url))).toEqual(['a', 'c']);
    const at = { host: 'fold.example', domain: 'fold.example' };
    expect(await inspector.urlStatus({ url: 'https://fold.example/b', ...at })).toMatchObject({
      state: 'queued',
      priority: 2,
      meta: 'm;é',
    });
    expect(await inspector.urlStatus({ url: 'https://fold.example/d', ...at })).toMatchObject({
      state: 'queued',
      priority: 0,
    });
    expect(await frontier.dropHost('fold.example')).toBe(4);
    expect(await redis.hexists(keys.hostState('fold.example', 'fold.example'), 'Q')).toBe(0);
    expect(await inspector.queueHead('fold.example', 'fold.example')).toBeNull();
    expect(await inspector.domainStats('fold.example')).toMatchObject({ queued: 0 });
    expect((await inspector.urlStatus({ url: 'https://fold.example/d', ...at })).state).toBe(
      'done',
    );
    // A named crawl's folded queue goes with its host hash when the crawl is deleted.
    const { frontier: named, keys: nk } = make({ crawlId: 'fold' }, prefix);
    await named.enqueue([item('n1'), item('n2')]);
    expect(await layout(redis, nk, 'fold.example')).toBe('folded');
    await new CrawlRegistry({ redis, prefix }).delete('fold');
    expect(await redis.keys(`${nk.root('fold.example')}*`)).toEqual([]);
  });

  it('a 1-URL host has no level or list keys and its hash stays listpack', async () => {
    const redis = connect();
    const { frontier, keys, prefix } = make();
    const domains = Array.from({ length: 50 }, (_, i) => `one${i}-fold.com`);
    await frontier.enqueue(domains.map((d) => `https://www.${d}/articles/a-page-title-${d}`));
    expect(await queueKeys(redis, prefix)).toEqual([]);
    for (const d of domains.slice(0, 5)) {
      const state = keys.hostState(d, `www.${d}`);
      expect(await redis.call('object', 'encoding', state)).toBe('listpack');
      expect(Number(await redis.hget(state, 'q'))).toBe(1);
      // The hash with its folded entry (~90 B): ~150 B without it, where the level ZSET and
      // the list it replaces cost ~336 B on their own (MEMORY USAGE, Redis 7.0).
      expect(await redis.call('memory', 'usage', state)).toBeLessThanOrEqual(256);
    }
    // Our test Redis sets hash-max-listpack-value as the docs ask: no shortfall reported.
    expect(await hashListpackShortfall(redis)).toBeUndefined();
    await redis.config('SET', 'hash-max-listpack-value', '64');
    try {
      expect(await hashListpackShortfall(redis)).toEqual({
        setting: 'hash-max-listpack-value',
        value: 64,
        needed: 512,
        recommended: 1024,
      });
    } finally {
      await redis.config('SET', 'hash-max-listpack-value', '1024');
    }
    // Archive hashes at scale: hash-max-listpack-entries, 512 in our configurations.
    expect(await hashListpackEntriesShortfall(redis)).toBeUndefined();
    await redis.config('SET', 'hash-max-listpack-entries', '128');
    try {
      expect(await hashListpackEntriesShortfall(redis)).toEqual({
        setting: 'hash-max-listpack-entries',
        value: 128,
        needed: 512,
        recommended: 512,
      });
    } finally {
      await redis.config('SET', 'hash-max-listpack-entries', '512');
    }
  });

  it('reads the fold as queue.lua writes it: byte lengths, the same byte limit', () => {
    const lua = readFileSync(new URL('../lua/includes/queue.lua', import.meta.url), 'utf8');
    expect(lua).toContain(`local FOLD_MAX_BYTES = ${FOLD_MAX_BYTES}\n`);
    const entry = '0,0,3,é,1https://a.example/';
    const packed = Buffer.from(`-1,${Buffer.byteLength(entry)},${entry}7,2,xy`);
    expect(unpackFolded(packed)).toEqual([
      { priority: -1, entry },
      { priority: 7, entry: 'xy' },
    ]);
    expect(() => unpackFolded(Buffer.from('0,9,short'))).toThrow(/folded queue/);
  });
});
