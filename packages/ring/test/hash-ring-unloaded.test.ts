import { describe, expect, it } from 'vitest';
import { HashRing, RingErrorCode } from '../src/index.js';

// Runs in its own module context (vitest isolates files), before anything loads the hasher.
describe('HashRing constructor before loadHasher', () => {
  it('throws HASHER_NOT_LOADED, and HashRing.create works', async () => {
    expect(() => new HashRing(['a'])).toThrow(
      expect.objectContaining({ code: RingErrorCode.HASHER_NOT_LOADED }),
    );
    const ring = await HashRing.create(['a']);
    expect(ring.owner('example.com')).toBe('a');
    expect(new HashRing(['b']).owner('example.com')).toBe('b');
  });
});
