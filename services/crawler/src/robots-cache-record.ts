/**
 * The robots.txt shared cache contract (the second level under the loader's LRU, Redis in the
 * pod) and the record it stores per origin, with the checks a read record must pass before
 * its answer is used.
 */
import { ROBOTS_CACHE_TTL_MS, RobotsTxt, type RobotsTxtJson } from '@shardline/robots';

/** What the shared cache stores per origin; `expiresAtMs` keeps a copy from outliving its fetch. */
export interface RobotsCacheRecord {
  v: 1;
  robots: RobotsTxtJson;
  /** Epoch ms of the fetch that produced `robots`. */
  fetchedAtMs: number;
  /** Epoch ms after which `robots` must be fetched again (≤ 24 h after `fetchedAtMs`). */
  expiresAtMs: number;
  /**
   * Consecutive fetches that found robots.txt unreachable (5xx, 429, network error), this one
   * included; absent when it was reachable. Lets the crawler give up on a host that stays
   * unreachable, whichever pod retried it before.
   */
  unreachable?: number;
}

/**
 * Second-level cache shared by pods (the pod backs it with Redis). `set` receives the TTL the
 * store should apply (e.g. `SET … PX ttlMs`). The loader counts its errors
 * (`stats().sharedCacheErrors`) and goes on: a broken cache costs a fetch, never a wrong answer.
 */
export interface RobotsSharedCache {
  get(origin: string): Promise<RobotsCacheRecord | undefined>;
  set(origin: string, record: RobotsCacheRecord, ttlMs: number): Promise<void>;
}

/** A shared record as the loader uses it; `fresh` false once it expired (its count still counts). */
export interface SharedRobots {
  robots: RobotsTxt;
  expiresAtMs: number;
  unreachable: number;
  fresh: boolean;
}

/**
 * Decodes a record read from the shared cache: `undefined` when absent or not a version-1
 * record. Throws when its rules do not parse (a corrupt record).
 */
export function decodeCacheRecord(
  record: RobotsCacheRecord | undefined,
  nowMs: number,
): SharedRobots | undefined {
  if (
    record?.v !== 1 ||
    typeof record.expiresAtMs !== 'number' ||
    typeof record.fetchedAtMs !== 'number'
  ) {
    return undefined;
  }
  // Never trust a stored expiry beyond 24 h from its fetch, whatever wrote it.
  const expiresAtMs = Math.min(record.expiresAtMs, record.fetchedAtMs + ROBOTS_CACHE_TTL_MS);
  const unreachable =
    Number.isSafeInteger(record.unreachable) && (record.unreachable as number) > 0
      ? (record.unreachable as number)
      : 0;
  return {
    robots: RobotsTxt.fromJSON(record.robots),
    expiresAtMs,
    unreachable,
    fresh: expiresAtMs > nowMs,
  };
}
