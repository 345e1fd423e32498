import { RingError, RingErrorCode, show } from './errors.js';
import { type Hasher, loadHasher, requireHasher } from './hasher.js';
import {
  type HashRingOptions,
  MAX_TOKENS,
  type ResolvedMember,
  type RingMember,
  resolveMembers,
  resolveOptions,
  tokenCount,
} from './members.js';
import { sortTokens } from './sort-tokens.js';

/** What diff.ts needs from a ring; not exported from the package. */
export interface RingInternals {
  hi: Uint32Array;
  lo: Uint32Array;
  owner: Uint16Array | Uint32Array;
  ids: readonly string[];
  hasher: Hasher;
}

let readInternals: (ring: HashRing) => RingInternals;

/** Token arrays of `ring` (sorted by position); callers must not mutate them. */
export function ringInternals(ring: HashRing): RingInternals {
  return readInternals(ring);
}

const TWO_32 = 4_294_967_296;
const TWO_64 = 2 ** 64;
/** Largest bucket index: 2²⁰ buckets (4 MiB) already leave ~8 tokens per bucket at 2²³ tokens. */
const MAX_BUCKET_BITS = 20;

/**
 * A consistent-hash ring: a pure function of (members, weights, vnodes, seed). Immutable;
 * `add` / `remove` return a new ring.
 *
 * Token `i` of pod `p` sits at `xxh64(uint32le(i) ‖ utf8(p), seed)`; pod `p` has
 * `max(1, round(vnodes × weight))` tokens. A key sits at `xxh64(utf8(key), 0)` and belongs
 * to the first token at or after its position, wrapping past 2⁶⁴ − 1 to the first token.
 * Tokens at the same position are ordered by pod id, so the pod whose id sorts first wins.
 */
export class HashRing {
  /** Tokens per unit weight. */
  readonly vnodes: number;
  /** Seed of the token hashes. */
  readonly seed: number;
  /** Membership epoch carried with the ring; not part of the ownership function. */
  readonly epoch: number;
  /** Number of pods. */
  readonly size: number;
  /** Number of tokens (Σ tokens per pod). */
  readonly tokenCount: number;

  readonly #hasher: Hasher;
  /** Members sorted by id; owner indexes below point into this list. */
  readonly #members: readonly ResolvedMember[];
  readonly #ids: readonly string[];
  readonly #indexById: ReadonlyMap<string, number>;
  // Token positions sorted ascending by (hi, lo, owner index).
  readonly #hi: Uint32Array;
  readonly #lo: Uint32Array;
  readonly #owner: Uint16Array | Uint32Array;
  /** `#bucketStart[b]` = first token whose `hi >>> #shift` is ≥ b; length 2^bits + 1. */
  readonly #bucketStart: Uint32Array;
  readonly #shift: number;
  /** Scratch for `owners`: `#seen[p] === #stamp` marks pod p as already collected. */
  readonly #seen: Uint32Array;
  #stamp = 0;
  #fingerprint: string | undefined;

  /**
   * Builds a ring synchronously; `await loadHasher()` must have resolved first
   * (otherwise `SHARDLINE_ERR_RING_HASHER_NOT_LOADED`). Prefer {@link HashRing.create}.
   * @param members pod ids, or `{ id, weight }`; order does not matter.
   */
  constructor(members: Iterable<string | RingMember>, options?: HashRingOptions) {
    const resolved = resolveOptions(options);
    this.vnodes = resolved.vnodes;
    this.seed = resolved.seed;
    this.epoch = resolved.epoch;
    this.#members = Object.freeze(resolveMembers(members));
    this.#ids = Object.freeze(this.#members.map((m) => m.id));
    this.#indexById = new Map(this.#ids.map((id, i) => [id, i]));
    this.size = this.#members.length;
    this.#hasher = requireHasher();

    let total = 0;
    for (const m of this.#members) total += tokenCount(this.vnodes, m.weight);
    if (total > MAX_TOKENS) {
      throw new RingError(
        RingErrorCode.TOO_LARGE,
        `the ring would hold ${total} tokens (Σ vnodes × weight), more than ${MAX_TOKENS}; lower vnodes or the weights`,
      );
    }
    this.tokenCount = total;
    this.#hi = new Uint32Array(total);
    this.#lo = new Uint32Array(total);
    this.#owner = this.size <= 0x10000 ? new Uint16Array(total) : new Uint32Array(total);
    this.#seen = new Uint32Array(this.size);
    this.#fillTokens();
    sortTokens({ hi: this.#hi, lo: this.#lo, owner: this.#owner });

    const bits = Math.min(MAX_BUCKET_BITS, Math.max(1, Math.floor(Math.log2(Math.max(1, total)))));
    this.#shift = 32 - bits;
    this.#bucketStart = new Uint32Array((1 << bits) + 1);
    let t = 0;
    for (let b = 0; b <= 1 << bits; b++) {
      while (t < total && this.#hi[t]! >>> this.#shift < b) t++;
      this.#bucketStart[b] = t;
    }
  }

  /** Loads the hasher if needed, then builds the ring. */
  static async create(
    members: Iterable<string | RingMember>,
    options?: HashRingOptions,
  ): Promise<HashRing> {
    await loadHasher();
    return new HashRing(members, options);
  }

  #fillTokens(): void {
    const h = this.#hasher;
    const seedLo = this.seed >>> 0;
    const seedHi = Math.floor(this.seed / TWO_32) >>> 0;
    let at = 0;
    for (let p = 0; p < this.size; p++) {
      const member = this.#members[p]!;
      const len = h.prepareIndexed(member.id);
      const count = tokenCount(this.vnodes, member.weight);
      for (let i = 0; i < count; i++) {
        h.hashIndexed(i, len, seedLo, seedHi);
        this.#hi[at] = h.hi;
        this.#lo[at] = h.lo;
        this.#owner[at] = p;
        at++;
      }
    }
  }

  /** Index of the first token at or after (hi, lo), wrapping to 0. Ring must be non-empty. */
  #tokenAt(hi: number, lo: number): number {
    const bucket = hi >>> this.#shift;
    let a = this.#bucketStart[bucket]!;
    let b = this.#bucketStart[bucket + 1]!;
    const his = this.#hi;
    while (a < b) {
      const m = (a + b) >>> 1;
      const th = his[m]!;
      if (th < hi || (th === hi && this.#lo[m]! < lo)) a = m + 1;
      else b = m;
    }
    return a === this.tokenCount ? 0 : a;
  }

  #requireMembers(): void {
    if (this.size === 0) {
      throw new RingError(RingErrorCode.EMPTY, 'the ring has no members');
    }
  }

  /** The pod that owns `key` (a domain). Allocates nothing. */
  owner(key: string): string {
    if (this.size === 0) this.#requireMembers();
    const h = this.#hasher;
    h.hashString(key);
    return this.#ids[this.#owner[this.#tokenAt(h.hi, h.lo)]!]!;
  }

  /**
   * Up to `k` distinct pods for `key` in clockwise order; the first is `owner(key)`.
   * Returns all pods when `k` ≥ `size`.
   */
  owners(key: string, k: number): string[] {
    if (!Number.isInteger(k) || k < 1) {
      throw new RingError(
        RingErrorCode.INVALID_OPTION,
        `k must be a positive integer; got ${show(k)} (${typeof k})`,
      );
    }
    this.#requireMembers();
    const h = this.#hasher;
    h.hashString(key);
    const want = Math.min(k, this.size);
    const result: string[] = [];
    // A fresh stamp per call instead of clearing #seen; on wrap-around, clear once.
    if (++this.#stamp === 0xffffffff) {
      this.#seen.fill(0);
      this.#stamp = 1;
    }
    const stamp = this.#stamp;
    let t = this.#tokenAt(h.hi, h.lo);
    for (let walked = 0; result.length < want && walked < this.tokenCount; walked++) {
      const p = this.#owner[t]!;
      if (this.#seen[p] !== stamp) {
        this.#seen[p] = stamp;
        result.push(this.#ids[p]!);
      }
      if (++t === this.tokenCount) t = 0;
    }
    return result;
  }

  /** The 64-bit ring position of `key`. For diagnostics; allocates a BigInt. */
  position(key: string): bigint {
    const h = this.#hasher;
    h.hashString(key);
    return (BigInt(h.hi) << 32n) | BigInt(h.lo);
  }

  /** Members sorted by id, with their weights. */
  members(): RingMember[] {
    return this.#members.map((m) => ({ id: m.id, weight: m.weight }));
  }

  /** Pod ids sorted (UTF-16 code unit order). */
  ids(): readonly string[] {
    return this.#ids;
  }

  /** Whether `id` is on the ring. */
  has(id: string): boolean {
    return this.#indexById.has(id);
  }

  /** The weight of `id`, or `undefined` when it is not on the ring. */
  weight(id: string): number | undefined {
    const i = this.#indexById.get(id);
    return i === undefined ? undefined : this.#members[i]!.weight;
  }

  /**
   * Exact fraction of the 64-bit keyspace each pod owns (sums to 1). The expected share
   * of keys; the observed share of a key set also carries sampling noise.
   */
  shares(): Map<string, number> {
    const arc = new Float64Array(this.size);
    const n = this.tokenCount;
    for (let t = 0; t < n; t++) {
      // Token t owns (position of token t−1, position of token t]; token 0 owns the wrap.
      const prev = t === 0 ? n - 1 : t - 1;
      let len = (this.#hi[t]! - this.#hi[prev]!) * TWO_32 + (this.#lo[t]! - this.#lo[prev]!);
      if (t === 0) len += TWO_64;
      arc[this.#owner[t]!]! += len / TWO_64;
    }
    if (n === 1) arc[this.#owner[0]!] = 1;
    return new Map(this.#ids.map((id, i) => [id, arc[i]!]));
  }

  /**
   * A hex digest of (sorted members with weights, vnodes, seed). Two rings with the same
   * fingerprint assign every key identically; pods can compare it to detect disagreement.
   */
  get fingerprint(): string {
    if (this.#fingerprint === undefined) {
      const text = [
        'shardline-ring/1',
        String(this.vnodes),
        String(this.seed),
        ...this.#members.map((m) => `${m.id}\t${m.weight}`),
      ].join('\n');
      this.#hasher.hashString(text);
      this.#fingerprint =
        this.#hasher.hi.toString(16).padStart(8, '0') +
        this.#hasher.lo.toString(16).padStart(8, '0');
    }
    return this.#fingerprint;
  }

  /** A new ring with `members` added (same vnodes and seed, epoch + 1). */
  add(...members: (string | RingMember)[]): HashRing {
    for (const m of members) {
      const id = typeof m === 'string' ? m : m?.id;
      if (typeof id === 'string' && this.has(id)) {
        throw new RingError(
          RingErrorCode.DUPLICATE_MEMBER,
          `member id ${show(id)} is already on the ring`,
        );
      }
    }
    return new HashRing([...this.#members, ...members], this.#nextOptions());
  }

  /** A new ring without the pods `ids` (same vnodes and seed, epoch + 1). */
  remove(...ids: string[]): HashRing {
    const drop = new Set(ids);
    for (const id of drop) {
      if (!this.has(id)) {
        throw new RingError(
          RingErrorCode.UNKNOWN_MEMBER,
          `member id ${show(id)} is not on the ring`,
        );
      }
    }
    return new HashRing(
      this.#members.filter((m) => !drop.has(m.id)),
      this.#nextOptions(),
    );
  }

  #nextOptions(): HashRingOptions {
    return { vnodes: this.vnodes, seed: this.seed, epoch: this.epoch + 1 };
  }

  static {
    // Lets diff.ts read the token arrays without making them part of the public class.
    readInternals = (ring) => ({
      hi: ring.#hi,
      lo: ring.#lo,
      owner: ring.#owner,
      ids: ring.#ids,
      hasher: ring.#hasher,
    });
  }
}
