/**
 * Reads of one host's queue in hand-out order (highest priority level first, FIFO within a
 * level), for `FrontierInspector` (a page, the head) and url-status.ts. A queue has one of two
 * layouts (queue.lua): while small, its entries are folded into the field `Q` of the host
 * state hash; a bigger queue sits in one LIST per level, its levels in the host state's field
 * `lv` while there is one, else in a ZSET. Every read here sees both, and a packed domain's
 * queues in its archive field (archive.ts).
 */
import type { Cluster, Redis } from 'ioredis';
import { unpackEntry } from './codec.js';
import { readArchived } from './domain-reads.js';
import { FrontierReplyError } from './errors.js';
import type { FrontierKeys } from './keys.js';
import type { QueuedUrl } from './read-types.js';

/** The host state field that holds a folded queue (queue.lua). */
export const FOLDED_QUEUE_FIELD = 'Q';
/** The host state field that holds the one level of a queue in lists (queue.lua). */
const ONE_LEVEL_FIELD = 'lv';

/**
 * The longest folded queue value in bytes (queue.lua FOLD_MAX_BYTES): the least
 * `hash-max-listpack-value` that keeps a host state hash with a folded queue compact.
 */
export const FOLD_MAX_BYTES = 512;

/** One queued entry with its level. */
export interface LevelEntry {
  priority: number;
  /** The packed entry (codec.ts unpackEntry). */
  entry: string;
}

/** A host's queue as it is laid out now: folded entries, or the levels of its lists. */
export type QueueLayout = { folded: LevelEntry[] } | { levels: number[] };

const COMMA = 0x2c;

/**
 * The entries of a folded queue, `<level>,<byteLen>,<entry>` each, in pop order. Lengths
 * count bytes (an entry's meta may hold any character), so the value is read as bytes.
 */
export function unpackFolded(packed: Buffer): LevelEntry[] {
  const out: LevelEntry[] = [];
  let pos = 0;
  while (pos < packed.length) {
    const a = packed.indexOf(COMMA, pos);
    const b = a < 0 ? -1 : packed.indexOf(COMMA, a + 1);
    const priority = Number(packed.toString('latin1', pos, a));
    const length = Number(packed.toString('latin1', a + 1, b));
    const end = b + 1 + length;
    if (b < 0 || !Number.isSafeInteger(priority) || !(length >= 0) || end > packed.length) {
      throw new FrontierReplyError('queue.lua (folded queue)', packed.toString());
    }
    out.push({ priority, entry: packed.toString('utf8', b + 1, end) });
    pos = end;
  }
  return out;
}

/** Which layout the host's queue has now, with the folded entries or the list levels. */
export async function readQueueLayout(
  redis: Redis | Cluster,
  keys: FrontierKeys,
  domain: string,
  host: string,
): Promise<QueueLayout> {
  const [packed, one] = await redis.hmgetBuffer(
    keys.hostState(domain, host),
    FOLDED_QUEUE_FIELD,
    ONE_LEVEL_FIELD,
  );
  if (packed) return { folded: unpackFolded(packed) };
  if (one) return { levels: [Number(one.toString())] };
  const levels = (await redis.zrevrange(keys.hostLevels(domain, host), 0, -1)) as string[];
  if (levels.length === 0) {
    // Nothing live: a packed domain keeps its hosts' folded queues in its archive field.
    const archived = await readArchived(redis, keys, domain);
    const folded = archived?.queues.get(host);
    if (folded) return { folded: unpackFolded(folded) };
  }
  return { levels: levels.map(Number) };
}

function queued(domain: string, host: string, { priority, entry }: LevelEntry): QueuedUrl {
  const e = unpackEntry(entry);
  return { url: e.url, host, domain, priority, depth: e.depth, attempt: e.attempt, meta: e.meta };
}

/** A page of the host's queue: reads the layout, then only the lists (and ranges) it touches. */
export async function readHostQueue(
  redis: Redis | Cluster,
  keys: FrontierKeys,
  domain: string,
  host: string,
  page: { offset: number; limit: number },
): Promise<QueuedUrl[]> {
  const layout = await readQueueLayout(redis, keys, domain, host);
  if ('folded' in layout) {
    return layout.folded
      .slice(page.offset, page.offset + page.limit)
      .map((e) => queued(domain, host, e));
  }
  const out: QueuedUrl[] = [];
  let skip = page.offset;
  for (const priority of layout.levels) {
    if (out.length >= page.limit) break;
    const key = keys.hostQueue(domain, host, priority);
    const length = await redis.llen(key);
    if (skip >= length) {
      skip -= length;
      continue;
    }
    const entries = await redis.lrange(key, skip, skip + page.limit - out.length - 1);
    skip = 0;
    for (const entry of entries) out.push(queued(domain, host, { priority, entry }));
  }
  return out;
}

/** The URL the host hands out next, or `null` when nothing is queued (one read when folded). */
export async function readQueueHead(
  redis: Redis | Cluster,
  keys: FrontierKeys,
  domain: string,
  host: string,
): Promise<QueuedUrl | null> {
  const layout = await readQueueLayout(redis, keys, domain, host);
  if ('folded' in layout) {
    const [head] = layout.folded;
    return head ? queued(domain, host, head) : null;
  }
  const level = layout.levels[0];
  if (level === undefined) return null;
  const priority = Number(level);
  const entry = await redis.lindex(keys.hostQueue(domain, host, priority), 0);
  return entry === null ? null : queued(domain, host, { priority, entry });
}
