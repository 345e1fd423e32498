import { describe, expect, it } from 'vitest';
import { encodeUtf8 } from '../src/utf8.js';

function randomString(rand: () => number, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) {
    const r = rand();
    if (r < 0.6) s += String.fromCharCode(0x20 + Math.floor(rand() * 0x5f));
    else if (r < 0.75) s += String.fromCharCode(0x80 + Math.floor(rand() * 0x780));
    else if (r < 0.9) s += String.fromCharCode(0x800 + Math.floor(rand() * 0xf7ff));
    else s += String.fromCodePoint(0x10000 + Math.floor(rand() * 0xfffff));
  }
  return s;
}

function seeded(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4_294_967_296;
  };
}

describe('encodeUtf8', () => {
  const encoder = new TextEncoder();

  it('writes the same bytes as TextEncoder for mixed-plane strings', () => {
    const rand = seeded(7);
    const out = new Uint8Array(1024);
    for (let n = 0; n < 2000; n++) {
      const s = randomString(rand, Math.floor(rand() * 60));
      const written = encodeUtf8(s, out, 5);
      expect(out.subarray(5, 5 + written)).toEqual(encoder.encode(s));
    }
  });

  it('encodes lone surrogates as U+FFFD like TextEncoder', () => {
    const out = new Uint8Array(64);
    for (const s of ['\ud800', 'a\udc00b', '\udbff', 'x\ud83d', '\ud83d\ud83d\ude00']) {
      const written = encodeUtf8(s, out, 0);
      expect(out.subarray(0, written)).toEqual(encoder.encode(s));
    }
  });
});
