import { describe, expect, it } from 'vitest';
import { sortTokens } from '../src/sort-tokens.js';

describe('sortTokens', () => {
  it('orders by hi, then lo, then owner, including equal positions', () => {
    let s = 99;
    const rand = () => {
      s = (s * 1_103_515_245 + 12_345) >>> 0;
      return s;
    };
    const n = 50_000;
    const hi = new Uint32Array(n);
    const lo = new Uint32Array(n);
    const owner = new Uint16Array(n);
    for (let i = 0; i < n; i++) {
      // Few distinct hi / lo values force many ties at every level.
      hi[i] = rand() % 3 === 0 ? 7 : rand();
      lo[i] = rand() % 5;
      owner[i] = rand() % 40;
    }
    const expected = Array.from({ length: n }, (_, i) => [hi[i]!, lo[i]!, owner[i]!] as const).sort(
      (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2],
    );
    sortTokens({ hi, lo, owner });
    const actual = Array.from({ length: n }, (_, i) => [hi[i]!, lo[i]!, owner[i]!] as const);
    expect(actual).toEqual(expected);
  });

  it('handles Uint32Array owners and tiny inputs', () => {
    const tokens = {
      hi: Uint32Array.from([5, 5, 1]),
      lo: Uint32Array.from([2, 2, 9]),
      owner: Uint32Array.from([70_000, 3, 1]),
    };
    sortTokens(tokens);
    expect([...tokens.hi]).toEqual([1, 5, 5]);
    expect([...tokens.owner]).toEqual([1, 3, 70_000]);
    const one = { hi: Uint32Array.of(1), lo: Uint32Array.of(1), owner: Uint16Array.of(0) };
    sortTokens(one);
    expect([...one.hi]).toEqual([1]);
  });
});
