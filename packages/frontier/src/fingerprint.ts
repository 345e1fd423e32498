/**
 * 64-bit fingerprints of canonical URLs for the seen-set: xxh64, top bit cleared so the
 * value is a non-negative int64 that Redis keeps in an intset. Collisions (a new URL
 * taken for seen) have probability ~n²/2^64 per domain: about 3e-8 for a million URLs.
 */
import xxhash from 'xxhash-wasm';

const { h64 } = await xxhash();
const MASK = (1n << 63n) - 1n;

/** Decimal fingerprint of a canonical URL, in [0, 2^63). */
export function fingerprint(url: string): string {
  return (h64(url) & MASK).toString();
}
