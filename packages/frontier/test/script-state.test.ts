/**
 * What claim, complete and index-update leave in Redis, field by field: the scripts read the
 * host and domain hashes once and write what changed at the end (claim's counters after its
 * loop, the host's fields with its new seq), so every counter must still come out exactly as
 * one increment per event would leave it — several leases in one claim visit, completions
 * and failures, a second crawl counting in the shared politeness hash — and a batch of index
 * triples naming the same member several times must end as the triples one by one would.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { loadScripts, SCRIPT_COMMANDS } from '../src/scripts.js';
import { frontierFixture, LIVE_LAYOUT } from './frontier-fixture.js';

describe('script state', () => {
  const { connect, make } = frontierFixture('st', [], LIVE_LAYOUT);
  const counts = async (redis: Redis, key: string, fields: string[]) =>
    Object.fromEntries((await redis.hmget(key, ...fields)).map((v, i) => [fields[i], v]));

  it('claim and complete keep every host and domain counter exact over many visits', async () => {
    const redis = connect();
    const { frontier, keys } = make();
    const d = 'cnt-test.com';
    const host = `www.${d}`;
    await frontier.setHostPolicy(host, { concurrency: 3 });
    await frontier.enqueue(Array.from({ length: 10 }, (_, i) => `https://${host}/${i}`));
    const state = keys.hostState(d, host);
    const seq0 = Number(await redis.hget(state, 'seq'));

    // One visit hands out three leases (concurrency 3): ids, f, q and claimed move by three.
    const first = (await frontier.claim({ pod: 'pod-a', max: 5 })).leases;
    expect(first.map((l) => l.id.slice(l.id.lastIndexOf('/') + 1))).toEqual(['1', '2', '3']);
    expect(await counts(redis, state, ['f', 'id', 'q', 'seq'])).toEqual({
      f: '3',
      id: '3',
      q: '7',
      seq: String(seq0 + 1),
    });
    expect(await counts(redis, keys.domain(d), ['f', 'q', 'claimed'])).toEqual({
      f: '3',
      q: '7',
      claimed: '3',
    });

    await frontier.completeMany(
      first.map((lease, i) => ({
        lease,
        result: { bytes: 100 * (i + 1), durationMs: 5 + i, links: i + 1 },
      })),
    );
    expect(await counts(redis, state, ['f', 'dn', 'seq'])).toEqual({
      f: '0',
      dn: '3',
      seq: String(seq0 + 4),
    });

    // The next visit continues the ids; a failure and two completions settle it.
    const second = (await frontier.claim({ pod: 'pod-a', max: 5 })).leases;
    expect(second.map((l) => l.id.slice(l.id.lastIndexOf('/') + 1))).toEqual(['4', '5', '6']);
    await frontier.fail(second[0]!, { reason: 'http-500', retryable: false });
    await frontier.completeMany(
      second.slice(1).map((lease) => ({ lease, result: { bytes: 7, durationMs: 1, links: 0 } })),
    );
    expect(
      await counts(redis, keys.domain(d), ['f', 'q', 'claimed', 'ok', 'bytes', 'ms', 'links']),
    ).toEqual({
      f: '0',
      q: '4',
      claimed: '6',
      ok: '5',
      bytes: '614',
      ms: '20',
      links: '6',
    });
    expect(await counts(redis, state, ['f', 'id', 'q', 'dn', 'seq'])).toEqual({
      f: '0',
      id: '6',
      q: '4',
      dn: '5',
      seq: String(seq0 + 8),
    });
    expect((await frontier.inspector.domainStats(d)).fetched).toBe(5);
  });

  it('a second crawl counts its leases in the shared hash (fx) and keeps its own counters', async () => {
    const redis = connect();
    const { frontier: a, keys: ka, prefix } = make({ crawlId: 'a' });
    const { frontier: b, keys: kb } = make({ crawlId: 'b' }, prefix);
    const d = 'fx.example';
    await a.setHostPolicy(d, { concurrency: 3 });
    await b.setHostPolicy(d, { concurrency: 3 });
    await a.enqueue([1, 2, 3].map((i) => `https://${d}/a${i}`));
    await b.enqueue([1, 2, 3].map((i) => `https://${d}/b${i}`));
    const polite = ka.hostPoliteness(d, d);
    const la = (await a.claim({ pod: 'pod-a', max: 2 })).leases;
    expect(la).toHaveLength(2);
    // Two of the host's three slots are out in crawl A: crawl B's visit gets the last one.
    const lb = (await b.claim({ pod: 'pod-a', max: 5 })).leases;
    expect(lb).toHaveLength(1);
    expect(await redis.hget(polite, 'fx')).toBe('3');
    expect(await counts(redis, ka.hostState(d, d), ['f', 'id', 'q'])).toEqual({
      f: '2',
      id: '2',
      q: '1',
    });
    expect(await counts(redis, kb.hostState(d, d), ['f', 'id', 'q'])).toEqual({
      f: '1',
      id: '1',
      q: '2',
    });
    await a.completeMany(la.map((lease) => ({ lease })));
    await b.complete(lb[0]!);
    expect(await redis.hget(polite, 'fx')).toBe('0');
    expect(await counts(redis, ka.domain(d), ['f', 'q', 'claimed', 'ok'])).toEqual({
      f: '0',
      q: '1',
      claimed: '2',
      ok: '2',
    });
    expect(await counts(redis, kb.domain(d), ['f', 'q', 'claimed', 'ok'])).toEqual({
      f: '0',
      q: '2',
      claimed: '1',
      ok: '1',
    });
  });

  it('index-update applies repeated members in order, as one call per triple would', async () => {
    const redis = connect();
    const lua = loadScripts().find((x) => x.command === SCRIPT_COMMANDS['index-update'])!.lua;
    const { keys } = make();
    const due = keys.due('pod-a');
    const meta = keys.dueMeta('pod-a');
    await redis.zadd(due, 'inf', 'd', 7, 'e');
    await redis.hset(meta, 'd', '1:0', 'e', '9:0');
    const pin = 300;
    // member, seq, score: what each triple does, in order
    const triples: [string, number, string][] = [
      ['a', 0, ''], // absent: added at the pin's end
      ['a', 5, '1000'], // newer seq: re-scored
      ['a', 0, ''], // a pin does not raise it again
      ['b', 3, 'park'], // absent, no pin: nothing
      ['c', -1, ''], // absent: added at now
      ['c', 2, 'park'], // parked inside its pin: moved to the pin's end
      ['d', 0, ''], // +inf lowered to the pin's end
      ['d', 1, '5'], // not newer than its seq: ignored
      ['d', 4, 'evict'], // removed whatever its pin
      ['e', 4, '1'], // not newer: ignored
    ];
    const [earliest, nowText] = (await redis.eval(
      lua,
      2,
      due,
      meta,
      '',
      pin,
      ...triples.flat(),
    )) as [string, string];
    const end = Number(nowText) + pin;
    expect(await redis.zrange(due, 0, -1, 'WITHSCORES')).toEqual([
      'e',
      '7',
      'a',
      '1000',
      'c',
      String(end),
    ]);
    expect(await redis.hgetall(meta)).toEqual({ a: `5:${end}`, c: `2:${end}`, e: '9:0' });
    expect(earliest).toBe('7');
  });
  it('an enqueue to a live domain never reads the archive; an archived one is still answered from it', async () => {
    const redis = connect();
    const { frontier, keys } = make({ pinMs: 60 });
    const d = 'live-enqueue.com';
    const urls = [`https://${d}/a`, `https://${d}/b`];
    await frontier.enqueue(urls);
    const hgets = async () => {
      const text = await redis.info('commandstats');
      return Number(/cmdstat_hget:calls=(\d+)/.exec(text)?.[1] ?? 0);
    };
    // A batch of links the live domain saw: no HGET at all (the archive field is read only
    // for a domain that has accepted nothing, i.e. has no 'enq').
    await redis.config('RESETSTAT');
    expect((await frontier.enqueue(urls)).duplicates).toBe(2);
    expect(await hgets()).toBe(0);

    // Fetched, parked and archived: the same links are answered from the archive field.
    for (;;) {
      const { leases } = await frontier.claim({ pod: 'pod-a', max: 10 });
      if (leases.length === 0) break;
      await frontier.completeMany(leases.map((lease) => ({ lease })));
    }
    await new Promise((r) => setTimeout(r, 100)); // the pin lapses; the next visit parks
    expect((await frontier.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);
    expect(await redis.exists(keys.domain(d))).toBe(0);
    expect(await redis.hexists(keys.archive(d), d)).toBe(1);
    expect((await frontier.enqueue(urls)).duplicates).toBe(2);
    expect(await redis.exists(keys.domain(d))).toBe(0);
  });
});
