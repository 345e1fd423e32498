/**
 * Where archived domains live (lua/includes/archive.lua) and how a reader decodes one.
 *
 * An idle small domain is folded into one field of a hash shared with other domains. On a
 * Redis Cluster the scripts that fold and unfold it touch the domain's keys and that hash
 * at once, so the hash must sit in the domain's slot although its hash tag is not the
 * domain's: each of the 16,384 slots gets a short tag that hashes to it (found once per
 * process, the same everywhere), and the domains of a slot spread over
 * {@link ARCHIVE_HASHES_PER_SLOT} hashes so each stays small enough to be listpack-encoded.
 */
import calculateSlot from 'cluster-key-slot';
import { FrontierReplyError } from './errors.js';

const SLOTS = 16_384;
/**
 * Archive hashes per slot: 131,072 in all, a constant of the layout (changing it would lose
 * the archived domains). At 10 M archived domains that is ~76 fields each, a listpack while
 * within `hash-max-listpack-entries` (128 by default; at ~15 M and more, raise it to 512 or
 * each field costs a hashtable entry, ~50 B more); at 1 M ~8 share a hash's ~90 B of key.
 */
export const ARCHIVE_HASHES_PER_SLOT = 8;

let slotTags: string[] | undefined;

/** The first base-36 counter string that hashes to each slot (~170,000 CRC16s, once). */
function tagOfSlot(slot: number): string {
  if (!slotTags) {
    const tags: string[] = new Array(SLOTS);
    let missing = SLOTS;
    for (let i = 0; missing > 0; i++) {
      const tag = i.toString(36);
      const s = calculateSlot(tag);
      if (tags[s] === undefined) {
        tags[s] = tag;
        missing--;
      }
    }
    slotTags = tags;
  }
  return slotTags[slot]!;
}

/** FNV-1a of the domain: which of its slot's hashes holds it. */
function spread(domain: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < domain.length; i++) {
    h ^= domain.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % ARCHIVE_HASHES_PER_SLOT;
}

/** The archive hash of a domain: same slot as `{d:<domain>}`, the domain keys' hash tag. */
export function archiveKey(prefix: string, domain: string): string {
  return `${prefix}:{${tagOfSlot(calculateSlot(`d:${domain}`))}}:a:${spread(domain)}`;
}

/** SCAN MATCH pattern of every {@link archiveKey} under `prefix` (tools and tests). */
export function archiveKeysPattern(prefix: string): string {
  return `${prefix}:{*}:a:*`;
}

/** An archived domain as a reader sees it: its counter fields and its hosts' fields. */
export interface ArchivedDomain {
  /** Fingerprints of the URLs the crawl accepted (decimal strings, as seen.lua keeps them). */
  fingerprints: string[];
  /** The domain hash's fields (`seen` = the fingerprints' count; `f` is 0, `q` unless packed). */
  domain: Record<string, string>;
  /** Each host's own fields in the crawl. */
  hosts: Map<string, Record<string, string>>;
  /** A packed domain's queued hosts: each one's folded queue (queue.lua's `Q`, as bytes). */
  queues: Map<string, Buffer>;
}

const DOMAIN_POS = ['enq', 'claimed', 'ok', 'bytes', 'ms', 'links'];
const HOST_POS = ['seq', 'id', 'ha', 'dn'];

function fields(text: string, pos: readonly string[]): Record<string, string> {
  const [body = '', ...extra] = text.split(';');
  const out: Record<string, string> = {};
  body.split(',').forEach((v, i) => {
    if (v !== '' && pos[i]) out[pos[i]!] = v;
  });
  for (const pair of extra) {
    const eq = pair.indexOf('=');
    if (eq > 0) out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

const COMMA = 0x2c;

/** Decodes an archive field's value (the format is archive.lua's header). */
export function decodeArchived(domain: string, value: Buffer): ArchivedDomain {
  const colon = value.indexOf(0x3a);
  const n = Number(value.subarray(0, colon).toString('latin1'));
  const fingerprints: string[] = [];
  for (let k = 0; k < n; k++) {
    fingerprints.push(value.readBigUInt64BE(colon + 1 + 8 * k).toString());
  }
  const textAt = colon + 1 + 8 * n;
  // A packed domain's queues follow its text after an empty line (no line is empty).
  const cut = value.indexOf('\n\n', textAt);
  const textEnd = cut < 0 ? value.length : cut;
  const [first = '', ...hostLines] = value.toString('utf8', textAt, textEnd).split('\n');
  const domainFields = { q: '0', ...fields(first, DOMAIN_POS), seen: String(n), f: '0' };
  const hosts = new Map<string, Record<string, string>>();
  const order: string[] = [];
  for (const line of hostLines) {
    const space = line.indexOf(' ');
    const rel = line.slice(0, space);
    const host = rel === '' ? domain : `${rel}.${domain}`;
    hosts.set(host, fields(line.slice(space + 1), HOST_POS));
    order.push(host);
  }
  const queues = new Map<string, Buffer>();
  let pos = cut < 0 ? value.length : cut + 2;
  while (pos < value.length) {
    const a = value.indexOf(COMMA, pos);
    const b = value.indexOf(COMMA, a + 1);
    const host = order[Number(value.toString('latin1', pos, a)) - 1];
    const end = b + 1 + Number(value.toString('latin1', a + 1, b));
    if (a < 0 || b < 0 || host === undefined || !(end <= value.length)) {
      throw new FrontierReplyError('archive.lua (packed queues)', value.toString());
    }
    queues.set(host, value.subarray(b + 1, end));
    pos = end;
  }
  return { fingerprints, domain: domainFields, hosts, queues };
}
