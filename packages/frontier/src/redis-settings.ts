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
 * Whether Redis keeps a host hash with a folded queue (up to {@link FOLD_MAX_BYTES} in one
 * value) and a domain hash with its inline seen-set (up to 504 B, seen.lua) listpack-encoded:
 * `hash-max-listpack-value` ≥ that. Past it every such hash becomes a hashtable, several
 * times larger. Resolves `undefined` when the setting serves; rejects when Redis refuses
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
