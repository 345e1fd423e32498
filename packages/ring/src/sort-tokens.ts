/** Ring tokens as parallel typed arrays: 64-bit position (hi, lo) and owner index. */
export interface TokenArrays {
  hi: Uint32Array;
  lo: Uint32Array;
  owner: Uint16Array | Uint32Array;
}

const RADIX_BITS = 16;
const RADIX = 1 << RADIX_BITS;

/**
 * Sorts tokens by (hi, lo, owner) in place. An LSD radix sort on `hi` (two 16-bit passes,
 * O(n), stable) does the bulk; runs of equal `hi` (about n²/2³³ of them) are then put in
 * (lo, owner) order by insertion sort. Comparison sorts of millions of 64-bit keys held in
 * two arrays would need an index permutation and a comparator call per step.
 */
export function sortTokens(tokens: TokenArrays): void {
  const n = tokens.hi.length;
  if (n < 2) return;
  const tmp: TokenArrays = {
    hi: new Uint32Array(n),
    lo: new Uint32Array(n),
    owner: tokens.owner instanceof Uint16Array ? new Uint16Array(n) : new Uint32Array(n),
  };
  radixPass(tokens, tmp, 0);
  radixPass(tmp, tokens, RADIX_BITS);
  fixEqualHiRuns(tokens);
}

function radixPass(from: TokenArrays, to: TokenArrays, shift: number): void {
  const n = from.hi.length;
  const counts = new Uint32Array(RADIX + 1);
  const hi = from.hi;
  for (let i = 0; i < n; i++) counts[((hi[i]! >>> shift) & (RADIX - 1)) + 1]!++;
  for (let d = 1; d <= RADIX; d++) counts[d]! += counts[d - 1]!;
  const lo = from.lo;
  const owner = from.owner;
  const toHi = to.hi;
  const toLo = to.lo;
  const toOwner = to.owner;
  for (let i = 0; i < n; i++) {
    const h = hi[i]!;
    const at = counts[(h >>> shift) & (RADIX - 1)]!++;
    toHi[at] = h;
    toLo[at] = lo[i]!;
    toOwner[at] = owner[i]!;
  }
}

function fixEqualHiRuns({ hi, lo, owner }: TokenArrays): void {
  const n = hi.length;
  let start = 0;
  while (start < n) {
    let end = start + 1;
    while (end < n && hi[end] === hi[start]) end++;
    if (end - start > 1) {
      for (let i = start + 1; i < end; i++) {
        const l = lo[i]!;
        const o = owner[i]!;
        let j = i - 1;
        while (j >= start && (lo[j]! > l || (lo[j] === l && owner[j]! > o))) {
          lo[j + 1] = lo[j]!;
          owner[j + 1] = owner[j]!;
          j--;
        }
        lo[j + 1] = l;
        owner[j + 1] = o;
      }
    }
    start = end;
  }
}
