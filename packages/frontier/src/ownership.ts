/**
 * Moves between pods: a domain's hosts to their current owner's due index (reindex, on a
 * ring change or to repair an index), a leaving pod's whole index (handOff), a departed
 * pod's backlog into its index (spillBacklog), and a dead pod's leases back to the queues
 * (reclaimPod). Called by the membership layer.
 */

import { asArray, checkName, checkPod } from './checks.js';
import { dueMember, parseDueMember } from './codec.js';
import type { FrontierContext } from './context.js';
import { Counters } from './counters.js';
import { readArchived, readLiveHosts } from './domain-reads.js';
import { type DueIndex, IndexBatch } from './due-index.js';
import type { FrontierInspector } from './inspector.js';
import { SCRIPT_COMMANDS as C } from './scripts.js';

/** Hosts reclaimed per round trip. */
const RECLAIM_BATCH = 200;
/** Backlog names moved into the due index per spill-3.lua call. */
const SPILL_BATCH = 1000;

export class Ownership {
  readonly #ctx: FrontierContext;
  readonly #index: DueIndex;
  readonly #inspector: FrontierInspector;

  constructor(ctx: FrontierContext, index: DueIndex, inspector: FrontierInspector) {
    this.#ctx = ctx;
    this.#index = index;
    this.#inspector = inspector;
  }

  /**
   * See `RedisFrontier.reclaimPod`. Runs reclaim-2.lua on every host of the dead pod's own
   * due index, page by page: O(what the pod owned), whatever the number of hosts elsewhere.
   * Its own index lists every host where it holds leases: it claimed only from there, a
   * claim or a host with leases out stays there (deadline or +inf), and a reindex keeps the
   * host listed at +inf in every lease holder's index (schedule-2.lua names the holders).
   * Run it before evicting the pod's index.
   */
  async reclaimPod(deadPod: string): Promise<{ requeued: number; deadLettered: number }> {
    checkPod(deadPod);
    const { redis, keys, options: o, exec } = this.#ctx;
    let requeued = 0;
    let deadLettered = 0;
    let cursor = '0';
    do {
      const [next, page] = (await redis.zscan(
        keys.due(deadPod),
        cursor,
        'COUNT',
        RECLAIM_BATCH,
      )) as [string, string[]];
      cursor = next;
      const hosts: { domain: string; host: string }[] = [];
      for (let i = 0; i < page.length; i += 2) hosts.push(parseDueMember(page[i]!));
      if (hosts.length === 0) continue;
      const replies = await exec.scripts(
        hosts.map(({ domain, host }) => ({
          command: C.reclaim,
          args: [
            keys.domain(domain),
            keys.root(domain),
            host,
            deadPod,
            o.maxRetries,
            o.deadLetterCap,
            o.defaultConcurrency,
          ],
        })),
      );
      const updates = new IndexBatch();
      // Counters go with each page: one batch for a whole big index would be one call with
      // a pair per domain (and overflow the stack at hundreds of thousands).
      const counters = new Counters(keys);
      replies.forEach((reply, k) => {
        const r = asArray(reply, 'reclaim');
        const back = Number(r[0]);
        const dead = Number(r[1]);
        if (back + dead === 0) return;
        const { domain, host } = hosts[k]!;
        requeued += back;
        deadLettered += dead;
        counters.queued(domain, back);
        counters.add('repeats', back + dead, deadPod);
        counters.add('inFlight', -(back + dead), deadPod);
        counters.add('dead', dead);
        counters.dead(domain, dead);
        updates.add(this.#ctx.ownerOf(domain), dueMember(domain, host), String(r[2]), String(r[3]));
      });
      await this.#index.apply(updates, counters);
    } while (cursor !== '0');
    return { requeued, deadLettered };
  }

  /** See `RedisFrontier.reindex`. Runs schedule-2.lua on each host of the domain. */
  async reindex(domain: string, options: { evictFrom?: string } = {}): Promise<void> {
    checkName('domain', domain);
    const { keys, exec } = this.#ctx;
    const evictFrom = options.evictFrom === undefined ? undefined : checkPod(options.evictFrom);
    const owner = this.#ctx.ownerOf(domain);
    // Live hosts only: an archived domain (archive.ts) has nothing to index, and a visit
    // would leave keys behind; a packed one goes to its owner's backlog.
    const [hosts, registered] = await Promise.all([
      readLiveHosts(this.#ctx.redis, keys, domain),
      this.#inspector.pods(),
    ]);
    const pods = new Set(registered);
    pods.add(owner);
    if (hosts.length === 0) return this.#announcePacked(domain, owner, pods, evictFrom);
    const replies = await exec.scripts(
      hosts.map((host) => ({
        command: C.schedule,
        args: [keys.domain(domain), keys.root(domain), host, this.#ctx.options.defaultConcurrency],
      })),
    );
    const updates = new IndexBatch();
    // The new owner visits an idle host it gets (index-update-3.lua 'idle'): the old owner's
    // visit at its pin's end, which would have folded the domain, is evicted with its entry.
    const idle = this.#ctx.options.archiveIdleDomains ? 'idle' : 'park';
    replies.forEach((reply, k) => {
      const r = asArray(reply, 'schedule');
      const member = dueMember(domain, hosts[k]!);
      // A pod holding leases of the host keeps it listed, never polled (+inf): its own
      // index is where reclaimPod looks for its leases if it dies.
      const holders = new Set(r.slice(2).map(String));
      for (const pod of holders) pods.add(pod);
      for (const pod of pods) {
        let score = pod === evictFrom ? 'evict' : 'park';
        if (pod === owner) score = r[1] === 'park' ? idle : String(r[1]);
        else if (holders.has(pod)) score = 'inf';
        updates.add(pod, member, String(r[0]), score);
      }
    });
    await this.#index.apply(updates);
  }

  /**
   * Names a packed domain's queued hosts in its owner's backlog (index-update-3.lua
   * 'packed', the owner's call first) and drops them from the other pods' indexes, as a
   * reindex does for live hosts. The seq is the packed host's own: a later script's entry,
   * newer, is kept.
   */
  async #announcePacked(
    domain: string,
    owner: string,
    pods: Set<string>,
    evictFrom: string | undefined,
  ): Promise<void> {
    const archived = await readArchived(this.#ctx.redis, this.#ctx.keys, domain);
    if (!archived) return;
    const updates = new IndexBatch();
    if (archived.queues.size === 0) {
      // Archived, nothing queued: every pod's entry of its hosts goes ('gone', past any pin),
      // or an old owner would hold and forward it for ever.
      for (const pod of pods) {
        for (const host of archived.hosts.keys())
          updates.add(pod, dueMember(domain, host), 1, 'gone');
      }
      await this.#index.apply(updates);
      return;
    }
    for (const host of archived.queues.keys()) {
      updates.add(owner, dueMember(domain, host), archived.hosts.get(host)?.seq ?? '1', 'packed');
    }
    for (const pod of pods) {
      if (pod === owner) continue;
      for (const host of archived.queues.keys()) {
        const seq = archived.hosts.get(host)?.seq ?? '1';
        updates.add(pod, dueMember(domain, host), seq, pod === evictFrom ? 'evict' : 'park');
      }
    }
    await this.#index.apply(updates);
  }

  /**
   * See `RedisFrontier.spillBacklog`. Runs spill-3.lua until the pod's backlog is empty; names
   * appended meanwhile (a stale-ring enqueuer) are moved too.
   */
  async spillBacklog(pod: string): Promise<number> {
    checkPod(pod);
    const { keys, exec } = this.#ctx;
    const before = await this.#ctx.redis.llen(keys.backlog(pod));
    let left = before;
    while (left > 0) {
      left = Number(
        await exec.script({
          command: C.spill,
          args: [keys.due(pod), keys.dueMeta(pod), keys.backlog(pod), SPILL_BATCH],
        }),
      );
    }
    return before;
  }

  /** See `RedisFrontier.forgetPod`. */
  async forgetPod(pod: string): Promise<boolean> {
    checkPod(pod);
    const { redis, keys } = this.#ctx;
    if ((await redis.zcard(keys.due(pod))) > 0 || (await redis.llen(keys.backlog(pod))) > 0) {
      return false;
    }
    // The pods set lives in another slot than the pod's keys: two commands, set first, so a
    // pod is never listed without its keys being readable (an empty index reads as 0).
    await redis.srem(keys.pods(), pod);
    await redis.del(keys.due(pod), keys.dueMeta(pod), keys.podStats(pod), keys.podFaults(pod));
    return true;
  }

  /** See `RedisFrontier.handOff`. */
  async handOff(fromPod: string): Promise<number> {
    await this.spillBacklog(fromPod);
    const domains = await this.#inspector.queuedDomainsOf(fromPod);
    for (const domain of domains) await this.reindex(domain);
    return domains.length;
  }
}
