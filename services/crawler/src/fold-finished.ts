/**
 * Folding a finished crawl's last domains before an idle exit. A small domain whose last URL
 * was fetched is folded into its archive field (~70 B instead of ~1.2 KB of keys) by the claim
 * visit that parks its host at the end of the host's index pin (`pinMs`, 30 s by default). A pod
 * exiting when idle stops before those visits, so the domains finished in its last 30 s stayed
 * live until a pod of the crawl ran again. Before it exits, the pod now visits those hosts at
 * once (a claim of named hosts, due or not): each visit parks its host and folds its domain when
 * the frontier's archive rules allow (its next request allowed, nothing queued or out). Visiting
 * early is safe: a URL that arrives meanwhile unfolds the domain again, as for any archived one.
 */
import type { RedisFrontier } from '@shardline/frontier';

/** Due entries read per page, and hosts per claim (the frontier's bound on named hosts). */
const PAGE = 1000;
const HOSTS_PER_CLAIM = 100;
/** Most finished hosts visited at one exit: the domains finished within the last pin. */
const MAX_VISITS = 100_000;

/**
 * Visits `pod`'s finished hosts (entries waiting for their pin's end). Returns `false` when a
 * visit found work after all (a URL queued since the crawl looked idle): its leases are given
 * back and the pod must not exit.
 */
export async function foldFinishedDomains(
  frontier: Pick<RedisFrontier, 'claim' | 'release' | 'inspector'>,
  pod: string,
): Promise<boolean> {
  const hosts: string[] = [];
  for (let offset = 0; hosts.length < MAX_VISITS; offset += PAGE) {
    const entries = await frontier.inspector.dueEntries(pod, { offset, limit: PAGE });
    // At the pin's end and not before: a host that waits for anything else is not finished.
    for (const e of entries)
      if (e.pinnedUntilMs > 0 && e.dueAtMs === e.pinnedUntilMs) hosts.push(e.host);
    if (entries.length < PAGE) break;
  }
  for (let start = 0; start < hosts.length; start += HOSTS_PER_CLAIM) {
    const chunk = hosts.slice(start, start + HOSTS_PER_CLAIM);
    const { leases } = await frontier.claim({
      pod,
      hosts: chunk,
      max: chunk.length,
      maxPerHost: 1,
    });
    if (leases.length > 0) {
      await Promise.all(leases.map((lease) => frontier.release(lease)));
      return false;
    }
  }
  return true;
}
