import { beforeAll, describe, expect, it } from 'vitest';
import xxhash from 'xxhash-wasm';
import { getHasher, type Hasher } from '../src/hasher.js';

let hasher: Hasher;
let reference: Awaited<ReturnType<typeof xxhash>>;

beforeAll(async () => {
  hasher = await getHasher();
  reference = await xxhash();
});

function ours(): bigint {
  return (BigInt(hasher.hi) << 32n) | BigInt(hasher.lo);
}

describe('Hasher', () => {
  it('hashString matches xxhash-wasm h64 for ASCII, non-ASCII and seeded input', () => {
    const inputs = [
      '',
      'a',
      'example.com',
      'bücher.de',
      'пример.рф',
      '例え.jp',
      '😀.ws',
      'x'.repeat(100),
    ];
    for (let i = 0; i < 500; i++) inputs.push(`site${i * 7919}.example.org`);
    for (const s of inputs) {
      hasher.hashString(s);
      expect(ours()).toBe(reference.h64(s));
      hasher.hashString(s, 0xdeadbeef, 0x01234567);
      expect(ours()).toBe(reference.h64(s, 0x01234567deadbeefn));
    }
  });

  it('hashIndexed hashes uint32le(index) followed by the UTF-8 id', () => {
    const encoder = new TextEncoder();
    for (const id of ['pod-0', 'crawler-7f9c5d-x2k4q', 'ポッド']) {
      const len = hasher.prepareIndexed(id);
      for (const index of [0, 1, 255, 256, 65_535, 4_294_967_295]) {
        const bytes = new Uint8Array(4 + encoder.encode(id).length);
        new DataView(bytes.buffer).setUint32(0, index, true);
        bytes.set(encoder.encode(id), 4);
        hasher.hashIndexed(index, len, 42, 0);
        expect(ours()).toBe(reference.h64Raw(bytes, 42n));
      }
    }
  });

  it('grows its memory for inputs beyond one wasm page and still agrees', () => {
    const long = 'ab€'.repeat(60_000);
    hasher.hashString(long);
    expect(ours()).toBe(reference.h64(long));
    hasher.hashString('after.grow');
    expect(ours()).toBe(reference.h64('after.grow'));
  });

  it('getHasher returns one shared instance', async () => {
    expect(await getHasher()).toBe(hasher);
  });
});
