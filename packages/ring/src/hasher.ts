import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import xxhash from 'xxhash-wasm';
import { RingError, RingErrorCode } from './errors.js';
import { encodeUtf8 } from './utf8.js';

/**
 * An 86-byte WebAssembly module, assembled by hand, that imports `xxh64` and `mem` from
 * the xxhash-wasm instance and exports `h(ptr, len, seedLo, seedHi, out)`: it calls
 * `xxh64` and stores the 64-bit result at `out`. The i64 never crosses into JavaScript,
 * so no BigInt is created per hash; JS reads the two uint32 halves from memory.
 *
 * (module
 *   (import "x" "xxh64" (func $xxh64 (param i32 i32 i64) (result i64)))
 *   (import "x" "mem" (memory 1))
 *   (func (export "h") (param $ptr i32) (param $len i32) (param $seedLo i32)
 *                      (param $seedHi i32) (param $out i32)
 *     (i64.store (local.get $out)
 *       (call $xxh64 (local.get $ptr) (local.get $len)
 *         (i64.or (i64.shl (i64.extend_i32_u (local.get $seedHi)) (i64.const 32))
 *                 (i64.extend_i32_u (local.get $seedLo)))))))
 */
const SHIM_WASM = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  // type section: (i32 i32 i64) -> i64 ; (i32 i32 i32 i32 i32) -> ()
  0x01, 0x10, 0x02, 0x60, 0x03, 0x7f, 0x7f, 0x7e, 0x01, 0x7e, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f,
  0x7f, 0x00,
  // import section: x.xxh64 (func type 0), x.mem (memory min 1)
  0x02, 0x14, 0x02, 0x01, 0x78, 0x05, 0x78, 0x78, 0x68, 0x36, 0x34, 0x00, 0x00, 0x01, 0x78, 0x03,
  0x6d, 0x65, 0x6d, 0x02, 0x00, 0x01,
  // function section: one function of type 1
  0x03, 0x02, 0x01, 0x01,
  // export section: "h" = func 1
  0x07, 0x05, 0x01, 0x01, 0x68, 0x00, 0x01,
  // code section
  0x0a, 0x19, 0x01, 0x17, 0x00, 0x20, 0x04, 0x20, 0x00, 0x20, 0x01, 0x20, 0x03, 0xad, 0x42, 0x20,
  0x86, 0x20, 0x02, 0xad, 0x84, 0x10, 0x00, 0x37, 0x03, 0x00, 0x0b,
]);

/** Where the shim writes the 64-bit result (little-endian: lo word, then hi word). */
const OUT_OFFSET = 0;
const OUT_WORD = OUT_OFFSET >>> 2;
/** Where inputs are encoded; 4-byte aligned so a vnode index can be written as one uint32. */
const IN_OFFSET = 16;
const WASM_PAGE_BYTES = 65_536;

// The project's lib (ES2023, no DOM) does not declare WebAssembly; these are the parts used.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  instantiate(
    bytes: Uint8Array,
    imports?: Record<string, Record<string, unknown>>,
  ): Promise<{ instance: { exports: Record<string, unknown> } }>;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

type ShimHash = (ptr: number, len: number, seedLo: number, seedHi: number, out: number) => void;

/**
 * xxh64 over the wasm linear memory, reading results as (hi, lo) uint32 halves.
 * One instance per process (see {@link loadHasher}); not re-entrant, which is fine on
 * one JS thread because no call yields between writing the input and reading the result.
 */
export class Hasher {
  readonly #mem: WasmMemory;
  readonly #h: ShimHash;
  // Views are replaced whenever the memory grows (growing detaches the old buffer).
  #u8: Uint8Array;
  #u32: Uint32Array;
  /** High 32 bits of the last hash. */
  hi = 0;
  /** Low 32 bits of the last hash. */
  lo = 0;

  constructor(mem: WasmMemory, h: ShimHash) {
    this.#mem = mem;
    this.#h = h;
    this.#u8 = new Uint8Array(mem.buffer);
    this.#u32 = new Uint32Array(mem.buffer);
  }

  #ensure(inputBytes: number): void {
    const need = IN_OFFSET + inputBytes;
    if (need <= this.#u8.byteLength) return;
    this.#mem.grow(Math.ceil((need - this.#u8.byteLength) / WASM_PAGE_BYTES));
    this.#u8 = new Uint8Array(this.#mem.buffer);
    this.#u32 = new Uint32Array(this.#mem.buffer);
  }

  /** Hashes the UTF-8 bytes of `s`; the result is left in `hi` / `lo`. Allocates nothing. */
  hashString(s: string, seedLo = 0, seedHi = 0): void {
    // A UTF-16 code unit never needs more than 3 UTF-8 bytes.
    if (IN_OFFSET + s.length * 3 > this.#u8.byteLength) this.#ensure(s.length * 3);
    // Written out rather than shared with hashIndexed: this is the per-lookup path.
    this.#h(IN_OFFSET, encodeUtf8(s, this.#u8, IN_OFFSET), seedLo, seedHi, OUT_OFFSET);
    const out = this.#u32;
    this.lo = out[OUT_WORD]!;
    this.hi = out[OUT_WORD + 1]!;
  }

  /**
   * Writes `s` once after a 4-byte slot for a vnode index, so that {@link hashIndexed} can
   * hash `uint32le(i) ‖ utf8(s)` for many `i` without re-encoding. Returns the input length.
   */
  prepareIndexed(s: string): number {
    this.#ensure(4 + s.length * 3);
    return 4 + encodeUtf8(s, this.#u8, IN_OFFSET + 4);
  }

  /** Hashes `uint32le(index) ‖ utf8(s)` for the `s` given to the last {@link prepareIndexed}. */
  hashIndexed(index: number, len: number, seedLo: number, seedHi: number): void {
    const words = this.#u32;
    words[IN_OFFSET >>> 2] = index;
    this.#h(IN_OFFSET, len, seedLo, seedHi, OUT_OFFSET);
    this.lo = words[OUT_WORD]!;
    this.hi = words[OUT_WORD + 1]!;
  }
}

let loading: Promise<Hasher> | undefined;
let loaded: Hasher | undefined;

/** The process-wide hasher, instantiated on first use. */
export function getHasher(): Promise<Hasher> {
  loading ??= instantiate().then((hasher) => {
    loaded = hasher;
    return hasher;
  });
  return loading;
}

/**
 * Loads the xxh64 WebAssembly module once per process (later calls return at once).
 * `HashRing.create` awaits it for you; `new HashRing(...)` requires it to have resolved.
 */
export async function loadHasher(): Promise<void> {
  await getHasher();
}

/** The loaded hasher, or a `HASHER_NOT_LOADED` error when `loadHasher()` has not resolved. */
export function requireHasher(): Hasher {
  if (loaded === undefined) {
    throw new RingError(
      RingErrorCode.HASHER_NOT_LOADED,
      'the xxh64 module is not loaded yet: await loadHasher() (or use HashRing.create) first',
    );
  }
  return loaded;
}

async function instantiate(): Promise<Hasher> {
  // xxhash-wasm keeps its instance private and returns every 64-bit hash as a BigInt. Its
  // workerd build ships the very same bytes as a plain .wasm file, so we instantiate our
  // own copy and reach `xxh64` / `mem` directly through the shim.
  const entry = createRequire(import.meta.url).resolve('xxhash-wasm');
  const bytes = await readFile(join(dirname(entry), '..', 'workerd', 'xxhash.wasm'));
  const { instance } = await wasm.instantiate(bytes);
  const { xxh64, mem } = instance.exports as { xxh64: unknown; mem: WasmMemory };
  const shim = await wasm.instantiate(SHIM_WASM, { x: { xxh64, mem } });
  const hasher = new Hasher(mem, shim.instance.exports.h as ShimHash);

  // Cross-check against the library's public API, so a changed package layout or a wrong
  // shim fails loudly at startup instead of silently placing tokens differently.
  const reference = await xxhash();
  const probe = 'shardline ✓ ring';
  hasher.hashString(probe, 0x9e3779b9, 7);
  const ours = (BigInt(hasher.hi) << 32n) | BigInt(hasher.lo);
  if (ours !== reference.h64(probe, (7n << 32n) | 0x9e3779b9n)) {
    throw new Error('@shardline/ring: xxh64 shim disagrees with xxhash-wasm h64');
  }
  return hasher;
}
