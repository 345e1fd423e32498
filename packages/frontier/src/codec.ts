/**
 * Packing and decoding of what the scripts store: queue entries, lease ids, due-index
 * members and meta, dead letters, host state and domain counters. Lua only ever parses
 * the `<depth>,<attempt>,` prefix of an entry; the rest is opaque to it. Nothing outside
 * this package decodes these (readers get typed objects from `FrontierInspector`).
 */
import { FrontierArgumentError } from './errors.js';
import type { DeadLetter, DomainStats, HeldLease, HostState } from './read-types.js';
import type { Validators } from './types.js';

/**
 * A queue entry: `<depth>,<attempt>,<metaLength>,<meta><url>`; a URL with recrawl data has
 * `<metaLength>/<refetchMs>[/<validatorsLength>]` as its third field and its validators
 * (ASCII, {@link packValidators}) before the meta. Lua parses only the numbers and the
 * validators (lua/includes/recrawl.lua).
 */
export function packEntry(
  depth: number,
  attempt: number,
  meta: string,
  url: string,
  recrawl?: { refetchAfterMs: number; validators?: Validators },
): string {
  // Most entries are a link seen for the first time, no meta, no refetch: `<depth>|<url>`,
  // 4 B shorter per queued URL than `<depth>,0,0,<url>` (lua/includes/host.lua entry_parse).
  if (!recrawl && attempt === 0 && meta === '') return `${depth}|${url}`;
  if (!recrawl) return `${depth},${attempt},${meta.length},${meta}${url}`;
  const v = recrawl.validators ? packValidators(recrawl.validators) : '';
  const head = `${meta.length}/${recrawl.refetchAfterMs}${v ? `/${v.length}` : ''}`;
  return `${depth},${attempt},${head},${v}${meta}${url}`;
}

export interface DecodedEntry {
  depth: number;
  attempt: number;
  meta: string;
  url: string;
  /** The URL's own refetch interval, when it has one. */
  refetchAfterMs?: number;
  validators?: Validators;
}

export function unpackEntry(entry: string): DecodedEntry {
  const bar = entry.indexOf('|');
  if (bar > 0 && /^\d+$/.test(entry.slice(0, bar))) {
    return { depth: Number(entry.slice(0, bar)), attempt: 0, meta: '', url: entry.slice(bar + 1) };
  }
  const a = entry.indexOf(',');
  const b = entry.indexOf(',', a + 1);
  const c = entry.indexOf(',', b + 1);
  const [metaLength = 0, refetch, validatorsLength = 0] = entry
    .slice(b + 1, c)
    .split('/')
    .map(Number);
  const v = c + 1 + validatorsLength;
  const decoded: DecodedEntry = {
    depth: Number(entry.slice(0, a)),
    attempt: Number(entry.slice(a + 1, b)),
    meta: entry.slice(v, v + metaLength),
    url: entry.slice(v + metaLength),
  };
  if (refetch !== undefined) decoded.refetchAfterMs = refetch;
  if (validatorsLength > 0) decoded.validators = unpackValidators(entry.slice(c + 1, v));
  return decoded;
}

/** Unit separator between the stored validators (never in an ETag or a hash). */
const SEP = '\x1f';
const ETAG = /^[\x21-\x7e]{1,256}$/;
const HASH = /^[\w+/=-]{1,128}$/;

/**
 * Validators, compactly: `<etag>\x1f<lastModified epoch s>\x1f<contentHash>\x1f<capturedAt
 * epoch ms>`, empty parts for missing ones, trailing separators dropped. Values that are not
 * plain ASCII of a sane length (a hostile ETag) are left out rather than stored.
 */
export function packValidators(v: Validators): string {
  const etag = v.etag !== undefined && ETAG.test(v.etag) ? v.etag : '';
  const at = v.lastModified === undefined ? Number.NaN : Date.parse(v.lastModified);
  const lm = Number.isFinite(at) && at >= 0 ? String(Math.floor(at / 1000)) : '';
  const hash = v.contentHash !== undefined && HASH.test(v.contentHash) ? v.contentHash : '';
  const capturedAt = v.capturedAtMs;
  const captured =
    capturedAt !== undefined && Number.isSafeInteger(capturedAt) && capturedAt >= 0
      ? String(capturedAt)
      : '';
  const parts = [etag, lm, hash, captured];
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts.join(SEP);
}

export function unpackValidators(text: string): Validators {
  const [etag = '', lm = '', hash = '', captured = ''] = text.split(SEP);
  const out: Validators = {};
  if (etag) out.etag = etag;
  // Back to an IMF-fixdate, as If-Modified-Since wants it.
  if (lm) out.lastModified = new Date(Number(lm) * 1000).toUTCString();
  if (hash) out.contentHash = hash;
  if (/^\d{1,16}$/.test(captured)) out.capturedAtMs = Number(captured);
  return out;
}

/** Due-index member of a host: `<domain>/<host>` (neither can contain `/`). */
export function dueMember(domain: string, host: string): string {
  return `${domain}/${host}`;
}

export function parseDueMember(member: string): { domain: string; host: string } {
  const slash = member.indexOf('/');
  return { domain: member.slice(0, slash), host: member.slice(slash + 1) };
}

/** Parts of a lease id `<domain>/<host>/<n>`; the lease hash field is `<host>/<n>`. */
export interface LeaseIdParts {
  domain: string;
  host: string;
  field: string;
}

export function leaseId(domain: string, field: string): string {
  return `${domain}/${field}`;
}

export function parseLeaseId(id: string): LeaseIdParts {
  const parts = typeof id === 'string' ? id.split('/') : [];
  if (parts.length !== 3 || !parts[0] || !parts[1] || !/^\d+$/.test(parts[2] ?? '')) {
    throw new FrontierArgumentError('lease id', id, 'a lease id "<domain>/<host>/<n>"');
  }
  return { domain: parts[0], host: parts[1], field: `${parts[1]}/${parts[2]}` };
}

/** A lease as the host's lease hash holds it: `<deadline>,<holder>,<claimedAt>,<level>,<entry>`. */
export function unpackHeldLease(domain: string, field: string, value: string): HeldLease {
  const [deadline, pod, claimedAt, level] = value.split(',', 4);
  const head = `${deadline},${pod},${claimedAt},${level},`;
  const e = unpackEntry(value.slice(head.length));
  return {
    id: leaseId(domain, field),
    pod: pod ?? '',
    url: e.url,
    deadlineMs: Number(deadline),
    claimedAtMs: Number(claimedAt),
    priority: Number(level),
  };
}

/** A score as scripts return it: ms, `'inf'`, or `'park'`/`''` for none. */
export function parseScore(score: unknown): number | null {
  if (score === 'inf') return Number.POSITIVE_INFINITY;
  if (score === 'park' || score === '' || score === null || score === undefined) return null;
  return Number(score);
}

/** Due-index meta of a member: `<seq>:<pinUntilMs>` (see index-update-3.lua). */
export function parseDueMeta(meta: string | null | undefined): {
  seq: number;
  pinnedUntilMs: number;
} {
  const [seq = '', pin = ''] = (meta ?? '').split(':');
  return { seq: Number(seq), pinnedUntilMs: Number(pin) };
}

/** Longest failure message kept with a dead letter (characters). */
export const MAX_FAIL_MESSAGE = 300;

/** Longest failure reason kept (characters). */
const MAX_FAIL_REASON = 200;

/** Text with tabs and line breaks as spaces (a row's fields are tab-separated), at most `max` long. */
function rowText(text: string, max: number): string {
  return text.replace(/[\t\r\n]/g, ' ').slice(0, max);
}

/**
 * A dead letter's reason field: the reason, then its message after a line feed (neither
 * holds one, so the split is exact, and rows written before messages were kept read back
 * with an empty message).
 */
export function packFailReason(reason: string, message: string | undefined): string {
  const text = rowText(reason, MAX_FAIL_REASON);
  const words = message === undefined ? '' : rowText(message, MAX_FAIL_MESSAGE).trim();
  return words === '' ? text : `${text}\n${words}`;
}

/** A dead-letter row: `<host>\t<level>\t<reason>[\n<message>]\t<status>\t<atMs>\t<entry>`. */
export function unpackDeadLetter(domain: string, row: string): DeadLetter {
  const [host = '', level = '0', field = '', status = '0', at = '0'] = row.split('\t', 5);
  const cut = field.indexOf('\n');
  const reason = cut < 0 ? field : field.slice(0, cut);
  const message = cut < 0 ? '' : field.slice(cut + 1);
  let rest = row;
  for (let i = 0; i < 5; i++) rest = rest.slice(rest.indexOf('\t') + 1);
  const e = unpackEntry(rest);
  return {
    url: e.url,
    host,
    domain,
    priority: Number(level),
    depth: e.depth,
    attempt: e.attempt,
    reason,
    message,
    status: Number(status),
    atMs: Number(at),
    meta: e.meta,
  };
}

/** Fields of a host's state hash, by meaning (must match `lua/includes/host.lua`). */
export const HOST_STATE_FIELD = {
  queued: 'q',
  inFlight: 'f',
  nextAllowedAtMs: 'n',
  concurrency: 'c',
  delayMs: 'dl',
  crawlDelayMs: 'cd',
  backoffMs: 'bo',
  consecutiveFailures: 'fc',
  adaptiveDelayMs: 'ad',
  adaptiveReason: 'ar',
  blockedUntilMs: 'bu',
  crawlLimit: 'lim',
  fetched: 'dn',
} as const;

/** Host state fields shared by every crawl (host.lua: kept under the politeness root). */
const POLITENESS_FIELDS = ['n', 'dl', 'cd', 'bo', 'fc', 'ad', 'ar', 'bu'];

/**
 * A crawl's own hash with `fields` taken from the shared politeness hash instead (absent
 * there = absent): what the scripts read for a crawl other than the default one.
 */
export function withPoliteness(
  own: Record<string, string>,
  polite: Record<string, string>,
  fields: readonly string[] = POLITENESS_FIELDS,
): Record<string, string> {
  const out = { ...own };
  for (const field of fields) {
    if (polite[field] === undefined) delete out[field];
    else out[field] = polite[field];
  }
  return out;
}

const ADAPTIVE_REASON = { s: 'slow', e: 'errors' } as const;

/** Fields of a domain's counter hash read by more than one reader. */
export const DOMAIN_FIELD = { queued: 'q', inFlight: 'f' } as const;

function count(value: string | null | undefined): number {
  const n = Number(value ?? 0);
  return Number.isFinite(n) ? n : 0;
}

function optionalCount(value: string | undefined): number | null {
  return value === undefined ? null : count(value);
}

/** A host's state hash (HGETALL), decoded; absent fields are the script defaults. */
export function decodeHostState(
  domain: string,
  host: string,
  hash: Record<string, string>,
): HostState {
  const f = HOST_STATE_FIELD;
  return {
    domain,
    host,
    queued: count(hash[f.queued]),
    inFlight: count(hash[f.inFlight]),
    // Whole ms, rounded up: the scripts keep the µs of a slot reserved from a send time.
    nextAllowedAtMs: Math.ceil(count(hash[f.nextAllowedAtMs])),
    concurrency: optionalCount(hash[f.concurrency]),
    delayMs: optionalCount(hash[f.delayMs]),
    crawlDelayMs: count(hash[f.crawlDelayMs]),
    backoffMs: count(hash[f.backoffMs]),
    adaptiveDelayMs: count(hash[f.adaptiveDelayMs]),
    adaptiveReason: ADAPTIVE_REASON[hash[f.adaptiveReason] as keyof typeof ADAPTIVE_REASON] ?? null,
    blockedUntilMs: count(hash[f.blockedUntilMs]),
    consecutiveFailures: count(hash[f.consecutiveFailures]),
    crawlLimit: optionalCount(hash[f.crawlLimit]),
    fetched: count(hash[f.fetched]),
  };
}

/** A domain's counter hash (HGETALL) and its hosts, decoded. */
export function decodeDomainStats(
  domain: string,
  hash: Record<string, string>,
  hosts: string[],
): DomainStats {
  const n = (field: string) => Number(hash[field] ?? 0);
  return {
    domain,
    queued: n(DOMAIN_FIELD.queued),
    inFlight: n(DOMAIN_FIELD.inFlight),
    fetched: n('ok'),
    failed: n('err'),
    dead: n('dead'),
    duplicates: n('dup'),
    overCap: n('cap'),
    repeats: n('rep'),
    seen: n('seen'),
    enqueued: n('enq'),
    claimed: n('claimed'),
    released: n('released'),
    late: n('late'),
    bytes: n('bytes'),
    fetchMs: n('ms'),
    links: n('links'),
    scheduled: n('rs'),
    paused: hash.paused === '1',
    blockedUntilMs: n('bu'),
    budgetSpent: n('bn'),
    budgetRefillAtMs: n('be'),
    hosts: hosts.sort(),
    archived: false,
  };
}
