/**
 * The handoff of a pod's own due index after a ring change (or when it leaves): the entries
 * whose domain no longer belongs to the pod are reindexed to their owner; entries that stay
 * are not touched. Skipped when the ring diff shows no keyspace leaving the pod.
 */
import { diffRings, type HashRing } from '@shardline/ring';
import type { Cluster, Redis } from 'ioredis';
import type { HandoffReport } from './events.js';
import type { MembershipKeys } from './keys.js';
import { forEachLimited } from './limit.js';
import type { MembershipFrontier } from './options.js';

export interface HandoffDeps {
  redis: Redis | Cluster;
  keys: MembershipKeys;
  frontier: MembershipFrontier;
  /** The pod handing off its index. */
  self: string;
  /** Domains reindexed concurrently. */
  concurrency: number;
  /** Owner on the ring in use (the ring without `self` while it leaves). */
  ownerOf: (domain: string) => string;
  /** Whether `ring` is still the ring in use and `self` is not leaving (read after the scan). */
  staysOn: (ring: HashRing) => boolean;
}

/**
 * Moves the entries of `self`'s due index whose owner is no longer `self`; `undefined` when
 * the diff from `before` to `after` moves nothing away from it. A live pod on the stored
 * epoch evicts its own copies even when recently pinned (they would stay to the pin's end,
 * be reindexed again by its next handoff and forwarded by its claims, work that competes
 * with the hosts it keeps). A leaver, or a pod whose ring is already behind the registry,
 * only parks them: a newer ring may give a host back to it, and the pinned copy is then
 * what finds it again.
 */
export async function handOffOwnIndex(
  deps: HandoffDeps,
  before: HashRing | undefined,
  after: HashRing,
): Promise<HandoffReport | undefined> {
  const { frontier, self } = deps;
  if (before?.has(self) && after.has(self)) {
    const diff = diffRings(before, after);
    if (!diff.ranges.some((r) => r.from === self)) return undefined;
  }
  const t0 = performance.now();
  const [domains, stored] = await Promise.all([
    frontier.inspector.queuedDomainsOf(self),
    deps.redis.get(deps.keys.epoch()),
  ]);
  const moving = domains.filter((d) => deps.ownerOf(d) !== self);
  const evict = deps.staysOn(after) && after.has(self) && Number(stored) === after.epoch;
  const options = evict ? { evictFrom: self } : {};
  await forEachLimited(moving, deps.concurrency, (d) => frontier.reindex(d, options));
  return {
    epoch: after.epoch,
    pod: self,
    scanned: domains.length,
    moved: moving.length,
    durationMs: performance.now() - t0,
  };
}
