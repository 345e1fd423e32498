import { describe, expect, it } from 'vitest';
import { LruMap } from '../src/lru.js';

describe('LruMap', () => {
  it('evicts the least recently used key beyond its bound', () => {
    const lru = new LruMap<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now most recent
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
    expect(lru.size).toBe(2);
  });

  it('overwriting a key does not grow it', () => {
    const lru = new LruMap<string, number>(2);
    lru.set('a', 1);
    lru.set('a', 2);
    lru.set('b', 3);
    expect(lru.size).toBe(2);
    expect(lru.get('a')).toBe(2);
  });
});
