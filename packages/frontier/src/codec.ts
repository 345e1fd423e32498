/**
 * Packing of queue entries, lease ids and due-index members. Lua only ever parses the
 * `<depth>,<attempt>,` prefix of an entry; the rest is opaque to it.
 */
import { FrontierArgumentError } from './errors.js';

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
