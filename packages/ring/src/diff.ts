import { type HashRing, ringInternals } from './hash-ring.js';
import type { Hasher } from './hasher.js';

const TWO_32 = 4_294_967_296;
const TWO_64 = 2 ** 64;

/**
 * A range of ring positions whose owner changes: keys at positions `p` with
 * `start < p ≤ end` (when `start ≥ end` the range wraps: `p > start || p ≤ end`;
 * `start === end` is the whole ring). `null` stands for "no owner" (an empty ring).
 */
export interface MovedRange {
  start: bigint;
  end: bigint;
  from: string | null;
  to: string | null;
}

/** The owner change of one key between two rings. */
export interface OwnerChange {
  from: string | null;
  to: string | null;
}

/** Growable column of uint32 values, so the diff walk makes no object per segment. */
class U32Column {
  data = new Uint32Array(64);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  pop(): void {
    this.length--;
  }
  done(): Uint32Array {
    return this.data.slice(0, this.length);
  }
}

/**
 * What changes between two rings: the moved ranges, the moved fraction of the keyspace,
 * and a per-key test. Built by {@link diffRings}.
 */
export class RingDiff {
  /** Fraction of the 64-bit keyspace whose owner changes (0..1). */
  readonly movedFraction: number;
  /** Number of moved ranges. */
  readonly rangeCount: number;

  readonly #hasher: Hasher;
  // Moved ranges sorted by end position; at most the first one wraps.
  readonly #startHi: Uint32Array;
  readonly #startLo: Uint32Array;
  readonly #endHi: Uint32Array;
  readonly #endLo: Uint32Array;
  /** Owner indexes into #fromIds / #toIds; NO_OWNER for an empty ring. */
  readonly #from: Uint32Array;
  readonly #to: Uint32Array;
  readonly #fromIds: readonly string[];
  readonly #toIds: readonly string[];
  #ranges: readonly MovedRange[] | undefined;

  /** @internal Use {@link diffRings}. */
  constructor(
    hasher: Hasher,
    columns: { startHi: U32Column; startLo: U32Column; endHi: U32Column; endLo: U32Column },
    owners: {
      from: U32Column;
      to: U32Column;
      fromIds: readonly string[];
      toIds: readonly string[];
    },
  ) {
    this.#hasher = hasher;
    this.#startHi = columns.startHi.done();
    this.#startLo = columns.startLo.done();
    this.#endHi = columns.endHi.done();
    this.#endLo = columns.endLo.done();
    this.#from = owners.from.done();
    this.#to = owners.to.done();
    this.#fromIds = owners.fromIds;
    this.#toIds = owners.toIds;
    this.rangeCount = this.#endHi.length;
    let moved = 0;
    for (let r = 0; r < this.rangeCount; r++) {
      let len =
        (this.#endHi[r]! - this.#startHi[r]!) * TWO_32 + (this.#endLo[r]! - this.#startLo[r]!);
      if (len <= 0) len += TWO_64;
      moved += len;
    }
    this.movedFraction = moved / TWO_64;
  }

  /** The moved ranges in order of their end position (built on first access). */
  get ranges(): readonly MovedRange[] {
    this.#ranges ??= Object.freeze(
      Array.from({ length: this.rangeCount }, (_, r) =>
        Object.freeze({
          start: (BigInt(this.#startHi[r]!) << 32n) | BigInt(this.#startLo[r]!),
          end: (BigInt(this.#endHi[r]!) << 32n) | BigInt(this.#endLo[r]!),
          from: this.#name(this.#fromIds, this.#from[r]!),
          to: this.#name(this.#toIds, this.#to[r]!),
        }),
      ),
    );
    return this.#ranges;
  }

  #name(ids: readonly string[], index: number): string | null {
    return index === NO_OWNER ? null : ids[index]!;
  }

  /** Index of the moved range holding the key's position, or -1. */
  #rangeOf(key: string): number {
    const n = this.rangeCount;
    if (n === 0) return -1;
    this.#hasher.hashString(key);
    const hi = this.#hasher.hi;
    const lo = this.#hasher.lo;
    let a = 0;
    let b = n;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (less(this.#endHi[m]!, this.#endLo[m]!, hi, lo)) a = m + 1;
      else b = m;
    }
    const r = a === n ? 0 : a;
    const sHi = this.#startHi[r]!;
    const sLo = this.#startLo[r]!;
    const eHi = this.#endHi[r]!;
    const eLo = this.#endLo[r]!;
    const afterStart = less(sHi, sLo, hi, lo);
    const atOrBeforeEnd = !less(eHi, eLo, hi, lo);
    const wraps = !less(sHi, sLo, eHi, eLo);
    const inside = wraps ? afterStart || atOrBeforeEnd : afterStart && atOrBeforeEnd;
    return inside ? r : -1;
  }

  /** Whether `key` has a different owner in the two rings. */
  moved(key: string): boolean {
    return this.#rangeOf(key) !== -1;
  }

  /** The owner change of `key`, or `undefined` when its owner stays. */
  change(key: string): OwnerChange | undefined {
    const r = this.#rangeOf(key);
    if (r === -1) return undefined;
    return {
      from: this.#name(this.#fromIds, this.#from[r]!),
      to: this.#name(this.#toIds, this.#to[r]!),
    };
  }
}

const NO_OWNER = 0xffffffff;

function less(aHi: number, aLo: number, bHi: number, bLo: number): boolean {
  return aHi < bHi || (aHi === bHi && aLo < bLo);
}

/**
 * Compares two rings position by position and returns the ranges whose owner changes.
 * O(tokens of both rings). Key positions do not depend on the seed, so rings with
 * different seeds or vnodes can be compared too.
 */
export function diffRings(before: HashRing, after: HashRing): RingDiff {
  const a = ringInternals(before);
  const b = ringInternals(after);
  const nA = a.hi.length;
  const nB = b.hi.length;
  // Owner of `after` expressed as an index of `before`'s ids, to compare with one `!==`.
  const indexInA = new Map(a.ids.map((id, i) => [id, i]));
  const bToA = new Uint32Array(b.ids.length);
  for (let i = 0; i < b.ids.length; i++) bToA[i] = indexInA.get(b.ids[i]!) ?? NO_OWNER - 1;

  const cols = {
    startHi: new U32Column(),
    startLo: new U32Column(),
    endHi: new U32Column(),
    endLo: new U32Column(),
  };
  const owners = { from: new U32Column(), to: new U32Column(), fromIds: a.ids, toIds: b.ids };
  if (nA + nB === 0) return new RingDiff(a.hasher, cols, owners);

  // The last distinct position is the start of segment 0 (the one that wraps).
  let prevHi: number;
  let prevLo: number;
  {
    const lastA = nA > 0 ? [a.hi[nA - 1]!, a.lo[nA - 1]!] : undefined;
    const lastB = nB > 0 ? [b.hi[nB - 1]!, b.lo[nB - 1]!] : undefined;
    const last =
      lastA === undefined
        ? lastB!
        : lastB === undefined || less(lastB[0]!, lastB[1]!, lastA[0]!, lastA[1]!)
          ? lastA
          : lastB;
    prevHi = last[0]!;
    prevLo = last[1]!;
  }

  let i = 0;
  let j = 0;
  let segment = 0;
  let lastAppended = -2; // segment index last added to (or merged into) a range
  let firstRangeHasSegment0 = false;
  while (i < nA || j < nB) {
    // Next distinct position p; i and j are then the first tokens ≥ p of each ring.
    let pHi: number;
    let pLo: number;
    if (j >= nB || (i < nA && !less(b.hi[j]!, b.lo[j]!, a.hi[i]!, a.lo[i]!))) {
      pHi = a.hi[i]!;
      pLo = a.lo[i]!;
    } else {
      pHi = b.hi[j]!;
      pLo = b.lo[j]!;
    }
    const from = nA === 0 ? NO_OWNER : a.owner[i === nA ? 0 : i]!;
    const toOwn = nB === 0 ? NO_OWNER : b.owner[j === nB ? 0 : j]!;
    const toAsA = toOwn === NO_OWNER ? NO_OWNER : bToA[toOwn]!;
    if (from !== toAsA) {
      const last = owners.from.length - 1;
      if (
        lastAppended === segment - 1 &&
        owners.from.data[last] === from &&
        owners.to.data[last] === toOwn
      ) {
        cols.endHi.data[last] = pHi;
        cols.endLo.data[last] = pLo;
      } else {
        cols.startHi.push(prevHi);
        cols.startLo.push(prevLo);
        cols.endHi.push(pHi);
        cols.endLo.push(pLo);
        owners.from.push(from);
        owners.to.push(toOwn);
        if (segment === 0) firstRangeHasSegment0 = true;
      }
      lastAppended = segment;
    }
    while (i < nA && a.hi[i] === pHi && a.lo[i] === pLo) i++;
    while (j < nB && b.hi[j] === pHi && b.lo[j] === pLo) j++;
    prevHi = pHi;
    prevLo = pLo;
    segment++;
  }

  // The last segment ends where segment 0 starts: join the two when they moved alike.
  const count = owners.from.length;
  if (
    count >= 2 &&
    firstRangeHasSegment0 &&
    lastAppended === segment - 1 &&
    owners.from.data[0] === owners.from.data[count - 1] &&
    owners.to.data[0] === owners.to.data[count - 1]
  ) {
    cols.startHi.data[0] = cols.startHi.data[count - 1]!;
    cols.startLo.data[0] = cols.startLo.data[count - 1]!;
    for (const col of [
      cols.startHi,
      cols.startLo,
      cols.endHi,
      cols.endLo,
      owners.from,
      owners.to,
    ]) {
      col.pop();
    }
  }
  return new RingDiff(a.hasher, cols, owners);
}
