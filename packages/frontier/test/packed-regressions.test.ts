/**
 * Regressions found in packed new domains (`packNewDomains`) and the archive they share,
 * each failing on the code before its fix: a paused domain folded with its flag (resume
 * clears the live hash only), the queues' mark looked for inside binary fingerprints, and an
 * older index update landing after a 'packed' one. The feature's coverage is in
 * packed-domains-suite.ts and packed-claims-suite.ts.
 */
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../src/fingerprint.js';
import type { Lease, RedisFrontier } from '../src/index.js';
import { frontierFixture } from './frontier-fixture.js';

const PIN_MS = 60;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('packed new domains: regressions', () => {
  const { connect, make } = frontierFixture('pb', [], {
    packAfterDomains: 0,
    pinMs: PIN_MS,
  });

  /** Claims for pod-a until `want` leases came or `ms` passed (completing each). */
  const claimFor = async (frontier: RedisFrontier, want: number, ms = 3000) => {
    const out: Lease[] = [];
    const deadline = Date.now() + ms;
    while (out.length < want && Date.now() < deadline) {
      const { leases } = await frontier.claim({ pod: 'pod-a', max: 10 });
      if (leases.length === 0) {
        await sleep(20);
        continue;
      }
      out.push(...leases);
      await frontier.completeMany(leases.map((lease) => ({ lease })));
    }
    return out;
  };

  it('a domain paused before its first URL stays live (not packed), and resume reaches it', async () => {
    for (const packNewDomains of [false, true]) {
      const { frontier, keys } = make({ packNewDomains });
      const redis = connect();
      const d = 'paused.example';
      await frontier.pause(d);
      await frontier.enqueue([`https://${d}/1`]);
      // Folded, the paused flag would be out of resume's reach (pause-3.lua edits live keys).
      expect(await redis.hexists(keys.archive(d), d)).toBe(0);
      expect(await redis.exists(keys.domain(d))).toBe(1);
      await frontier.resume(d);
      expect((await frontier.inspector.domainStats(d)).paused).toBe(false);
      const leases = await claimFor(frontier, 1);
      expect(leases.map((l) => l.url)).toEqual([`https://${d}/1`]);
    }
  });

  it('an idle paused domain is not archived; resume reaches it', async () => {
    const { frontier, keys } = make({ packNewDomains: false });
    const redis = connect();
    const d = 'paused-idle.example';
    await frontier.enqueue([`https://${d}/1`]);
    const [lease] = (await frontier.claim({ pod: 'pod-a' })).leases;
    await frontier.complete(lease!);
    await frontier.pause(d);
    // The parking visit leaves the paused domain live.
    await sleep(PIN_MS + 40);
    expect((await frontier.claim({ pod: 'pod-a' })).leases).toEqual([]);
    expect(await redis.exists(keys.domain(d))).toBe(1);
    expect(await redis.hexists(keys.archive(d), d)).toBe(0);
    await frontier.resume(d);
    expect((await frontier.inspector.domainStats(d)).paused).toBe(false);
    await frontier.enqueue([`https://${d}/2`]);
    const leases = await claimFor(frontier, 1);
    expect(leases.map((l) => l.url)).toEqual([`https://${d}/2`]);
  });

  it('a visit to an idle archived domain writes nothing, whatever bytes its fingerprints hold', async () => {
    const { frontier, keys } = make();
    const redis = connect();
    const hasBlankLine = (url: string) => {
      const b = Buffer.alloc(8);
      b.writeBigUInt64BE(BigInt(fingerprint(url)));
      return b.includes('\n\n');
    };
    // The second URL's fingerprint holds the bytes 0x0a 0x0a (archive.lua's queue marker).
    const cases = [
      { d: 'plain.example', url: 'https://plain.example/1' },
      { d: 'nl.example', url: 'https://nl.example/110' },
    ];
    expect(cases.map((c) => hasBlankLine(c.url))).toEqual([false, true]);
    for (const { url } of cases) await frontier.enqueue([url]);
    await claimFor(frontier, 2);
    for (let round = 0; round < 20 && (await redis.zcard(keys.due('pod-a'))) > 0; round++) {
      await sleep(PIN_MS + 40);
      await frontier.claim({ pod: 'pod-a', max: 10 });
    }
    for (const { d, url } of cases) {
      // Archived, idle: no queue in the field.
      expect(await redis.exists(keys.domain(d))).toBe(0);
      const before = await redis.hgetBuffer(keys.archive(d), d);
      expect(before).not.toBeNull();
      // A duplicate link pins the host: the claim that visits it finds an archived domain,
      // which it must leave as it is ('gone', claim-2.lua's header).
      expect((await frontier.enqueue([url])).duplicates).toBe(1);
      expect((await frontier.claim({ pod: 'pod-a', max: 10 })).leases).toEqual([]);
      expect(await redis.hgetBuffer(keys.archive(d), d), d).toEqual(before);
      expect(await redis.hget(keys.stats(), 'archivedDomains'), d).toBe('2');
      // Nor does dropping a host of it (nothing queued) unfold it for good.
      expect(await frontier.dropHost(d)).toBe(0);
      expect(await redis.exists(keys.domain(d)), d).toBe(0);
    }
  });

  it("an older update delivered after the 'packed' one does not strand the packed host", async () => {
    // The frontier defines its scripts on this connection: the test calls one directly.
    const redis = connect();
    const { frontier, keys } = make({ redis, leaseTimeoutMs: 0 });
    const d = 'strand.example';
    const m = `${d}/${d}`;
    const due = keys.due('pod-a');
    const meta = keys.dueMeta('pod-a');
    const backlog = keys.backlog('pod-a');
    // A first URL: packed, claimed (lease out, no deadline: the claim's update scores 'inf'),
    // completed, and the domain archived again by the parking visit.
    await frontier.enqueue([`https://${d}/1`]);
    const [first] = (await frontier.claim({ pod: 'pod-a' })).leases;
    expect(first).toBeDefined();
    expect(await redis.zscore(due, m)).toBe('inf');
    const claimSeq = (await redis.hget(meta, m))!.split(':')[0]!;
    await frontier.complete(first!);
    await sleep(PIN_MS + 40);
    expect((await frontier.claim({ pod: 'pod-a' })).leases).toEqual([]);
    expect(await redis.exists(keys.domain(d))).toBe(0);
    expect(await redis.zscore(due, m)).toBeNull();
    // A new URL: the domain is packed again, its host named in the backlog.
    await frontier.enqueue([`https://${d}/2`]);
    expect(await redis.lrange(backlog, 0, -1)).toEqual([m]);
    expect(await redis.zscore(due, m)).toBeNull();
    // The first claim's index update ('inf', its older seq) arrives only now (a claimer
    // stalled between its claim script and its update, e.g. after `onLeases` let the
    // lease finish): the 'packed' update forgot the member's seq, so it is applied...
    await redis.slv3IndexUpdate(due, meta, backlog, '', PIN_MS, m, claimSeq, 'inf');
    // ...and the URL must still be handed out: the claim's due-take pops the backlog name and
    // brings the listed member down from +inf (a ZADD NX left it there, the domain packed).
    const leases = await claimFor(frontier, 1);
    expect(leases.map((l) => l.url)).toEqual([`https://${d}/2`]);
  });
});
