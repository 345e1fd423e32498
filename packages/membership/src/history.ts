/**
 * The ring's history: each epoch's member list and ring config, kept in one capped ZSET
 * (score = epoch) so a reader can tell which pod owned a domain at each epoch (the API's
 * domain page: owner history). Every pod records each view it applies; ZADD NX on an
 * identical member (the same epoch's view, spelled the same) makes that idempotent.
 */
import type { Cluster, Redis } from 'ioredis';
import type { MembershipKeys } from './keys.js';
import type { MembershipView } from './registry.js';

/** Epochs kept. */
export const RING_HISTORY_LENGTH = 50;

/** One epoch of the ring's history. */
export interface RingHistoryEntry {
  epoch: number;
  vnodes: number;
  seed: number;
  members: { id: string; weight: number }[];
}

/** Records `view` (no-op when its epoch is already recorded); trims to {@link RING_HISTORY_LENGTH}. */
export async function recordRingView(
  redis: Redis | Cluster,
  keys: MembershipKeys,
  view: MembershipView,
  defaults: { vnodes: number; seed: number },
): Promise<void> {
  const entry: RingHistoryEntry = {
    epoch: view.epoch,
    vnodes: view.vnodes ?? defaults.vnodes,
    seed: view.seed ?? defaults.seed,
    members: [...view.members]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((m) => ({ id: m.id, weight: m.weight })),
  };
  const added = await redis.zadd(keys.ringHistory(), 'NX', view.epoch, JSON.stringify(entry));
  if (Number(added) > 0) {
    await redis.zremrangebyrank(keys.ringHistory(), 0, -(RING_HISTORY_LENGTH + 1));
  }
}

/** The recorded epochs, newest first. */
export async function readRingHistory(
  redis: Redis | Cluster,
  keys: MembershipKeys,
  limit = RING_HISTORY_LENGTH,
): Promise<RingHistoryEntry[]> {
  const rows = (await redis.zrevrange(keys.ringHistory(), 0, limit - 1)) as string[];
  return rows.map((row) => JSON.parse(row) as RingHistoryEntry);
}
