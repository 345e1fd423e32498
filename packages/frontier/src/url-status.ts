/**
 * Where one URL is in a crawl (URLFrontier's GetURLStatus), read for
 * `FrontierInspector.urlStatus`, the only caller. The frontier keeps no index by URL: the
 * seen-set answers "ever accepted", then the host's leases, queue (folded or lists,
 * host-queue.ts), refetch buckets and the domain's dead letters are searched; a URL seen and in none of them is done (fetched,
 * or deleted with its queue). The lists are read in pages and at most `maxScan` entries in
 * all; a URL not met within them is reported as `seen` (most likely queued further back).
 *
 * Reads only, over several round trips: every change to a host's URLs bumps its `seq`
 * (host.lua host_schedule) and a seen-set split changes the domain's `sL`/`sS` in the same
 * script, so a read whose markers did not move between its start and end saw one state.
 */
import type { Cluster, Redis } from 'ioredis';
import { unpackDeadLetter, unpackEntry, unpackHeldLease } from './codec.js';
import { readArchived } from './domain-reads.js';
import { fingerprint } from './fingerprint.js';
import { readQueueLayout, unpackFolded } from './host-queue.js';
import type { FrontierKeys } from './keys.js';
import type { UrlStatus } from './read-types.js';

/** Entries read per LRANGE. */
const PAGE = 1000;
/** Attempts at a read that met a concurrent change before the last one is returned. */
const ATTEMPTS = 4;
/** Fingerprint → seen-set bucket hash: its top 20 bits (seen.lua's SEEN_DIV, 2^43). */
const SEEN_DIV = 2 ** 43;

interface Target {
  url: string;
  host: string;
  domain: string;
}

export async function readUrlStatus(
  redis: Redis | Cluster,
  keys: FrontierKeys,
  target: Target,
  maxScan: number,
): Promise<UrlStatus> {
  const base = { url: target.url, host: target.host, domain: target.domain };
  if (!(await isSeen(redis, keys, target))) {
    // An archived domain (archive.ts) keeps its seen fingerprints in its archive field and
    // has nothing out or scheduled: a URL it saw is queued (a packed domain's queue) or done.
    const archived = await readArchived(redis, keys, target.domain);
    if (!archived?.fingerprints.includes(fingerprint(target.url))) {
      return { ...base, state: 'unseen' };
    }
    const folded = archived.queues.get(target.host);
    const hit = folded && unpackFolded(folded).find((e) => unpackEntry(e.entry).url === target.url);
    if (!hit) return { ...base, state: 'done' };
    return { ...base, state: 'queued', priority: hit.priority, meta: unpackEntry(hit.entry).meta };
  }
  const seqKey = keys.hostState(target.domain, target.host);
  let found: Omit<UrlStatus, 'url' | 'host' | 'domain'> = { state: 'seen' };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const before = await redis.hget(seqKey, 'seq');
    found = await locate(redis, keys, target, maxScan);
    if ((await redis.hget(seqKey, 'seq')) === before) break;
  }
  return { ...base, ...found };
}

/** Whether the URL's fingerprint is in the crawl's seen-set of its domain (seen.lua). */
async function isSeen(redis: Redis | Cluster, keys: FrontierKeys, t: Target): Promise<boolean> {
  const fp = fingerprint(t.url);
  const g = Math.floor(Number(fp) / SEEN_DIV);
  const dkey = keys.domain(t.domain);
  // A small seen-set is the domain hash's field S, 8 bytes per fingerprint (seen.lua).
  const inline = await redis.hgetBuffer(dkey, 'S');
  if (inline) {
    const packed = Buffer.alloc(8);
    packed.writeBigUInt64BE(BigInt(fp));
    for (let at = 0; at + 8 <= inline.length; at += 8) {
      if (inline.subarray(at, at + 8).equals(packed)) return true;
    }
  }
  let split = await redis.hmget(dkey, 'sL', 'sS');
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const level = Number(split[0] ?? 0);
    const pointer = Number(split[1] ?? 0);
    let bucket = g % 2 ** level;
    if (bucket < pointer) bucket = g % 2 ** (level + 1);
    if ((await redis.sismember(keys.seenBucket(t.domain, bucket), fp)) === 1) return true;
    const now = await redis.hmget(dkey, 'sL', 'sS');
    if (now[0] === split[0] && now[1] === split[1]) return false;
    split = now;
  }
  return false;
}

async function locate(
  redis: Redis | Cluster,
  keys: FrontierKeys,
  t: Target,
  maxScan: number,
): Promise<Omit<UrlStatus, 'url' | 'host' | 'domain'>> {
  const leases = (await redis.hgetall(keys.hostLeases(t.domain, t.host))) as Record<string, string>;
  for (const [field, value] of Object.entries(leases)) {
    const lease = unpackHeldLease(t.domain, field, value);
    if (lease.url === t.url) {
      return { state: 'leased', atMs: lease.deadlineMs, priority: lease.priority };
    }
  }
  let budget = maxScan;
  /** Pages through a list; returns the first entry `match` accepts, or null. */
  const scan = async <T>(key: string, match: (row: string) => T | null): Promise<T | null> => {
    for (let offset = 0; budget > 0; offset += PAGE) {
      const count = Math.min(PAGE, budget);
      const rows = (await redis.lrange(key, offset, offset + count - 1)) as string[];
      budget -= rows.length;
      for (const row of rows) {
        const hit = match(row);
        if (hit !== null) return hit;
      }
      if (rows.length < count) return null;
    }
    return null;
  };
  const layout = await readQueueLayout(redis, keys, t.domain, t.host);
  if ('folded' in layout) {
    // Folded entries count against the bound like list entries: same answer in both layouts.
    for (const { priority, entry } of layout.folded) {
      if (budget <= 0) break;
      budget--;
      const e = unpackEntry(entry);
      if (e.url === t.url) return { state: 'queued', priority, meta: e.meta };
    }
  }
  for (const level of 'levels' in layout ? layout.levels : []) {
    const hit = await scan(keys.hostQueue(t.domain, t.host, level), (row) => {
      const e = unpackEntry(row);
      return e.url === t.url ? { meta: e.meta } : null;
    });
    if (hit) return { state: 'queued', priority: level, meta: hit.meta };
  }
  const buckets = (await redis.zrange(
    keys.hostRefetchBuckets(t.domain, t.host),
    0,
    -1,
  )) as string[];
  for (const due of buckets) {
    // A refetch bucket holds `<level>,<entry>`.
    const hit = await scan(keys.hostRefetchBucket(t.domain, t.host, due), (row) => {
      const comma = row.indexOf(',');
      const e = unpackEntry(row.slice(comma + 1));
      return e.url === t.url ? { meta: e.meta, priority: Number(row.slice(0, comma)) } : null;
    });
    if (hit) return { state: 'scheduled', atMs: Number(due), ...hit };
  }
  const dead = await scan(keys.deadLetters(t.domain), (row) => {
    const letter = unpackDeadLetter(t.domain, row);
    return letter.url === t.url && letter.host === t.host ? letter : null;
  });
  if (dead) {
    return {
      state: 'dead',
      atMs: dead.atMs,
      priority: dead.priority,
      meta: dead.meta,
      reason: dead.reason,
      message: dead.message,
    };
  }
  return { state: budget > 0 ? 'done' : 'seen' };
}
