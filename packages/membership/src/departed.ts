/**
 * Pods that left the membership but are still known to the frontier (its pods set). After a
 * scale-down their due indexes could keep entries for good: copies parked there by a
 * reindex while pinned (the pin outlived the leaver's handoff and the survivor's reclaim,
 * and nobody looked again), or real work enqueued by a pod whose ring was a moment old.
 * Nobody claims from a departed index, so both kinds are moved to their owner's index here
 * (reindex with `evictFrom`: the owner gets the host re-scored from its state, the departed
 * copy goes) on the next heartbeat of any live pod, and a departed pod whose index stayed
 * empty for the retention period is forgotten (`frontier.forgetPod`), so it drops out of
 * `pods`, `/metrics` and the dashboard.
 */
import type { Cluster, Redis } from 'ioredis';
import type { MembershipKeys } from './keys.js';
import { forEachLimited } from './limit.js';
import type { MembershipFrontier } from './options.js';

/** Emitted after a tidy that moved or forgot something. */
export interface DepartedReport {
  /** Departed pods whose due index held entries, with the domains moved to their owners. */
  moved: { pod: string; domains: number }[];
  /** Departed pods forgotten (empty index for the whole retention period). */
  forgotten: string[];
}

export interface DepartedTidyDeps {
  redis: Redis | Cluster;
  keys: MembershipKeys;
  frontier: MembershipFrontier;
  concurrency: number;
  retentionMs: number;
}

async function redisNowMs(redis: Redis | Cluster): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/**
 * One pass over the departed pods: every pod of the frontier's pods set that is neither in
 * `members` (the ring) nor in `skip` (its reclaim is pending or running: the reclaim moves
 * its index and requeues its leases first).
 */
export async function tidyDeparted(
  deps: DepartedTidyDeps,
  members: ReadonlySet<string>,
  skip: ReadonlySet<string>,
): Promise<DepartedReport> {
  const { redis, keys, frontier } = deps;
  const report: DepartedReport = { moved: [], forgotten: [] };
  // Members as the registry has them now (a pod that just joined may not be on our ring yet).
  const registered = (await redis.zrange(keys.members(), 0, -1)) as string[];
  const live = new Set([...members, ...registered]);
  const known = await frontier.inspector.pods();
  const departedAt = keys.departed();
  // A departure record of a pod that came back is void.
  const recorded = (await redis.hkeys(departedAt)) as string[];
  const back = recorded.filter((pod) => live.has(pod));
  if (back.length > 0) await redis.hdel(departedAt, ...back);
  const departed = known.filter((pod) => !live.has(pod) && !skip.has(pod));
  if (departed.length === 0) return report;
  const now = await redisNowMs(redis);
  for (const pod of departed) {
    // Its backlog (packed domains) into its index first: the reindex reads and empties that.
    await frontier.spillBacklog(pod);
    const domains = await frontier.inspector.queuedDomainsOf(pod);
    if (domains.length > 0) {
      await forEachLimited(domains, deps.concurrency, (d) =>
        frontier.reindex(d, { evictFrom: pod }),
      );
      report.moved.push({ pod, domains: domains.length });
      // Held work just now: the retention starts again once it is empty.
      await redis.hset(departedAt, pod, String(now));
      continue;
    }
    // First seen empty: the retention starts now (HSETNX keeps an earlier start).
    await redis.hsetnx(departedAt, pod, String(now));
    const since = Number(await redis.hget(departedAt, pod));
    if (now - since < deps.retentionMs) continue;
    // Whoever deletes the record forgets the pod (several live pods may tidy at once).
    if ((await redis.hdel(departedAt, pod)) === 0) continue;
    if (await frontier.forgetPod(pod)) report.forgotten.push(pod);
  }
  return report;
}
