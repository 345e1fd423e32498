/**
 * The reclaim of one removed pod by a survivor: take the pod's reclaim lock (one survivor
 * works, the lock renewed while it does; a holder that dies lets it lapse to another), requeue
 * or dead-letter its leases unless it released them itself when leaving (found through its
 * own due index), move every domain of that index to the owners, and mark the reclaim done.
 */
import type { ReclaimReport } from './events.js';
import { forEachLimited } from './limit.js';
import type { MembershipFrontier } from './options.js';
import type { Registry } from './registry.js';

export interface ReclaimDeps {
  registry: Pick<Registry, 'reclaimClaim' | 'reclaimDone'>;
  frontier: MembershipFrontier;
  /** The reclaiming pod. */
  self: string;
  /** The epoch of the reclaiming pod's ring, read at each lock renewal. */
  epoch: () => number;
  lockMs: number;
  concurrency: number;
  /** A failed lock renewal: the lock may lapse to another survivor mid-reclaim. */
  onError: (error: unknown) => void;
}

/** Reclaims `pod`; `undefined` when another survivor holds the lock or finished first. */
export async function reclaimRemovedPod(
  deps: ReclaimDeps,
  pod: string,
): Promise<ReclaimReport | undefined> {
  const { registry, frontier, self, lockMs } = deps;
  const claim = await registry.reclaimClaim(pod, self, deps.epoch(), lockMs);
  if (!claim.granted) return undefined;
  const t0 = performance.now();
  const renew = setInterval(
    () => {
      registry.reclaimClaim(pod, self, deps.epoch(), lockMs).catch(deps.onError);
    },
    Math.max(50, Math.floor(lockMs / 3)),
  );
  try {
    // Leases first: reclaimPod finds them through the pod's own index, which the evicting
    // reindex below empties.
    const leases =
      claim.kind === 'left-released'
        ? { requeued: 0, deadLettered: 0 }
        : await frontier.reclaimPod(pod);
    // Its backlog (packed domains) into its index, which the reindex below reads and empties.
    await frontier.spillBacklog(pod);
    const domains = await frontier.inspector.queuedDomainsOf(pod);
    // Evict the removed pod's copies: the same reindex has just placed each host, re-scored,
    // in its owner's index, and nobody claims from a removed pod's index.
    await forEachLimited(domains, deps.concurrency, (d) => frontier.reindex(d, { evictFrom: pod }));
    if (!(await registry.reclaimDone(pod, self))) return undefined;
    return {
      pod,
      kind: claim.kind,
      domains: domains.length,
      ...leases,
      durationMs: performance.now() - t0,
    };
  } finally {
    clearInterval(renew);
  }
}
