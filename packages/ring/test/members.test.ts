import { beforeAll, describe, expect, it } from 'vitest';
import { HashRing, loadHasher, MAX_TOKENS, RingErrorCode } from '../src/index.js';

beforeAll(async () => {
  await loadHasher();
});

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

describe('validation', () => {
  it('rejects duplicate member ids, in any order and form', () => {
    expect(codeOf(() => new HashRing(['a', 'b', 'a']))).toBe(RingErrorCode.DUPLICATE_MEMBER);
    expect(codeOf(() => new HashRing([{ id: 'a', weight: 2 }, 'a']))).toBe(
      RingErrorCode.DUPLICATE_MEMBER,
    );
  });

  it('rejects weights that are not finite numbers > 0, naming the member', () => {
    for (const weight of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '2' as unknown as number]) {
      expect(() => new HashRing([{ id: 'pod-1', weight }])).toThrow(
        expect.objectContaining({
          code: RingErrorCode.INVALID_OPTION,
          message: expect.stringContaining('weight of member "pod-1"'),
        }),
      );
    }
  });

  it('rejects vnodes that are not a positive integer, naming option, value and type', () => {
    for (const vnodes of [0, -3, 1.5, Number.NaN, '10' as unknown as number, 2 ** 21]) {
      expect(codeOf(() => new HashRing(['a'], { vnodes }))).toBe(RingErrorCode.INVALID_OPTION);
    }
    expect(() => new HashRing(['a'], { vnodes: '10' as unknown as number })).toThrow(
      'HashRingOptions.vnodes must be an integer from 1 to 1048576; got "10" (string)',
    );
  });

  it('rejects a bad seed or epoch', () => {
    expect(codeOf(() => new HashRing(['a'], { seed: -1 }))).toBe(RingErrorCode.INVALID_OPTION);
    expect(codeOf(() => new HashRing(['a'], { seed: 2 ** 60 }))).toBe(RingErrorCode.INVALID_OPTION);
    expect(codeOf(() => new HashRing(['a'], { epoch: 0.5 }))).toBe(RingErrorCode.INVALID_OPTION);
  });

  it('rejects bad member ids', () => {
    for (const id of ['', 'a\nb', 'x'.repeat(256), 42, null]) {
      expect(codeOf(() => new HashRing([{ id } as { id: string }]))).toBe(
        RingErrorCode.INVALID_MEMBER,
      );
    }
    expect(codeOf(() => new HashRing('abc' as unknown as string[]))).toBe(
      RingErrorCode.INVALID_OPTION,
    );
  });

  it('refuses rings beyond MAX_TOKENS', () => {
    expect(
      codeOf(() => new HashRing([{ id: 'a', weight: MAX_TOKENS / 1000 + 1 }], { vnodes: 1000 })),
    ).toBe(RingErrorCode.TOO_LARGE);
  });

  it('accepts the largest seed and any id characters outside the control range', () => {
    const ring = new HashRing(['naïve-pod', 'pod:1/ü'], {
      seed: Number.MAX_SAFE_INTEGER,
      vnodes: 8,
    });
    expect(ring.ids()).toEqual(['naïve-pod', 'pod:1/ü']);
  });
});
