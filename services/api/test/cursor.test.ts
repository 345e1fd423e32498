import { describe, expect, it } from 'vitest';
import {
  decodeDeadLetterCursor,
  decodeListCursor,
  decodeScoreCursor,
  encodeDeadLetterCursor,
  encodeListCursor,
  encodeScoreCursor,
} from '../src/cursor.js';
import { HttpError } from '../src/errors.js';

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).statusCode).toBe(400);
    return (error as HttpError).code;
  }
  return undefined;
}

describe('score cursors', () => {
  it('round-trip and stay opaque URL-safe text', () => {
    const text = encodeScoreCursor({ sort: 'depth', score: 17, skip: 3 });
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeScoreCursor(text, 'depth')).toEqual({ sort: 'depth', score: 17, skip: 3 });
  });

  it('refuse another sort, garbage, tampering and list cursors', () => {
    const text = encodeScoreCursor({ sort: 'depth', score: 1, skip: 0 });
    expect(code(() => decodeScoreCursor(text, 'fetched'))).toBe('SHARDLINE_ERR_API_CURSOR');
    expect(code(() => decodeScoreCursor('%%%', 'depth'))).toBe('SHARDLINE_ERR_API_CURSOR');
    expect(code(() => decodeScoreCursor('bm90LWpzb24', 'depth'))).toBe('SHARDLINE_ERR_API_CURSOR');
    const negative = Buffer.from(
      JSON.stringify({ v: 1, t: 's', s: 'depth', c: 1, k: -1 }),
    ).toString('base64url');
    expect(code(() => decodeScoreCursor(negative, 'depth'))).toBe('SHARDLINE_ERR_API_CURSOR');
    const list = encodeListCursor({ key: 'a.example', offset: 0, length: 3 });
    expect(code(() => decodeScoreCursor(list, 'depth'))).toBe('SHARDLINE_ERR_API_CURSOR');
  });
});

describe('list cursors', () => {
  it('round-trip for their own key only', () => {
    const text = encodeListCursor({ key: 'a.example', offset: 50, length: 120 });
    expect(decodeListCursor(text, 'a.example')).toEqual({
      key: 'a.example',
      offset: 50,
      length: 120,
    });
    expect(code(() => decodeListCursor(text, 'b.example'))).toBe('SHARDLINE_ERR_API_CURSOR');
  });
});

describe('dead-letter cursors (all domains)', () => {
  it('round-trip, including the empty domain of a cursor that starts a domain', () => {
    for (const cursor of [
      { domain: 'a.example', score: 7, skip: 2, offset: 3, length: 9 },
      { domain: '', score: 1, skip: 0, offset: 0, length: 0 },
    ]) {
      const text = encodeDeadLetterCursor(cursor);
      expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeDeadLetterCursor(text)).toEqual(cursor);
    }
  });

  it('refuse score and list cursors, garbage and negative positions', () => {
    const score = encodeScoreCursor({ sort: 'depth', score: 1, skip: 0 });
    expect(code(() => decodeDeadLetterCursor(score))).toBe('SHARDLINE_ERR_API_CURSOR');
    const list = encodeListCursor({ key: 'a.example', offset: 0, length: 3 });
    expect(code(() => decodeDeadLetterCursor(list))).toBe('SHARDLINE_ERR_API_CURSOR');
    const dead = encodeDeadLetterCursor({ domain: 'a', score: 1, skip: 0, offset: 0, length: 0 });
    expect(code(() => decodeListCursor(dead, 'a'))).toBe('SHARDLINE_ERR_API_CURSOR');
    const negative = Buffer.from(
      JSON.stringify({ v: 1, t: 'x', d: 'a', c: 1, k: 0, o: -1, n: 0 }),
    ).toString('base64url');
    expect(code(() => decodeDeadLetterCursor(negative))).toBe('SHARDLINE_ERR_API_CURSOR');
    expect(code(() => decodeDeadLetterCursor('%%%'))).toBe('SHARDLINE_ERR_API_CURSOR');
  });
});
