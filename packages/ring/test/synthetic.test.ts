import { describe, expect, it } from 'vitest';
import { syntheticDomains } from '../src/synthetic.js';

describe('syntheticDomains', () => {
  it('is deterministic per seed and duplicate-free', () => {
    const a = syntheticDomains(20_000, 3);
    expect(syntheticDomains(20_000, 3)).toEqual(a);
    expect(new Set(a).size).toBe(20_000);
    expect(syntheticDomains(100, 4)).not.toEqual(a.slice(0, 100));
    for (const d of a.slice(0, 200)) expect(d).toMatch(/^[a-z]+-[0-9a-z]+\.[a-z.]+$/);
  });

  it('rejects a bad count', () => {
    expect(() => syntheticDomains(-1)).toThrow(RangeError);
    expect(() => syntheticDomains(1.5)).toThrow(RangeError);
  });
});
