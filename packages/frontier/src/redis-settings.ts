/**
 * The Redis settings the frontier's memory figures assume (docs/operations.md), read with
 * `CONFIG GET` so a pod can say once at start what to change. Correctness never depends on
 * them: a setting below what is wanted costs memory, nothing else.
 */
import type { Cluster, Redis } from 'ioredis';
import { FOLD_MAX_BYTES } from './host-queue.js';

/** The `hash-max-listpack-value` our own Redis configurations set (compose, k8s, CLI, tests). */
export const HASH_MAX_LISTPACK_VALUE = 1024;

/**
 * The `hash-max-listpack-entries` our own Redis configurations set: an archive hash stays a
 * listpack up to 512 archived domains, ~67 M in all (see {@link hashListpackEntriesShortfall}).
 */
export const HASH_MAX_LISTPACK_ENTRIES = 512;

/** A setting below what the frontier needs. */
export interface SettingShortfall {
  setting: string;
  /** The lowest value found (on a Cluster, over its masters). */
  value: number;
  /** The least value that serves. */
  needed: number;
  /** The value to set. */
  recommended: number;
}

/**
 * The `set-max-intset-entries` our own Redis configurations set: seen buckets of up to
 * {@link SEEN_BUCKET_LOAD_MAX} fingerprints on average stay intsets (see {@link seenLayoutFor}).
 */
export const SET_MAX_INTSET_ENTRIES = 2048;

/**
 * Largest mean seen-bucket size: its key's ~90 B are then ~0.1 B per fingerprint, and a split
 * (every member of one bucket read, half moved) stays within a few ms of one script.
 */
export const SEEN_BUCKET_LOAD_MAX = 800;

/** Most fingerprints kept inline in a domain hash: 8 B each, 1,024 B at 1,024. */
export const SEEN_INLINE_MAX = 128;

/**
 * How a domain's seen-set is laid out (seen.lua): `bucketLoad`, the mean fingerprints per
 * intset bucket before linear hashing splits one; `inlineMax`, the most fingerprints kept in
 * the domain hash before they move to a bucket.
 */
export interface SeenLayout {
  bucketLoad: number;
  inlineMax: number;
}

/**
 * The layout a server keeps compact: the fullest bucket of linear hashing holds ~2× the mean
 * (an unsplit bucket just before the split pointer wraps) plus its spread, so the mean is
 * `set-max-intset-entries` ÷ 2.56 (200 at Redis' default 512, 800 at 2,048) and no bucket
 * becomes a hashtable (~5× the memory); an inline set fits `hash-max-listpack-value` (8 at
 * Redis' default 64, 128 at 1,024) so the domain hash stays a listpack.
 */
export function seenLayoutFor(intsetEntries: number, listpackValue: number): SeenLayout {
  return {
    bucketLoad: Math.max(16, Math.min(SEEN_BUCKET_LOAD_MAX, Math.floor(intsetEntries / 2.56))),
    inlineMax: Math.max(0, Math.min(SEEN_INLINE_MAX, Math.floor(listpackValue / 8))),
  };
}

/**
 * The layout Redis' defaults keep compact, used when a server refuses `CONFIG`: the layout
 * every pod used before it was read from the server.
 */
export const FALLBACK_SEEN_LAYOUT: SeenLayout = { bucketLoad: 200, inlineMax: 63 };

/** The least value of `setting` over the server (on a Cluster, over its masters). */
async function lowestSetting(redis: Redis | Cluster, setting: string): Promise<number> {
  const servers = redis.isCluster ? (redis as Cluster).nodes('master') : [redis as Redis];
  let value = Number.POSITIVE_INFINITY;
  for (const server of servers) {
    const [, v] = (await server.config('GET', setting)) as string[];
    value = Math.min(value, Number(v));
  }
  return value;
}

/**
 * {@link seenLayoutFor} the server's settings (on a Cluster, the lowest over its masters).
 * Resolves `undefined` while a Cluster client knows no master yet; rejects when Redis refuses
 * `CONFIG`.
 */
export async function serverSeenLayout(redis: Redis | Cluster): Promise<SeenLayout | undefined> {
  const intset = await lowestSetting(redis, 'set-max-intset-entries');
  const listpack = await lowestSetting(redis, 'hash-max-listpack-value');
  if (!Number.isFinite(intset) || !Number.isFinite(listpack)) return undefined;
  return seenLayoutFor(intset, listpack);
}

/**
 * Whether Redis keeps a host hash with a folded queue (up to {@link FOLD_MAX_BYTES} in one
 * value) listpack-encoded: `hash-max-listpack-value` ≥ that; past it every such hash becomes
 * a hashtable, several times larger (a domain's inline seen-set follows the setting on its
 * own: {@link seenLayoutFor}). Resolves `undefined` when the setting serves; rejects when Redis refuses
 * `CONFIG` (managed services often do).
 */
export async function hashListpackShortfall(
  redis: Redis | Cluster,
): Promise<SettingShortfall | undefined> {
  const setting = 'hash-max-listpack-value';
  const value = await lowestSetting(redis, setting);
  if (!(value < FOLD_MAX_BYTES)) return undefined;
  return { setting, value, needed: FOLD_MAX_BYTES, recommended: HASH_MAX_LISTPACK_VALUE };
}

/**
 * Whether Redis keeps the archive hashes of finished domains listpack-encoded at scale:
 * there are 8 per Cluster slot (131,072 in all, keys.ts), so each holds ~1/131,072 of the
 * archived domains — 381 fields at 50 M — and `hash-max-listpack-entries` (128 by default)
 * must be ≥ that. Past it an archive hash becomes a hashtable: 136 B instead of 78 B per
 * archived domain (BENCHMARKS.md, wide). Resolves `undefined` when the setting serves;
 * rejects when Redis refuses `CONFIG`.
 */
export async function hashListpackEntriesShortfall(
  redis: Redis | Cluster,
): Promise<SettingShortfall | undefined> {
  const setting = 'hash-max-listpack-entries';
  const value = await lowestSetting(redis, setting);
  if (!(value < HASH_MAX_LISTPACK_ENTRIES)) return undefined;
  return {
    setting,
    value,
    needed: HASH_MAX_LISTPACK_ENTRIES,
    recommended: HASH_MAX_LISTPACK_ENTRIES,
  };
}
