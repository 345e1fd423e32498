/**
 * Packing and decoding of what the scripts store: queue entries, lease ids, due-index
 * members and meta, dead letters, host state and domain counters. Lua only ever parses
 * the `<depth>,<attempt>,` prefix of an entry; the rest is opaque to it. Nothing outside
 * this package decodes these (readers get typed objects from `FrontierInspector`).
 */
import { FrontierArgumentError } from './errors.js';
import type { DeadLetter, DomainStats, HostState } from './types.js';

/** A queue entry: `<depth>,<attempt>,<metaLength>,<meta><url>`. */
export function packEntry(depth: number, attempt: number, meta: string, url: string): string {
  return `${depth},${attempt},${meta.length},${meta}${url}`;
}

export interface DecodedEntry {
  depth: number;
  attempt: number;
  meta: string;
  url: string;
}

export function unpackEntry(entry: string): DecodedEntry {
  const a = entry.indexOf(',');
  const b = entry.indexOf(',', a + 1);
  const c = entry.indexOf(',', b + 1);
  const metaLength = Number(entry.slice(b + 1, c));
  return {
    depth: Number(entry.slice(0, a)),
    attempt: Number(entry.slice(a + 1, b)),
    meta: entry.slice(c + 1, c + 1 + metaLength),
    url: entry.slice(c + 1 + metaLength),
  };
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

/** A score as scripts return it: ms, `'inf'`, or `'park'`/`''` for none. */
export function parseScore(score: unknown): number | null {
  if (score === 'inf') return Number.POSITIVE_INFINITY;
  if (score === 'park' || score === '' || score === null || score === undefined) return null;
  return Number(score);
}

/** Due-index meta of a member: `<seq>:<pinUntilMs>` (see index-update-2.lua). */
export function parseDueMeta(meta: string | null | undefined): {
  seq: number;
  pinnedUntilMs: number;
} {
  const [seq = '', pin = ''] = (meta ?? '').split(':');
  return { seq: Number(seq), pinnedUntilMs: Number(pin) };
}

/** A dead-letter row: `<host>\t<level>\t<reason>\t<status>\t<atMs>\t<entry>`. */
export function unpackDeadLetter(domain: string, row: string): DeadLetter {
  const [host = '', level = '0', reason = '', status = '0', at = '0'] = row.split('\t', 5);
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
} as const;

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
    nextAllowedAtMs: count(hash[f.nextAllowedAtMs]),
    concurrency: optionalCount(hash[f.concurrency]),
    delayMs: optionalCount(hash[f.delayMs]),
    crawlDelayMs: count(hash[f.crawlDelayMs]),
    backoffMs: count(hash[f.backoffMs]),
    adaptiveDelayMs: count(hash[f.adaptiveDelayMs]),
    adaptiveReason: ADAPTIVE_REASON[hash[f.adaptiveReason] as keyof typeof ADAPTIVE_REASON] ?? null,
    blockedUntilMs: count(hash[f.blockedUntilMs]),
    consecutiveFailures: count(hash[f.consecutiveFailures]),
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
    paused: hash.paused === '1',
    blockedUntilMs: n('bu'),
    hosts: hosts.sort(),
  };
}
