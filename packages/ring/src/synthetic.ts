const TLDS = ['com', 'org', 'net', 'de', 'co.uk', 'io', 'fr', 'nl', 'com.au', 'jp'];
const SYLLABLES = ['ka', 'lo', 'mi', 'ra', 'ten', 'vo', 'shi', 'po', 'dex', 'na', 'qu', 'zen'];

/**
 * A deterministic, duplicate-free list of `count` plausible registrable domains
 * (`kalomi-3f9a2c.co.uk`), for planning and measuring a ring when no real domain list is at
 * hand. The same (count, seed) always gives the same list.
 */
export function syntheticDomains(count: number, seed = 0): string[] {
  if (!Number.isInteger(count) || count < 0) {
    throw new RangeError(`count must be a non-negative integer; got ${count}`);
  }
  let state = (seed ^ 0x9e3779b9) >>> 0 || 1;
  // xorshift32: fast, seedable, and good enough to vary names; uniqueness comes from `i`.
  const next = (): number => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
  const out: string[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const r = next();
    const word = SYLLABLES[r % 12]! + SYLLABLES[(r >>> 4) % 12]! + SYLLABLES[(r >>> 8) % 12]!;
    out[i] = `${word}-${i.toString(36)}.${TLDS[(r >>> 12) % TLDS.length]!}`;
  }
  return out;
}
