import { describe, expect, it } from 'vitest';
import { MembershipKeys } from '../src/index.js';

/** The hash tag Redis Cluster uses for a key (the whole key when there is none). */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = key.indexOf('}', open + 1);
  return open >= 0 && close > open + 1 ? key.slice(open + 1, close) : key;
}

describe('MembershipKeys', () => {
  it('puts every key in one slot through the {m} hash tag', () => {
    const k = new MembershipKeys('sl');
    const all = [
      k.members(),
      k.meta(),
      k.epoch(),
      k.config(),
      k.reclaim(),
      k.reclaimKinds(),
      k.reclaimLock('pod-a'),
      k.pulse(),
      k.sweepLock(),
      k.sweepCursor(),
      k.root(),
    ];
    expect(new Set(all.map(hashTag))).toEqual(new Set(['m']));
    expect(new Set(all).size).toBe(all.length);
  });

  it('builds lock keys the way the scripts do (root + suffix)', () => {
    const k = new MembershipKeys('x');
    expect(k.reclaimLock('pod-a')).toBe(`${k.root()}lock:pod-a`);
    expect(k.epochChannel()).toBe('x:m:epoch');
  });
});
