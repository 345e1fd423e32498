import { describe, expect, it } from 'vitest';
import {
  decodeListCursor,
  decodeScoreCursor,
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
