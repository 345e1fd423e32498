/**
 * The frontier's public face: one class whose methods hand each call to the module that
 * owns it (enqueue.ts, claims.ts, leases.ts, ownership.ts, admin.ts; reads in
 * inspector.ts). Each Lua script is called by one method of one module, which builds
 * KEYS in the script's header order and decodes its reply.
 */
import { Admin } from './admin.js';
import { checkPod } from './checks.js';
import { Claims } from './claims.js';
import { type BackgroundErrorCounts, FrontierContext } from './context.js';
import { DueIndex } from './due-index.js';
import { Enqueuer } from './enqueue.js';
import type { FrontierError } from './errors.js';
import { Executor } from './executor.js';
import type { ScriptMode } from './function-loader.js';
import { FrontierIdentity } from './identity.js';
import { FrontierInspector } from './inspector.js';
import { FrontierKeys } from './keys.js';
import { Leases } from './leases.js';
import { type FrontierOptions, resolveOptions } from './options.js';
import { Ownership } from './ownership.js';
import type { CounterStats } from './read-types.js';
import { defineScripts } from './scripts.js';
import type {
  BlockTarget,
  ClaimRequest,
  ClaimResult,
  CompleteResult,
  EnqueueItem,
  EnqueueReport,
  FailOutcome,
  FailResult,
  HostPolicy,
  LeaseRef,
  ReleaseOptions,
} from './types.js';

/**
 * A crawl frontier on Redis (single server or Cluster): the write side (enqueue,
 * ownership moves, admin) and the lease side a crawler pod calls in its work loop. Reads
 * go through {@link inspector}. See the package README for keys, scripts and design.
 *
 * Lifecycle of a URL:
 * ```
 *   enqueue ─► queued ─claim─► leased ─complete─► fetched
 *                ▲               │ ├─fail (retryable, attempts ≤ maxRetries)─► queued
 *                │               │ ├─fail (not retryable / retries exhausted)─► dead letter
 *                │               │ ├─release (untouched)──────────────────────► queued (front)
 *                └───────────────┴─┴─lease expired (reap) or pod dead (reclaimPod)─► queued
 *                                          (counted as a repeat; dead letter past maxRetries)
 *   dead letter ─requeueDeadLetters─► queued
 * ```
 * Every accepted URL is therefore fetched, dead-lettered with a reason, or still queued.
 */
export class RedisFrontier {
  /** Reads of frontier state (counters, indexes, hosts), on this frontier's client. */
  readonly inspector: FrontierInspector;
  readonly #ctx: FrontierContext;
  readonly #enqueuer: Enqueuer;
  readonly #claims: Claims;
  readonly #leases: Leases;
  readonly #ownership: Ownership;
  readonly #admin: Admin;
  readonly #identity: FrontierIdentity;

  constructor(options: FrontierOptions) {
    const resolved = resolveOptions(options);
    this.#ctx = new FrontierContext(
      resolved,
      new FrontierKeys(resolved.prefix, resolved.crawlId),
      new Executor(resolved.redis, {
        functions: resolved.redisFunctions,
        onFunctionsRefused: (error) => this.#ctx.backgroundError('load-functions', error),
      }),
    );
    defineScripts(resolved.redis);
    this.inspector = new FrontierInspector({
      redis: resolved.redis,
      prefix: resolved.prefix,
      crawlId: resolved.crawlId,
    });
    const index = new DueIndex(this.#ctx);
    this.#enqueuer = new Enqueuer(this.#ctx, index);
    this.#ownership = new Ownership(this.#ctx, index, this.inspector);
    this.#claims = new Claims(this.#ctx, index, this.#ownership);
    this.#leases = new Leases(this.#ctx, index);
    this.#admin = new Admin(this.#ctx, index, this.inspector);
    this.#identity = new FrontierIdentity(this.#ctx);
  }

  /**
   * The frontier's identity (a random id, created by the first caller). A pod remembers it at
   * start and passes it to {@link checkIdentity} while it runs.
   */
  identity(): Promise<string> {
    return this.#identity.claim();
  }

  /**
   * Throws `FrontierLostError` (`SHARDLINE_ERR_FRONTIER_LOST`) when the frontier's identity is
   * no longer `expected`: Redis lost its data (restart without persistence, flush). Records the
   * loss for `inspector.frontierLost()` first.
   */
  checkIdentity(expected: string, pod: string): Promise<void> {
    return this.#identity.check(expected, checkPod(pod));
  }

  /** Lease timeout in ms (0 = leases never expire). */
  get leaseTimeoutMs(): number {
    return this.#ctx.options.leaseTimeoutMs;
  }

  /**
   * Failures of work this instance did in the background, per operation, since it was
   * built (each also passed to the `onBackgroundError` option): `register-pod` and
   * `forward`, both retried by later calls (a count that keeps growing means Redis
   * refuses the writes), and `load-functions`, once when the server refuses the function
   * library (see {@link scriptMode}).
   */
  get backgroundErrors(): Readonly<BackgroundErrorCounts> {
    return this.#ctx.backgroundErrors;
  }

  /**
   * How this instance's script calls go now: `functions` (FCALL of the function library,
   * loaded by the first call) or `eval` (EVALSHA: before the first call, with
   * `redisFunctions: false`, or on a server that refused the library).
   */
  get scriptMode(): ScriptMode {
    return this.#ctx.exec.scriptMode;
  }

  /** The pub/sub channel on which a pod's new earliest due time is published. */
  wakeChannel(pod: string): string {
    return this.#ctx.keys.wakeChannel(checkPod(pod));
  }

  // ───────────────────────────── enqueue ─────────────────────────────

  /**
   * Canonicalises, deduplicates and queues URLs. Per item: `queued`, `duplicate` (seen
   * before in this crawl, including canonical variants and earlier items of the batch),
   * `rejected` (with the code and reason) or `over-cap` (the domain's queue is full; not
   * marked seen, so it may be enqueued again later). Wakes the owners' due indexes.
   * When Redis is full it throws `RedisOomError` (`SHARDLINE_ERR_REDIS_OOM`) whose `report`
   * counts what was queued before the refusal and whose `pending` lists the items to retry.
   */
  enqueue(items: readonly EnqueueItem[]): Promise<EnqueueReport> {
    return this.#enqueuer.enqueue(items);
  }

  // ───────────────────────────── leases ─────────────────────────────

  /**
   * Claims up to `max` URLs for `pod` from its own due index. Each due host is visited by
   * its domain script, which reaps its expired leases, checks the politeness gate, pops
   * the best URL and writes a lease, then re-scores the host. Hosts not owned by `pod`
   * (per `ownerOf`) are moved to their owner instead, in the background (see
   * {@link forwarded}). Returns `nextDueAtMs`: sleep until then or until a message on
   * {@link wakeChannel}.
   */
  claim(request: ClaimRequest): Promise<ClaimResult> {
    return this.#claims.claim(request);
  }

  /**
   * Resolves once every move of foreign hosts started by {@link claim} has ended
   * (claim does not wait for them). A move that failed (counted in
   * {@link backgroundErrors} as `forward`) leaves its hosts held in the claimer's due
   * index: they come due again after `claimHoldMs` and the next claim retries them.
   */
  forwarded(): Promise<void> {
    return this.#claims.forwarded();
  }

  /**
   * Takes back expired leases of `pod`'s due hosts without claiming (claim does the same
   * as it visits hosts). Returns the number of leases requeued or dead-lettered.
   */
  reap(request: { pod: string; max?: number }): Promise<number> {
    return this.#claims.reap(request);
  }

  /** Extends a lease to now + `leaseTimeoutMs`; returns the new deadline (0 = none). */
  async heartbeat(lease: LeaseRef): Promise<number> {
    const [r] = await this.#leases.heartbeatMany([lease]);
    if (typeof r !== 'number') throw r!;
    return r;
  }

  /**
   * Extends many leases at once: one pipeline (one round trip) on a plain Redis; on a
   * Cluster every call is written at once (ioredis groups them per node with
   * `enableAutoPipelining`). Returns, per lease in order, its new deadline (0 = never
   * expires) or the error {@link heartbeat} would have thrown for it
   * ({@link LeaseLostError}, {@link LeaseNotHeldError}); the others are still extended.
   */
  heartbeatMany(leases: readonly LeaseRef[]): Promise<(number | FrontierError)[]> {
    return this.#leases.heartbeatMany(leases);
  }

  /**
   * The lease's fetch is done but the lease stays out (a page handler runs on the page): frees
   * the host's politeness slot now — in flight, backoff, adaptive delay (fed `durationMs`) and
   * next request time settled as {@link complete} settles them — so the host's next request
   * waits only its delay. The lease still ends with complete / fail / release, which then leave
   * the host alone; if its pod dies first, the lease is reaped and fetched again as any other.
   * `sinceSentMs` (ms since the request was sent, by the pod's monotonic clock) makes the gap
   * count from the send, as `complete`'s does. Idempotent. Throws {@link LeaseLostError} if
   * the lease was reaped.
   */
  freeSlot(lease: LeaseRef, result: { durationMs: number; sinceSentMs?: number }): Promise<void> {
    return this.#leases.freeSlot(lease, result.durationMs, result.sinceSentMs ?? 0);
  }

  /** Acknowledges a fetched URL. Throws {@link LeaseLostError} if the lease was reaped. */
  async complete(lease: LeaseRef, result: CompleteResult = {}): Promise<void> {
    const [outcome] = await this.#leases.completeMany([{ lease, result }]);
    if (outcome) throw outcome;
  }

  /**
   * Acknowledges many fetched URLs in two round trips. Returns, per item, `null` or the
   * error {@link complete} would have thrown for it (the others still complete).
   */
  completeMany(
    items: readonly { lease: LeaseRef; result?: CompleteResult }[],
  ): Promise<(FrontierError | null)[]> {
    return this.#leases.completeMany(items);
  }

  /**
   * Reports a failed fetch: retryable failures back off the host and requeue the URL
   * until `maxRetries`, then (or at once when not retryable) it is dead-lettered. With
   * `sent: false` (refused before any request went out) the host's backoff and
   * `next_allowed_at` are left as they are.
   */
  fail(lease: LeaseRef, result: FailResult): Promise<FailOutcome> {
    return this.#leases.fail(lease, result);
  }

  /**
   * Gives a lease back untouched: the URL returns to the front of its queue with its attempt
   * count unchanged. `holdMs` keeps the whole host unclaimed for that long (its
   * `next_allowed_at` moves to at least now + holdMs, by Redis time) — for a host that must
   * not be asked yet, e.g. while its robots.txt is unreachable.
   */
  release(lease: LeaseRef, options: ReleaseOptions = {}): Promise<void> {
    return this.#leases.release(lease, options);
  }

  // ───────────────────────────── ownership moves ─────────────────────────────

  /**
   * Requeues the leases held by a pod known to be dead (the membership layer calls this
   * once the pod's session expired). With `leaseTimeoutMs: 0` this is the only way such
   * leases come back. Walks the due indexes of all pods (hosts with leases always have an
   * entry there): O(hosts), meant for the rare membership change.
   */
  reclaimPod(deadPod: string): Promise<{ requeued: number; deadLettered: number }> {
    return this.#ownership.reclaimPod(deadPod);
  }

  /**
   * Stores a pod's background-fault counts (kind → count, e.g. `redisOom`, `frontier.forward`)
   * so that readers (the API, `/metrics`, the dashboard) show them; replaces what the pod
   * reported before. At most 64 kinds of ≤ 64 characters.
   */
  async reportFaults(pod: string, faults: Record<string, number>): Promise<void> {
    const { redis, keys } = this.#ctx;
    const entries = Object.entries(faults).filter(
      ([kind, n]) => kind.length <= 64 && Number.isSafeInteger(n),
    );
    const key = keys.podFaults(checkPod(pod));
    if (entries.length === 0) return;
    await redis
      .multi()
      .del(key)
      .hset(key, Object.fromEntries(entries.slice(0, 64).map(([k, n]) => [k, String(n)])))
      .exec();
  }

  /**
   * Forgets a pod that left: drops it from the pods set (so reindex, reclaim and the
   * stats readers stop visiting it) and deletes its due index, index bookkeeping and
   * counters — only when its due index and backlog are empty (returns false otherwise,
   * changing nothing). The global counters keep what it did. The membership layer calls this once a
   * departed pod has held nothing for its retention period.
   */
  forgetPod(pod: string): Promise<boolean> {
    return this.#ownership.forgetPod(pod);
  }

  /**
   * Puts every host of a domain in its current owner's due index and removes it from
   * every other pod's (membership handoff; also repairs an index after a crash). A
   * recently pinned entry in another pod's index stays there until its pin ends (then one
   * visit forwards it): a caller with a stale ring must not take a host out of the index
   * of its true owner. `evictFrom` names one pod whose entry goes at once, pin or not: the
   * caller's own index when it hands off what it no longer owns on a ring it has just
   * checked is current (see `evict` in index-update-3.lua).
   */
  reindex(domain: string, options: { evictFrom?: string } = {}): Promise<void> {
    return this.#ownership.reindex(domain, options);
  }

  /**
   * Moves every domain found in `fromPod`'s due index to its current owner (a pod that
   * left or died; the membership layer calls this, then {@link reclaimPod} for a dead
   * pod). Returns the number of domains reindexed.
   */
  handOff(fromPod: string): Promise<number> {
    return this.#ownership.handOff(fromPod);
  }

  /**
   * Moves every name of `pod`'s backlog (hosts of packed domains not yet claimed, see the
   * `packNewDomains` option) into its due index, due now, so that a reindex of what that
   * index lists moves them too. For a pod that left or died, before its domains are moved
   * (the membership layer does this); a live pod drains its own backlog as it claims.
   * Returns the number of names moved.
   */
  spillBacklog(pod: string): Promise<number> {
    return this.#ownership.spillBacklog(pod);
  }

  // ───────────────────────────── admin ─────────────────────────────

  /** Stops claims from a domain (leases already out finish normally). */
  pause(domain: string): Promise<void> {
    return this.#admin.setPaused(domain, true);
  }

  /** Lets claims from a paused domain resume. */
  resume(domain: string): Promise<void> {
    return this.#admin.setPaused(domain, false);
  }

  /**
   * Keeps a host (`{ host }`, its domain from the host) or a whole domain (`{ domain }`)
   * from being asked until `untilMs` (epoch ms, compared with Redis time; 0 lifts the
   * block). URLFrontier's BlockQueueUntil. Unlike {@link pause} it ends by itself; leases
   * already out finish normally. Kept with the domain: survives restarts and handoffs.
   */
  blockUntil(target: BlockTarget, untilMs: number): Promise<void> {
    return this.#admin.blockUntil(target, untilMs);
  }

  /**
   * Per-host politeness overrides (robots crawl-delay, concurrency, delay) and the crawl's
   * limit on the host; `null` restores the default (no limit), an absent field is left as
   * it is.
   */
  setHostPolicy(host: string, policy: HostPolicy, domain?: string): Promise<void> {
    return this.#admin.setHostPolicy(host, policy, domain);
  }

  /**
   * Deletes the URLs waiting in a host's queue and refetch schedule (URLFrontier's
   * DeleteQueue); returns how many. Leases already out finish normally; the URLs stay seen
   * (discovering them again does not queue them); the host's politeness state stays.
   */
  dropHost(host: string, domain?: string): Promise<number> {
    return this.#admin.dropHost(host, domain);
  }

  /** Moves up to `max` of a domain's oldest dead letters back to its queues (attempt 0). */
  requeueDeadLetters(domain: string, max = 1000): Promise<number> {
    return this.#admin.requeueDeadLetters(domain, max);
  }

  // ───────────────────────────── the pod's reads ─────────────────────────────

  /** Global counters (eventually consistent); same as `inspector.stats()`. */
  stats(): Promise<CounterStats> {
    return this.inspector.stats();
  }

  /** Whether nothing is queued or in flight anywhere, exactly; see `inspector.settled()`. */
  settled(): Promise<boolean> {
    return this.inspector.settled();
  }
}
