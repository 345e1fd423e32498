import { describe, expect, it } from 'vitest';
import {
  dueMember,
  leaseId,
  packEntry,
  packValidators,
  parseDueMember,
  parseLeaseId,
  parseScore,
  unpackEntry,
  unpackValidators,
} from '../src/codec.js';
import { FrontierArgumentError } from '../src/errors.js';

describe('queue entries', () => {
  it('round-trip depth, attempt, meta and URL, including commas and non-ASCII meta', () => {
    const url = 'https://example.com/a,b?c=1,2';
    for (const meta of ['', 'ref=x', 'a,b,c', 'é💥,1']) {
      expect(unpackEntry(packEntry(3, 2, meta, url))).toEqual({ depth: 3, attempt: 2, meta, url });
    }
  });

  it('start with the "<depth>,<attempt>," prefix the Lua scripts parse', () => {
    expect(packEntry(4, 1, 'm', 'https://x.test/')).toBe('4,1,1,mhttps://x.test/');
  });

  it('a first attempt without meta or refetch is the short "<depth>|<url>" (4 B less per URL)', () => {
    const url = 'https://x.test/a|b,c?d=1|2';
    expect(packEntry(2, 0, '', url)).toBe(`2|${url}`);
    expect(unpackEntry(`2|${url}`)).toEqual({ depth: 2, attempt: 0, meta: '', url });
    // A long entry whose URL holds a bar stays long.
    expect(unpackEntry(packEntry(2, 1, '', url))).toEqual({ depth: 2, attempt: 1, meta: '', url });
  });

  it('carry a refetch interval and validators, validators first (ASCII, parsed by Lua)', () => {
    const url = 'https://example.com/a,b/';
    const validators = {
      etag: 'W/"a,b"',
      lastModified: 'Wed, 21 Oct 2015 07:28:00 GMT',
      contentHash: 'x_Y-1=',
    };
    const entry = packEntry(1, 0, 'é,m', url, { refetchAfterMs: 60_000, validators });
    expect(entry).toBe(`1,0,3/60000/25,W/"a,b"\x1f1445412480\x1fx_Y-1=é,m${url}`);
    expect(unpackEntry(entry)).toEqual({
      depth: 1,
      attempt: 0,
      meta: 'é,m',
      url,
      refetchAfterMs: 60_000,
      validators,
    });
    expect(unpackEntry(packEntry(0, 0, '', url, { refetchAfterMs: 5 }))).toEqual({
      depth: 0,
      attempt: 0,
      meta: '',
      url,
      refetchAfterMs: 5,
    });
  });

  it('leave out validators that are not sane ASCII, keep the others', () => {
    const hostile = { etag: `"${'x'.repeat(300)}"`, lastModified: 'never', contentHash: 'ok' };
    expect(packValidators(hostile)).toBe('\x1f\x1fok');
    expect(packValidators({ etag: '"é"', contentHash: 'a b' })).toBe('');
    expect(
      unpackValidators(packValidators({ lastModified: 'Thu, 01 Jan 2026 00:00:00 GMT' })),
    ).toEqual({
      lastModified: 'Thu, 01 Jan 2026 00:00:00 GMT',
    });
  });

  it('keep the capture time to the millisecond, dropping one that is not a time', () => {
    const packed = packValidators({ etag: '"v1"', capturedAtMs: 1_767_225_600_123 });
    expect(packed).toBe('"v1"\x1f\x1f\x1f1767225600123');
    expect(unpackValidators(packed)).toEqual({ etag: '"v1"', capturedAtMs: 1_767_225_600_123 });
    expect(packValidators({ contentHash: 'h', capturedAtMs: -1 })).toBe('\x1f\x1fh');
    expect(packValidators({ contentHash: 'h', capturedAtMs: 1.5 })).toBe('\x1f\x1fh');
  });
});

describe('lease ids and due members', () => {
  it('round-trip', () => {
    const id = leaseId('example.com', 'www.example.com/17');
    expect(id).toBe('example.com/www.example.com/17');
    expect(parseLeaseId(id)).toEqual({
      domain: 'example.com',
      host: 'www.example.com',
      field: 'www.example.com/17',
    });
    expect(parseDueMember(dueMember('example.com', '[::1]'))).toEqual({
      domain: 'example.com',
      host: '[::1]',
    });
  });

  it('reject malformed lease ids with a typed error', () => {
    for (const bad of ['', 'a/b', 'a/b/c', 'a//1', 'a/b/1/2', 42]) {
      expect(() => parseLeaseId(bad as string)).toThrow(FrontierArgumentError);
    }
  });
});

describe('scores', () => {
  it('decode ms, inf and none', () => {
    expect(parseScore('1700000000123')).toBe(1_700_000_000_123);
    expect(parseScore('inf')).toBe(Number.POSITIVE_INFINITY);
    expect(parseScore('park')).toBeNull();
    expect(parseScore('')).toBeNull();
  });
});
