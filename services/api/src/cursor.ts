/**
 * Opaque paging cursors: base64url of a small JSON object. Clients pass back what they
 * got; anything else is a 400 (`SHARDLINE_ERR_API_CURSOR`), never a crash or a scan.
 */
import { ApiErrorCode, HttpError } from './errors.js';

/** Keyset position in a ZSET walked from the highest score down. */
export interface ScoreCursor {
  /** Which index the cursor walks (a cursor of one sort is refused by another). */
  sort: string;
  /** Score of the last item returned. */
  score: number;
  /** Items with exactly `score` already returned (ties are walked by offset). */
  skip: number;
}

/** Position in a LIST read newest first, with the length seen when paging started. */
export interface ListCursor {
  key: string;
  offset: number;
  /** List length at the first page: pushes since then shift positions by the difference. */
  length: number;
}

function encode(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function decode(text: string): Record<string, unknown> {
  const bad = () => new HttpError(400, ApiErrorCode.CURSOR, 'cursor is not one this API issued');
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(text)) throw bad();
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad();
    return value as Record<string, unknown>;
  } catch {
    throw bad();
  }
}

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

export function encodeScoreCursor(cursor: ScoreCursor): string {
  return encode({ v: 1, t: 's', s: cursor.sort, c: cursor.score, k: cursor.skip });
}

/** Decodes a score cursor issued for `sort`; throws a 400 `HttpError` otherwise. */
export function decodeScoreCursor(text: string, sort: string): ScoreCursor {
  const o = decode(text);
  if (o.v !== 1 || o.t !== 's' || !isCount(o.k) || typeof o.c !== 'number') {
    throw new HttpError(400, ApiErrorCode.CURSOR, 'cursor is not one this API issued');
  }
  if (o.s !== sort) {
    throw new HttpError(
      400,
      ApiErrorCode.CURSOR,
      `cursor was issued for sort=${String(o.s)}, not sort=${sort}`,
    );
  }
  return { sort, score: o.c, skip: o.k };
}

export function encodeListCursor(cursor: ListCursor): string {
  return encode({ v: 1, t: 'l', d: cursor.key, o: cursor.offset, n: cursor.length });
}

/** Decodes a list cursor issued for `key`; throws a 400 `HttpError` otherwise. */
export function decodeListCursor(text: string, key: string): ListCursor {
  const o = decode(text);
  if (o.v !== 1 || o.t !== 'l' || !isCount(o.o) || !isCount(o.n) || o.d !== key) {
    throw new HttpError(
      400,
      ApiErrorCode.CURSOR,
      'cursor is not one this API issued for this list',
    );
  }
  return { key, offset: o.o, length: o.n };
}

/**
 * Position in the dead letters of all domains: a domain of the dead-letter domains index
 * (walked from the most dead letters down, keyset `score`/`skip` as in {@link ScoreCursor})
 * and a {@link ListCursor}-like position inside that domain's list.
 */
export interface DeadLetterCursor {
  /** The domain to continue in (a different domain at that position restarts at 0). */
  domain: string;
  /** Its score in the dead-letter domains index when the cursor was issued. */
  score: number;
  /** Domains with exactly `score` that come before it. */
  skip: number;
  /** Dead letters of the domain already returned. */
  offset: number;
  /** The domain's list length when its first letters were returned. */
  length: number;
}

export function encodeDeadLetterCursor(cursor: DeadLetterCursor): string {
  return encode({
    v: 1,
    t: 'x',
    d: cursor.domain,
    c: cursor.score,
    k: cursor.skip,
    o: cursor.offset,
    n: cursor.length,
  });
}

/** Decodes a cursor of the all-domains dead-letter listing; throws a 400 `HttpError` otherwise. */
export function decodeDeadLetterCursor(text: string): DeadLetterCursor {
  const o = decode(text);
  if (
    o.v !== 1 ||
    o.t !== 'x' ||
    typeof o.d !== 'string' ||
    typeof o.c !== 'number' ||
    !isCount(o.k) ||
    !isCount(o.o) ||
    !isCount(o.n)
  ) {
    throw new HttpError(
      400,
      ApiErrorCode.CURSOR,
      'cursor is not one this API issued for the dead letters of all domains',
    );
  }
  return { domain: o.d, score: o.c, skip: o.k, offset: o.o, length: o.n };
}
