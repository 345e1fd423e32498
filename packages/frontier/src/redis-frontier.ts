/**
 * The Redis frontier: one method per Lua script, each building KEYS in the script's header
 * order and decoding its reply. Nothing else calls the scripts.
 *
 * Every state change of a host is one domain script (one slot). Due indexes, counters and
 * the domains index live in other slots and are updated in a second step: index updates
 * carry the host's `seq` so that only the newest decision lands (see index-update-2.lua),
 * and changes that may make a host due pin its due-index entry first.
 */

import { type Canonicalizer, createCanonicalizer, domainKey } from '@shardline/url';
import type { Cluster, Redis } from 'ioredis';
import {
  dueMember,
  leaseId,
  packEntry,
  parseDueMember,
  parseLeaseId,
  parseScore,
  unpackEntry,
} from './codec.js';
import { Counters } from './counters.js';
import {
  FrontierArgumentError,
  type FrontierCapCode,
  FrontierError,
  type FrontierRejectCode,
  FrontierReplyError,
  LeaseStatus,
  leaseStatusError,
} from './errors.js';
import { type Arg, Executor, type ScriptCall } from './executor.js';
import { fingerprint } from './fingerprint.js';
import { FrontierKeys } from './keys.js';
import { type FrontierOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { SCRIPT_COMMANDS as C, defineScripts } from './scripts.js';
import type {
  ClaimRequest,
  ClaimResult,
  CompleteResult,
  CounterStats,
  DeadLetter,
  DomainCount,
  DomainPage,
  DomainStats,
  EnqueueItem,
  EnqueueReport,
  EnqueueResult,
  FailOutcome,
  FailResult,
  FrontierReader,
  FrontierWriter,
  HostPolicy,
  Lease,
  LeaseRef,
  ReleaseOptions,
} from './types.js';

const POD_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const MAX_CLAIM = 10_000;

/** Pending index writes, grouped by pod: triples (member, seq, score), seq 0 = pin. */
class IndexBatch {
  readonly byPod = new Map<string, Arg[]>();

  add(pod: string, member: string, seq: number | string, score: string): void {
    let list = this.byPod.get(pod);
    if (!list) {
      list = [];
      this.byPod.set(pod, list);
    }
    list.push(member, seq, score);
  }

  /**
   * Pins a member before a change that may make its host due. `lower`: also bring an
   * existing score down to now (lease operations: the host may sit at +inf).
   */
  pin(pod: string, member: string, lower: boolean): void {
    this.add(pod, member, lower ? 0 : -1, '');
  }
}

/** One complete/fail/release: script ARGV after the lease, and its counter updates. */
interface LeaseOp {
  lease: LeaseRef;
  args: Arg[];
  count: (reply: unknown[], counters: Counters) => void;
}

interface Prepared {
  index: number;
  host: string;
  fp: string;
  level: number;
  entry: string;
}

/**
 * A crawl frontier on Redis (single server or Cluster). Implements both the crawler's
 * read side and the write side; see the package README for keys, scripts and lifecycle.
 */
export class RedisFrontier implements FrontierReader, FrontierWriter {
  /** The key names, for tools and tests. */
  readonly keys: FrontierKeys;
  readonly #options: ResolvedOptions;
  readonly #exec: Executor;
  readonly #canonicalizer: Canonicalizer;
  readonly #redis: Redis | Cluster;
  // Pods this instance already added to the pods set (reclaimPod and reindex read it).
  readonly #registered = new Set<string>();
  // Domains a claim found in the wrong pod's due index, being moved to their owner.
  readonly #forwarding = new Map<string, Promise<void>>();

  constructor(options: FrontierOptions) {
    this.#options = resolveOptions(options);
    this.#redis = options.redis;
    this.keys = new FrontierKeys(this.#options.prefix);
    this.#exec = new Executor(options.redis);
    this.#canonicalizer = createCanonicalizer(this.#options.canonicalize);
    defineScripts(options.redis);
  }

  /** Lease timeout in ms (0 = leases never expire). */
  get leaseTimeoutMs(): number {
    return this.#options.leaseTimeoutMs;
  }

  /** The pub/sub channel on which a pod's new earliest due time is published. */
  wakeChannel(pod: string): string {
    return this.keys.wakeChannel(checkPod(pod));
  }

  // ───────────────────────────── write side ─────────────────────────────

  /**
   * Canonicalises, deduplicates and queues URLs. Per item: `queued`, `duplicate` (seen
   * before in this crawl, including canonical variants and earlier items of the batch),
   * `rejected` (with the code and reason) or `over-cap` (the domain's queue is full; not
   * marked seen, so it may be enqueued again later). Wakes the owners' due indexes.
   */
  async enqueue(items: readonly EnqueueItem[]): Promise<EnqueueReport> {
    if (!Array.isArray(items)) throw new FrontierArgumentError('items', items, 'an array');
    const o = this.#options;
    const results: EnqueueResult[] = new Array(items.length);
    const byDomain = new Map<string, Prepared[]>();
    let rejected = 0;
    const counters = new Counters(this.keys);

    for (let i = 0; i < items.length; i++) {
      const outcome = this.#prepare(items[i]);
      if ('code' in outcome) {
        results[i] = { status: 'rejected', ...outcome };
        rejected++;
        continue;
      }
      const { url, domain, host, level, entry } = outcome;
      results[i] = { status: 'queued', url, domain, host };
      let list = byDomain.get(domain);
      if (!list) {
        list = [];
        byDomain.set(domain, list);
      }
      list.push({ index: i, host, fp: fingerprint(url), level, entry });
    }
    counters.add('rejected', rejected);

    const pins = new IndexBatch();
    const owners = new Map<string, string>();
    const calls: ScriptCall[] = [];
    const callDomains: string[] = [];
    const callItems: Prepared[][] = [];
    for (const [domain, list] of byDomain) {
      const owner = this.#ownerOf(domain);
      owners.set(domain, owner);
      const hosts = new Set(list.map((p) => p.host));
      for (const host of hosts) pins.pin(owner, dueMember(domain, host), false);
      for (let start = 0; start < list.length; start += o.enqueueChunk) {
        const chunk = list.slice(start, start + o.enqueueChunk);
        const args: Arg[] = [
          this.keys.domain(domain),
          this.keys.hosts(domain),
          this.keys.root(domain),
          o.maxQueuedPerDomain,
          o.defaultConcurrency,
          o.maxAcceptedPerDomain,
        ];
        for (const p of chunk) args.push(p.host, p.fp, p.level, p.entry);
        calls.push({ command: C.enqueue, args });
        callDomains.push(domain);
        callItems.push(chunk);
      }
    }

    const replies = await this.#exec.scripts(calls, this.#indexCalls(pins));
    const updates = new IndexBatch();
    let queued = 0;
    let duplicates = 0;
    let overCap = 0;
    const woken = new Set<string>();
    replies.forEach((reply, c) => {
      const r = asArray(reply, 'enqueue');
      const statuses = String(r[0]);
      const domain = callDomains[c]!;
      const chunk = callItems[c]!;
      let domainQueued = 0;
      for (let k = 0; k < chunk.length; k++) {
        const result = results[chunk[k]!.index]!;
        const s = statuses[k];
        if (s === 'q') {
          queued++;
          domainQueued++;
        } else if (s === 'd') {
          result.status = 'duplicate';
          duplicates++;
        } else if (s === 'c') {
          result.status = 'over-cap';
          overCap++;
        } else if (s === 'a') {
          result.status = 'over-cap';
          result.code = 'SHARDLINE_ERR_FRONTIER_ACCEPT_CAP' satisfies FrontierCapCode;
          overCap++;
        } else {
          throw new FrontierReplyError('enqueue', reply);
        }
      }
      counters.queued(domain, domainQueued);
      const owner = owners.get(domain)!;
      for (let j = 2; j + 2 < r.length; j += 3) {
        const score = String(r[j + 2]);
        updates.add(owner, dueMember(domain, String(r[j])), String(r[j + 1]), score);
        if (score !== 'park') woken.add(owner);
      }
    });
    counters.add('enqueued', queued);
    counters.add('duplicates', duplicates);
    counters.add('overCap', overCap);
    await this.#applyIndex(updates, counters);
    return { results, queued, duplicates, rejected, overCap, wokenPods: [...woken] };
  }

  #prepare(
    item: EnqueueItem | undefined,
  ):
    | { code: string; reason: string; url?: string; domain?: string; host?: string }
    | { url: string; domain: string; host: string; level: number; entry: string } {
    const o = this.#options;
    const spec = typeof item === 'string' ? { url: item } : item;
    if (typeof spec !== 'object' || spec === null || typeof spec.url !== 'string') {
      return reject('SHARDLINE_ERR_FRONTIER_INPUT', 'item is not a URL string or { url }');
    }
    const canonical = this.#canonicalizer.tryCanonicalize(spec.url, spec.base);
    if (!canonical.ok) return { code: canonical.error.code, reason: canonical.error.reason };
    const { url, domain, host } = canonical.value;
    const where = { url, domain, host };
    const depth = spec.depth ?? 0;
    if (!Number.isSafeInteger(depth) || depth < 0 || depth > o.maxDepth) {
      return {
        ...reject('SHARDLINE_ERR_FRONTIER_DEPTH', `depth must be 0..${o.maxDepth}`),
        ...where,
      };
    }
    const priority = spec.priority ?? 0;
    if (!Number.isSafeInteger(priority) || Math.abs(priority) > o.maxPriority) {
      return {
        ...reject(
          'SHARDLINE_ERR_FRONTIER_PRIORITY',
          `priority must be an integer within ±${o.maxPriority}`,
        ),
        ...where,
      };
    }
    const meta = spec.meta ?? '';
    if (typeof meta !== 'string' || meta.length > o.maxMetaChars) {
      return {
        ...reject(
          'SHARDLINE_ERR_FRONTIER_META',
          `meta must be a string of ≤ ${o.maxMetaChars} chars`,
        ),
        ...where,
      };
    }
    return { url, domain, host, level: priority, entry: packEntry(depth, 0, meta, url) };
  }

  /**
   * Requeues the leases held by a pod known to be dead (the membership layer calls this
   * once the pod's session expired). With `leaseTimeoutMs: 0` this is the only way such
   * leases come back. Walks the due indexes of all pods (hosts with leases always have an
   * entry there): O(hosts), meant for the rare membership change.
   */
  async reclaimPod(deadPod: string): Promise<{ requeued: number; deadLettered: number }> {
    checkPod(deadPod);
    const o = this.#options;
    const pods = (await this.#redis.smembers(this.keys.pods())) as string[];
    const members = new Set<string>();
    for (const pod of pods) {
      let cursor = '0';
      do {
        const [next, page] = (await this.#redis.zscan(
          this.keys.due(pod),
          cursor,
          'COUNT',
          500,
        )) as [string, string[]];
        for (let i = 0; i < page.length; i += 2) members.add(page[i]!);
        cursor = next;
      } while (cursor !== '0');
    }
    let requeued = 0;
    let deadLettered = 0;
    const counters = new Counters(this.keys);
    const list = [...members];
    for (let start = 0; start < list.length; start += 200) {
      const slice = list.slice(start, start + 200).map(parseDueMember);
      const replies = await this.#exec.scripts(
        slice.map(({ domain, host }) => ({
          command: C.reclaim,
          args: [
            this.keys.domain(domain),
            this.keys.root(domain),
            host,
            deadPod,
            o.maxRetries,
            o.deadLetterCap,
            o.defaultConcurrency,
          ],
        })),
      );
      const updates = new IndexBatch();
      replies.forEach((reply, k) => {
        const r = asArray(reply, 'reclaim');
        const back = Number(r[0]);
        const dead = Number(r[1]);
        if (back + dead === 0) return;
        const { domain, host } = slice[k]!;
        requeued += back;
        deadLettered += dead;
        counters.queued(domain, back);
        counters.add('repeats', back + dead, deadPod);
        counters.add('inFlight', -(back + dead), deadPod);
        counters.add('dead', dead);
        counters.dead(domain, dead);
        updates.add(this.#ownerOf(domain), dueMember(domain, host), String(r[2]), String(r[3]));
      });
      await this.#applyIndex(updates);
    }
    await this.#exec.commands(counters.commands());
    return { requeued, deadLettered };
  }

  /**
   * Puts every host of a domain in its current owner's due index and removes it from
   * every other pod's (membership handoff; also repairs an index after a crash). A
   * recently pinned entry in another pod's index stays there until its pin ends (then one
   * visit forwards it): a caller with a stale ring must not take a host out of the index
   * of its true owner. `evictFrom` names one pod whose entry goes at once, pin or not: the
   * caller's own index when it hands off what it no longer owns on a ring it has just
   * checked is current (see `evict` in index-update-2.lua).
   */
  async reindex(domain: string, options: { evictFrom?: string } = {}): Promise<void> {
    checkName('domain', domain);
    const evictFrom = options.evictFrom === undefined ? undefined : checkPod(options.evictFrom);
    const owner = this.#ownerOf(domain);
    const [hosts, registered] = (await Promise.all([
      this.#redis.smembers(this.keys.hosts(domain)),
      this.#redis.smembers(this.keys.pods()),
    ])) as [string[], string[]];
    if (hosts.length === 0) return;
    const pods = new Set(registered);
    pods.add(owner);
    const replies = await this.#exec.scripts(
      hosts.map((host) => ({
        command: C.schedule,
        args: [
          this.keys.domain(domain),
          this.keys.root(domain),
          host,
          this.#options.defaultConcurrency,
        ],
      })),
    );
    const updates = new IndexBatch();
    replies.forEach((reply, k) => {
      const r = asArray(reply, 'schedule');
      const member = dueMember(domain, hosts[k]!);
      for (const pod of pods) {
        const score = pod === owner ? String(r[1]) : pod === evictFrom ? 'evict' : 'park';
        updates.add(pod, member, String(r[0]), score);
      }
    });
    await this.#applyIndex(updates);
  }

  /**
   * Moves every domain found in `fromPod`'s due index to its current owner (a pod that
   * left or died; the membership layer calls this, then {@link reclaimPod} for a dead
   * pod). Returns the number of domains reindexed.
   */
  async handOff(fromPod: string): Promise<number> {
    const domains = await this.queuedDomainsOf(fromPod);
    for (const domain of domains) await this.reindex(domain);
    return domains.length;
  }

  /** Stops claims from a domain (leases already out finish normally). */
  pause(domain: string): Promise<void> {
    return this.#pause(domain, true);
  }

  /** Lets claims from a paused domain resume. */
  resume(domain: string): Promise<void> {
    return this.#pause(domain, false);
  }

  async #pause(domain: string, paused: boolean): Promise<void> {
    checkName('domain', domain);
    const owner = this.#ownerOf(domain);
    // Resuming makes hosts due: pin them first, like every change that wakes a host.
    const pins = new IndexBatch();
    if (!paused) {
      for (const host of (await this.#redis.smembers(this.keys.hosts(domain))) as string[]) {
        pins.pin(owner, dueMember(domain, host), false);
      }
    }
    const [result] = await this.#exec.scripts(
      [
        {
          command: C.pause,
          args: [
            this.keys.domain(domain),
            this.keys.hosts(domain),
            this.keys.root(domain),
            paused ? '1' : '0',
            this.#options.defaultConcurrency,
          ],
        },
      ],
      this.#indexCalls(pins),
    );
    const reply = asArray(result, 'pause');
    const updates = new IndexBatch();
    for (let j = 0; j + 2 < reply.length; j += 3) {
      updates.add(
        owner,
        dueMember(domain, String(reply[j])),
        String(reply[j + 1]),
        String(reply[j + 2]),
      );
    }
    await this.#applyIndex(updates);
  }

  /**
   * Per-host politeness overrides (robots crawl-delay, concurrency, delay); `null`
   * restores the default, an absent field is left as it is.
   */
  async setHostPolicy(host: string, policy: HostPolicy, domain?: string): Promise<void> {
    checkName('host', host);
    const d = domain ?? domainKey(host);
    const field = (name: string, value: number | null | undefined, min: number): string => {
      if (value === undefined) return '';
      if (value === null) return '-';
      if (!Number.isSafeInteger(value) || value < min) {
        throw new FrontierArgumentError(name, value, `an integer ≥ ${min} or null`);
      }
      return String(value);
    };
    const reply = asArray(
      await this.#exec.script({
        command: C['set-policy'],
        args: [
          this.keys.domain(d),
          this.keys.root(d),
          host,
          field('concurrency', policy.concurrency, 1),
          field('delayMs', policy.delayMs, 0),
          field('crawlDelayMs', policy.crawlDelayMs, 0),
          this.#options.defaultConcurrency,
        ],
      }),
      'set-policy',
    );
    const updates = new IndexBatch();
    updates.add(this.#ownerOf(d), dueMember(d, host), String(reply[0]), String(reply[1]));
    await this.#applyIndex(updates);
  }

  /** Moves up to `max` of a domain's oldest dead letters back to its queues (attempt 0). */
  async requeueDeadLetters(domain: string, max = 1000): Promise<number> {
    checkName('domain', domain);
    const owner = this.#ownerOf(domain);
    const pins = new IndexBatch();
    for (const host of (await this.#redis.smembers(this.keys.hosts(domain))) as string[]) {
      pins.pin(owner, dueMember(domain, host), false);
    }
    const [reply] = await this.#exec.scripts(
      [
        {
          command: C['requeue-dead'],
          args: [
            this.keys.domain(domain),
            this.keys.root(domain),
            max,
            this.#options.defaultConcurrency,
          ],
        },
      ],
      this.#indexCalls(pins),
    );
    const r = asArray(reply, 'requeue-dead');
    const moved = Number(r[0]);
    const updates = new IndexBatch();
    for (let j = 1; j + 2 < r.length; j += 3) {
      updates.add(owner, dueMember(domain, String(r[j])), String(r[j + 1]), String(r[j + 2]));
    }
    const counters = new Counters(this.keys);
    counters.queued(domain, moved);
    counters.add('dead', -moved);
    counters.dead(domain, -moved);
    await this.#applyIndex(updates, counters);
    return moved;
  }

  // ───────────────────────────── read side ─────────────────────────────

  /**
   * Claims up to `max` URLs for `pod` from its own due index. Each due host is visited by
   * its domain script, which reaps its expired leases, checks the politeness gate, pops
   * the best URL and writes a lease, then re-scores the host. Hosts not owned by `pod`
   * (per `ownerOf`) are moved to their owner instead, in the background (see
   * {@link forwarded}). Returns `nextDueAtMs`: sleep until then or until a message on
   * {@link wakeChannel}.
   */
  async claim(request: ClaimRequest): Promise<ClaimResult> {
    const pod = checkPod(request?.pod);
    const max = request.max ?? 1;
    if (!Number.isSafeInteger(max) || max < 1 || max > MAX_CLAIM) {
      throw new FrontierArgumentError('max', max, `an integer in 1..${MAX_CLAIM}`);
    }
    this.#register(pod);
    const take = asArray(
      await this.#exec.script({
        command: C['due-take'],
        args: [this.keys.due(pod), this.keys.dueMeta(pod), max, this.#options.claimHoldMs],
      }),
      'due-take',
    );
    const nowMs = Number(take[0]);
    const members = take.slice(2).map((m) => parseDueMember(String(m)));
    if (members.length === 0) {
      return { leases: [], nextDueAtMs: parseScore(take[1]), nowMs, reaped: 0 };
    }
    const mine: { domain: string; host: string }[] = [];
    const foreign = new Set<string>();
    for (const m of members) {
      if (this.#ownerOf(m.domain) === pod) mine.push(m);
      else foreign.add(m.domain);
    }
    // Hosts this pod no longer owns (a handoff in progress, a stale enqueuer) go to their
    // owner without the claim waiting for them: right after a ring change a claim can
    // find dozens, and its own leases (already written) must not wait for their moves.
    this.#forward(foreign);
    const visit = await this.#visit(pod, mine, max);
    const earliest = await this.#applyIndex(visit.updates, visit.counters);
    return {
      leases: visit.leases,
      nextDueAtMs: earliest.get(pod) ?? null,
      nowMs,
      reaped: visit.reaped,
    };
  }

  /**
   * Resolves once every move of foreign hosts started by {@link claim} has ended
   * (claim does not wait for them). A move that failed leaves its hosts held in the
   * claimer's due index: they come due again after `claimHoldMs` and the next claim
   * retries them.
   */
  async forwarded(): Promise<void> {
    while (this.#forwarding.size > 0) await Promise.all(this.#forwarding.values());
  }

  /** Reindexes each domain in the background, at most one move per domain at a time. */
  #forward(domains: Iterable<string>): void {
    for (const domain of domains) {
      if (this.#forwarding.has(domain)) continue;
      const move = this.reindex(domain)
        .catch(() => {
          // Held by due-take: visited again after claimHoldMs (see forwarded()).
        })
        .finally(() => this.#forwarding.delete(domain));
      this.#forwarding.set(domain, move);
    }
  }

  /** Runs claim-2.lua on hosts of `pod`'s due index; `max` 0 only reaps. */
  async #visit(pod: string, hosts: { domain: string; host: string }[], max: number) {
    const o = this.#options;
    // Spread `max` over the hosts: each gets one, the first ones a share of the rest.
    const extra = Math.max(0, max - hosts.length);
    const calls = hosts.map(({ domain, host }, k) => ({
      command: C.claim,
      args: [
        this.keys.domain(domain),
        this.keys.root(domain),
        host,
        pod,
        o.leaseTimeoutMs,
        max === 0 ? 0 : 1 + Math.floor(extra / hosts.length) + (k < extra % hosts.length ? 1 : 0),
        o.defaultDelayMs,
        o.defaultConcurrency,
        o.reapBatch,
        o.maxRetries,
        o.deadLetterCap,
      ],
    }));
    const replies = await this.#exec.scripts(calls);
    const leases: Lease[] = [];
    const updates = new IndexBatch();
    const counters = new Counters(this.keys);
    let reaped = 0;
    replies.forEach((reply, k) => {
      const r = asArray(reply, 'claim');
      const { domain, host } = hosts[k]!;
      updates.add(pod, dueMember(domain, host), String(r[0]), String(r[1]));
      const claimedAtMs = Number(r[2]);
      const reapedCount = Number(r[3]);
      if (reapedCount > 0) {
        reaped += reapedCount;
        for (const who of String(r[4]).split(',')) {
          const dead = who.endsWith(':dead');
          const holder = dead ? who.slice(0, -5) : who;
          counters.add('repeats', 1, holder);
          counters.add('inFlight', -1, holder);
          if (dead) {
            counters.add('dead', 1);
            counters.dead(domain, 1);
          } else counters.queued(domain, 1);
        }
      }
      for (let j = 5; j + 3 < r.length; j += 4) {
        const e = unpackEntry(String(r[j + 3]));
        leases.push({
          id: leaseId(domain, String(r[j])),
          url: e.url,
          host,
          domain,
          priority: Number(r[j + 2]),
          depth: e.depth,
          attempt: e.attempt + 1,
          deadlineMs: Number(r[j + 1]),
          claimedAtMs,
          pod,
          meta: e.meta,
        });
        counters.queued(domain, -1);
        counters.add('claimed', 1, pod);
        counters.add('inFlight', 1, pod);
      }
    });
    return { leases, updates, counters, reaped };
  }

  /**
   * Takes back expired leases of `pod`'s due hosts without claiming (claim does the same
   * as it visits hosts). Returns the number of leases requeued or dead-lettered.
   */
  async reap(request: { pod: string; max?: number }): Promise<number> {
    const pod = checkPod(request?.pod);
    const max = request.max ?? 100;
    this.#register(pod);
    const take = asArray(
      await this.#exec.script({
        command: C['due-take'],
        args: [this.keys.due(pod), this.keys.dueMeta(pod), max, this.#options.claimHoldMs],
      }),
      'due-take',
    );
    const hosts = take.slice(2).map((m) => parseDueMember(String(m)));
    if (hosts.length === 0) return 0;
    const visit = await this.#visit(pod, hosts, 0);
    await this.#applyIndex(visit.updates, visit.counters);
    return visit.reaped;
  }

  /** Extends a lease to now + `leaseTimeoutMs`; returns the new deadline (0 = none). */
  async heartbeat(lease: LeaseRef): Promise<number> {
    const [r] = await this.heartbeatMany([lease]);
    if (r instanceof FrontierError) throw r;
    return r!;
  }

  /**
   * Extends many leases at once: one pipeline (one round trip) on a plain Redis; on a
   * Cluster every call is written at once (ioredis groups them per node with
   * `enableAutoPipelining`). Returns, per lease in order, its new deadline (0 = never
   * expires) or the error {@link heartbeat} would have thrown for it
   * ({@link LeaseLostError}, {@link LeaseNotHeldError}); the others are still extended.
   */
  async heartbeatMany(leases: readonly LeaseRef[]): Promise<(number | FrontierError)[]> {
    if (!Array.isArray(leases)) throw new FrontierArgumentError('leases', leases, 'an array');
    const targets = leases.map((lease) => {
      const { domain, host, field } = parseLeaseId(lease?.id);
      return { domain, host, field, pod: checkPod(lease.pod) };
    });
    const replies = await this.#exec.scripts(
      targets.map((t) => ({
        command: C.heartbeat,
        args: [
          this.keys.hostLeases(t.domain, t.host),
          this.keys.hostLeaseDeadlines(t.domain, t.host),
          t.field,
          t.pod,
          this.#options.leaseTimeoutMs,
        ],
      })),
    );
    return replies.map((reply, k) => {
      const r = asArray(reply, 'heartbeat');
      return leaseStatusError(Number(r[0]), leases[k]!.id, targets[k]!.pod) ?? Number(r[1]);
    });
  }

  /** Acknowledges a fetched URL. Throws {@link LeaseLostError} if the lease was reaped. */
  async complete(lease: LeaseRef, result: CompleteResult = {}): Promise<void> {
    const [outcome] = await this.completeMany([{ lease, result }]);
    if (outcome) throw outcome;
  }

  /**
   * Acknowledges many fetched URLs in two round trips. Returns, per item, `null` or the
   * error {@link complete} would have thrown for it (the others still complete).
   */
  async completeMany(
    items: readonly { lease: LeaseRef; result?: CompleteResult }[],
  ): Promise<(FrontierError | null)[]> {
    const o = this.#options;
    const ops = items.map(({ lease, result = {} }): LeaseOp => {
      const { bytes = 0, durationMs = 0, links = 0 } = result;
      for (const [name, value] of [
        ['bytes', bytes],
        ['durationMs', durationMs],
        ['links', links],
      ] as const) {
        if (!Number.isSafeInteger(value) || value < 0) {
          throw new FrontierArgumentError(name, value, 'a non-negative integer');
        }
      }
      return {
        lease,
        args: [
          bytes,
          durationMs,
          links,
          o.adaptiveDelayFactor,
          o.maxDelayMs,
          o.defaultDelayMs,
          o.defaultConcurrency,
        ],
        count: (_r, counters) => {
          counters.add('fetched', 1, lease.pod);
          counters.add('inFlight', -1, lease.pod);
          counters.add('bytes', bytes);
          counters.fetched(parseLeaseId(lease.id).domain, 1);
        },
      };
    });
    const replies = await this.#leaseOps('complete', ops, 1);
    return replies.map((r) => (r instanceof FrontierError ? r : null));
  }

  /**
   * Reports a failed fetch: retryable failures back off the host and requeue the URL
   * until `maxRetries`, then (or at once when not retryable) it is dead-lettered. With
   * `sent: false` (refused before any request went out) the host's backoff and
   * `next_allowed_at` are left as they are.
   */
  async fail(lease: LeaseRef, result: FailResult): Promise<FailOutcome> {
    const o = this.#options;
    const retryAfterMs = result?.retryAfterMs ?? 0;
    if (!Number.isSafeInteger(retryAfterMs) || retryAfterMs < 0) {
      throw new FrontierArgumentError('retryAfterMs', retryAfterMs, 'a non-negative integer');
    }
    if (result.sent !== undefined && typeof result.sent !== 'boolean') {
      throw new FrontierArgumentError('sent', result.sent, 'a boolean');
    }
    const reason = String(result.reason ?? 'error')
      .replace(/[\t\r\n]/g, ' ')
      .slice(0, 200);
    const op: LeaseOp = {
      lease,
      args: [
        result.retryable ? '1' : '0',
        retryAfterMs,
        reason,
        result.status ?? 0,
        o.maxRetries,
        o.backoffBaseMs,
        o.backoffMaxMs,
        Math.random(),
        o.deadLetterCap,
        o.defaultDelayMs,
        o.defaultConcurrency,
        result.sent === false ? '0' : '1',
      ],
      count: (r, counters) => {
        const { domain } = parseLeaseId(lease.id);
        counters.add('failed', 1, lease.pod);
        counters.add('inFlight', -1, lease.pod);
        counters.failed(domain, 1);
        if (String(r[1]) === 'dead') {
          counters.add('dead', 1, lease.pod);
          counters.dead(domain, 1);
        } else {
          counters.add('retried', 1);
          counters.queued(domain, 1);
        }
      },
    };
    const [r] = await this.#leaseOps('fail', [op], 3);
    if (r instanceof FrontierError) throw r;
    return { outcome: String(r![1]) === 'dead' ? 'dead' : 'retry', attempt: Number(r![2]) };
  }

  /**
   * Gives a lease back untouched: the URL returns to the front of its queue with its attempt
   * count unchanged. `holdMs` keeps the whole host unclaimed for that long (its
   * `next_allowed_at` moves to at least now + holdMs, by Redis time) — for a host that must
   * not be asked yet, e.g. while its robots.txt is unreachable.
   */
  async release(lease: LeaseRef, options: ReleaseOptions = {}): Promise<void> {
    const holdMs = options?.holdMs ?? 0;
    if (!Number.isSafeInteger(holdMs) || holdMs < 0) {
      throw new FrontierArgumentError('holdMs', holdMs, 'a non-negative integer');
    }
    const op: LeaseOp = {
      lease,
      args: [this.#options.defaultConcurrency, holdMs],
      count: (_r, counters) => {
        counters.add('released', 1, lease.pod);
        counters.add('inFlight', -1, lease.pod);
        counters.queued(parseLeaseId(lease.id).domain, 1);
      },
    };
    const [r] = await this.#leaseOps('release', [op], 1);
    if (r instanceof FrontierError) throw r;
  }

  /**
   * complete/fail/release of many leases: pin each host in its owner's due index and run
   * the scripts (one round trip on a plain Redis), then apply the new scores and the
   * counters (one more). `seqAt` is where the script's reply holds seq (score follows).
   * Returns per op its reply or its typed error.
   */
  async #leaseOps(
    name: 'complete' | 'fail' | 'release',
    ops: LeaseOp[],
    seqAt: number,
  ): Promise<(unknown[] | FrontierError)[]> {
    const targets = ops.map(({ lease }) => {
      const parts = parseLeaseId(lease?.id);
      return { ...parts, pod: checkPod(lease.pod), owner: this.#ownerOf(parts.domain) };
    });
    const pins = new IndexBatch();
    for (const t of targets) pins.pin(t.owner, dueMember(t.domain, t.host), true);
    const replies = await this.#exec.scripts(
      ops.map((op, k) => {
        const t = targets[k]!;
        return {
          command: C[name],
          args: [
            this.keys.domain(t.domain),
            this.keys.root(t.domain),
            t.host,
            t.field,
            t.pod,
            ...op.args,
          ],
        };
      }),
      this.#indexCalls(pins),
    );
    const updates = new IndexBatch();
    const counters = new Counters(this.keys);
    const out = replies.map((reply, k) => {
      const r = asArray(reply, name);
      const t = targets[k]!;
      const status = Number(r[0]);
      if (status === LeaseStatus.NotFound) counters.add('late', 1);
      const error = leaseStatusError(status, ops[k]!.lease.id, t.pod);
      if (error) return error;
      updates.add(t.owner, dueMember(t.domain, t.host), String(r[seqAt]), String(r[seqAt + 1]));
      ops[k]!.count(r, counters);
      return r;
    });
    await this.#applyIndex(updates, counters);
    return out;
  }

  // ───────────────────────────── stats and reads ─────────────────────────────

  /** Exact counters of one domain (one HGETALL, no scan). */
  async domainStats(domain: string): Promise<DomainStats> {
    checkName('domain', domain);
    const [hash, hosts] = (await Promise.all([
      this.#redis.hgetall(this.keys.domain(domain)),
      this.#redis.smembers(this.keys.hosts(domain)),
    ])) as [Record<string, string>, string[]];
    const n = (field: string) => Number(hash[field] ?? 0);
    return {
      domain,
      queued: n('q'),
      inFlight: n('f'),
      fetched: n('ok'),
      failed: n('err'),
      dead: n('dead'),
      duplicates: n('dup'),
      overCap: n('cap'),
      repeats: n('rep'),
      seen: n('seen'),
      enqueued: n('enq'),
      claimed: n('claimed'),
      released: n('released'),
      late: n('late'),
      bytes: n('bytes'),
      fetchMs: n('ms'),
      links: n('links'),
      paused: hash.paused === '1',
      hosts: hosts.sort(),
    };
  }

  /** Global counters (eventually consistent sums; see the README). */
  async stats(): Promise<CounterStats> {
    return numbers(await this.#redis.hgetall(this.keys.stats()));
  }

  /**
   * Whether nothing is queued or in flight anywhere, exactly: the own counters (`q`, `f`,
   * kept inside the scripts) of every domain listed in any pod's due index — where a domain
   * with queued URLs or leases out always sits. {@link stats} answers the same in O(1) but
   * its sums can stay off after a pod dies between a script and its counter update (kill -9);
   * this costs a scan of the due indexes and one read per listed domain.
   */
  async settled(): Promise<boolean> {
    const pods = (await this.#redis.smembers(this.keys.pods())) as string[];
    for (const pod of pods) {
      const domains = await this.queuedDomainsOf(pod);
      for (let i = 0; i < domains.length; i += 500) {
        const counts = await Promise.all(
          domains
            .slice(i, i + 500)
            .map(
              (d) => this.#redis.hmget(this.keys.domain(d), 'q', 'f') as Promise<(string | null)[]>,
            ),
        );
        if (counts.some(([q, f]) => Number(q ?? 0) > 0 || Number(f ?? 0) > 0)) return false;
      }
    }
    return true;
  }

  /** One pod's counters (eventually consistent sums). */
  async podStats(pod: string): Promise<CounterStats> {
    return numbers(await this.#redis.hgetall(this.keys.podStats(checkPod(pod))));
  }

  /**
   * Domains from one of the domain indexes, highest count first (paged with
   * `offset`/`limit`): `depth` URLs queued (the default), `fetched` URLs fetched,
   * `errors` failed attempts plus dead letters. Eventually consistent (see the README).
   */
  async domains(page: DomainPage = {}): Promise<DomainCount[]> {
    const sort = page.sort ?? 'depth';
    if (sort !== 'depth' && sort !== 'fetched' && sort !== 'errors') {
      throw new FrontierArgumentError('sort', sort, "'depth', 'fetched' or 'errors'");
    }
    const { offset, limit } = checkPage(page);
    const flat = (await this.#redis.zrevrange(
      this.keys.domainIndex(sort),
      offset,
      offset + limit - 1,
      'WITHSCORES',
    )) as string[];
    return pairs(flat);
  }

  /**
   * Domains holding dead letters, most first (paged with `offset`/`limit`), from the
   * dead-letter domains index: one ZREVRANGEBYSCORE, no scan. The count is the domain's
   * `dead` counter (eventually consistent).
   */
  async deadLetterDomains(page: { offset?: number; limit?: number } = {}): Promise<DomainCount[]> {
    const { offset, limit } = checkPage(page);
    const flat = (await this.#redis.zrevrangebyscore(
      this.keys.deadLetterDomains(),
      '+inf',
      '(0',
      'WITHSCORES',
      'LIMIT',
      offset,
      limit,
    )) as string[];
    return pairs(flat);
  }

  /** A pod's due index, earliest first: which hosts it will visit and when. */
  async dueHosts(
    pod: string,
    page: { offset?: number; limit?: number } = {},
  ): Promise<{ domain: string; host: string; dueAtMs: number }[]> {
    const offset = page.offset ?? 0;
    const limit = page.limit ?? 100;
    const flat = (await this.#redis.zrange(
      this.keys.due(checkPod(pod)),
      offset,
      offset + limit - 1,
      'WITHSCORES',
    )) as string[];
    const out: { domain: string; host: string; dueAtMs: number }[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      out.push({ ...parseDueMember(flat[i]!), dueAtMs: parseScore(flat[i + 1]) ?? Number.NaN });
    }
    return out;
  }

  /** Distinct domains in a pod's due index (queued or with leases out). */
  async queuedDomainsOf(pod: string): Promise<string[]> {
    const domains = new Set<string>();
    let cursor = '0';
    do {
      const [next, page] = (await this.#redis.zscan(
        this.keys.due(checkPod(pod)),
        cursor,
        'COUNT',
        500,
      )) as [string, string[]];
      for (let i = 0; i < page.length; i += 2) domains.add(parseDueMember(page[i]!).domain);
      cursor = next;
    } while (cursor !== '0');
    return [...domains].sort();
  }

  /** A domain's dead letters, newest first. */
  async deadLetters(
    domain: string,
    page: { offset?: number; limit?: number } = {},
  ): Promise<DeadLetter[]> {
    checkName('domain', domain);
    const offset = page.offset ?? 0;
    const limit = page.limit ?? 100;
    const rows = (await this.#redis.lrange(
      this.keys.deadLetters(domain),
      offset,
      offset + limit - 1,
    )) as string[];
    return rows.map((row) => {
      const [host = '', level = '0', reason = '', status = '0', at = '0'] = row.split('\t', 5);
      let rest = row;
      for (let i = 0; i < 5; i++) rest = rest.slice(rest.indexOf('\t') + 1);
      const e = unpackEntry(rest);
      return {
        url: e.url,
        host,
        domain,
        priority: Number(level),
        depth: e.depth,
        attempt: e.attempt,
        reason,
        status: Number(status),
        atMs: Number(at),
        meta: e.meta,
      };
    });
  }

  // ───────────────────────────── internals ─────────────────────────────

  #ownerOf(domain: string): string {
    const pod = this.#options.ownerOf(domain);
    if (typeof pod !== 'string' || !POD_ID.test(pod)) {
      throw new FrontierArgumentError(`ownerOf(${JSON.stringify(domain)})`, pod, 'a pod id');
    }
    return pod;
  }

  #register(pod: string): void {
    if (this.#registered.has(pod)) return;
    this.#registered.add(pod);
    // Not awaited on purpose: the pods set is only read by reclaimPod/reindex, and a
    // failed SADD is retried by the next call because the set entry is removed below.
    void this.#redis.sadd(this.keys.pods(), pod).catch(() => this.#registered.delete(pod));
  }

  #indexCalls(batch: IndexBatch): ScriptCall[] {
    const calls: ScriptCall[] = [];
    for (const [pod, triples] of batch.byPod) {
      this.#register(pod);
      calls.push({
        command: C['index-update'],
        args: [
          this.keys.due(pod),
          this.keys.dueMeta(pod),
          this.keys.wakeChannel(pod),
          this.#options.pinMs,
          ...triples,
        ],
      });
    }
    return calls;
  }

  /**
   * Applies index updates (and, in the same round trip, the counters); returns each
   * pod's earliest due time afterwards.
   */
  async #applyIndex(batch: IndexBatch, counters?: Counters): Promise<Map<string, number | null>> {
    const calls = this.#indexCalls(batch);
    const replies = await this.#exec.scriptsAndCommands(calls, counters?.commands() ?? []);
    const earliest = new Map<string, number | null>();
    [...batch.byPod.keys()].forEach((pod, k) => {
      earliest.set(pod, parseScore(asArray(replies[k], 'index-update')[0]));
    });
    return earliest;
  }
}

function reject(code: FrontierRejectCode, reason: string): { code: string; reason: string } {
  return { code, reason };
}

function asArray(reply: unknown, script: string): unknown[] {
  if (!Array.isArray(reply)) throw new FrontierReplyError(script, reply);
  return reply;
}

function numbers(hash: Record<string, string>): CounterStats {
  const out: CounterStats = {};
  for (const [k, v] of Object.entries(hash)) out[k] = Number(v);
  return out;
}

function pairs(flat: string[]): DomainCount[] {
  const out: DomainCount[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    out.push({ domain: flat[i]!, count: Number(flat[i + 1]) });
  }
  return out;
}

function checkPage(page: { offset?: number; limit?: number }): { offset: number; limit: number } {
  const offset = page?.offset ?? 0;
  const limit = page?.limit ?? 100;
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new FrontierArgumentError('offset', offset, 'a non-negative integer');
  }
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new FrontierArgumentError('limit', limit, 'a positive integer');
  }
  return { offset, limit };
}

function checkPod(pod: unknown): string {
  if (typeof pod !== 'string' || !POD_ID.test(pod)) {
    throw new FrontierArgumentError('pod', pod, 'a pod id of 1-128 [A-Za-z0-9._:-]');
  }
  return pod;
}

function checkName(what: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || /[\s/{}]/.test(value)) {
    throw new FrontierArgumentError(what, value, `a ${what} name`);
  }
  return value;
}
