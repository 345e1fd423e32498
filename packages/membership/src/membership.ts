/**
 * Pod membership on Redis and the consistent-hash ring built from it.
 *
 * Every pod heartbeats into a registry (a ZSET of session expiries computed from Redis
 * TIME); a change of the member list bumps an epoch and publishes it; every pod rebuilds
 * the ring from the stored member list (never from the order of events), catching up
 * from the stored epoch on every heartbeat. On a change each pod moves only the
 * due-index entries of its own that changed owner; a removed pod's leftovers (due index,
 * leases) are handled by exactly one survivor under an expiring lock.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { type HashRing, loadHasher } from '@shardline/ring';
import type { Cluster, Redis } from 'ioredis';
import type { Assignment } from './assignment.js';
import { MembershipStateError, MembershipSupersededError } from './errors.js';
import type { MembershipEvents, StopOptions, SweepReport } from './events.js';
import { handOffOwnIndex } from './handoff.js';
import { awaitHolderSilence } from './held-session.js';
import { recordRingView } from './history.js';
import { MembershipKeys } from './keys.js';
import { encodeMemberInfo } from './member-info.js';
import {
  type MembershipFrontier,
  type MembershipOptions,
  type ResolvedMembershipOptions,
  resolveMembershipOptions,
} from './options.js';
import { type HeartbeatReply, HeartbeatStatus, type MembershipView, Registry } from './registry.js';
import { RingTracker } from './ring-tracker.js';
import { SurvivorDuties } from './survivor-duties.js';

type State = 'new' | 'starting' | 'running' | 'stopping' | 'stopped';

/** The events after which a pod may have new due work (see {@link Membership.onChange}). */
const CHANGE_EVENTS = ['change', 'handoff', 'reclaimed'] as const;

/**
 * A pod's membership: registry heartbeat, epoch tracking, the ring, handoff of its due
 * index and the survivor duties (reclaim of removed pods, stranded-domain sweep). See
 * the package README for the integration order.
 */
export class Membership extends EventEmitter<MembershipEvents> implements Assignment {
  readonly keys: MembershipKeys;
  readonly #o: ResolvedMembershipOptions;
  readonly #redis: Redis | Cluster;
  readonly #registry: Registry;
  readonly #frontier: MembershipFrontier | undefined;
  // Random per process: tells a restart of this pod id from a renewed session.
  readonly #instance = randomUUID();
  readonly #rings: RingTracker;
  // Reclaims, departed-index tidy and stranded-domain sweep, started after each heartbeat.
  readonly #duties: SurvivorDuties;
  #state: State = 'new';
  #subscriber: Redis | Cluster | undefined;
  #timer: NodeJS.Timeout | undefined;
  // performance.now() of the last successful heartbeat: a relative local duration only.
  #lastBeatAt = Number.NEGATIVE_INFINITY;
  // Serialises handoffs (views apply at once; #apply ignores any older than the ring).
  #handoffs: Promise<void> = Promise.resolve();
  #beating: Promise<unknown> | undefined;
  // Background failures (each emitted as 'error' when someone listens; counted either way).
  #errors = 0;
  #superseded: MembershipSupersededError | undefined;

  constructor(options: MembershipOptions) {
    super();
    this.#o = resolveMembershipOptions(options);
    this.#redis = options.redis;
    this.#frontier = options.frontier;
    this.keys = new MembershipKeys(this.#o.prefix);
    this.#registry = new Registry(options.redis, this.keys);
    this.#rings = new RingTracker(this.#o.podId, this.#o);
    this.#duties = new SurvivorDuties({
      redis: this.#redis,
      keys: this.keys,
      registry: this.#registry,
      frontier: this.#frontier,
      options: this.#o,
      rings: this.#rings,
      running: () => this.#state === 'running',
      events: this,
      onError: (error) => this.#fail(error),
    });
  }

  /** This pod's id. */
  get podId(): string {
    return this.#o.podId;
  }

  /**
   * Background failures since start: heartbeats, handoffs, reclaims and sweeps that failed
   * (each also emitted as `'error'`) and the subscriber connection's errors.
   */
  get errorCount(): number {
    return this.#errors;
  }

  /**
   * Set when a heartbeat found this pod's id taken over by another instance (this process had
   * stalled): the membership stopped at once, without leaving (see the `superseded` event).
   */
  get superseded(): MembershipSupersededError | undefined {
    return this.#superseded;
  }

  /** Epoch of the ring in use (0 before start). */
  get epoch(): number {
    return this.#rings.epoch;
  }

  /** The ring in use, `undefined` before the first view. */
  get ring(): HashRing | undefined {
    return this.#rings.ring;
  }

  /**
   * Whether the pod may claim: started, not stopping, on the ring, and its last
   * heartbeat succeeded within the session timeout (a pod cut off from the registry may
   * already count as dead for the others).
   */
  get ready(): boolean {
    return (
      this.#state === 'running' &&
      !this.#rings.leaving &&
      this.#rings.ring?.has(this.#o.podId) === true &&
      performance.now() - this.#lastBeatAt < this.#o.sessionTimeoutMs
    );
  }

  /**
   * Owner of a domain on the current ring; pass it as the frontier's `ownerOf`. While
   * leaving gracefully it answers from the ring without this pod.
   */
  readonly ownerOf = (domain: string): string => this.#rings.ownerOf(domain);

  /**
   * {@link Assignment.onChange}: `listener` runs after each `change` (new ring), `handoff`
   * (this pod moved entries of its due index) and `reclaimed` (a removed pod's due index was
   * moved to its new owners) event.
   */
  onChange(listener: () => void): () => void {
    const handler = () => listener();
    for (const event of CHANGE_EVENTS) this.on(event, handler);
    return () => {
      for (const event of CHANGE_EVENTS) this.off(event, handler);
    };
  }

  /**
   * Joins the registry and resolves once the pod has a ring and may claim: subscribes to
   * epoch messages, waits while a survivor still reclaims this id's previous
   * incarnation, hands off entries of its due index it no longer owns (a restart after a
   * change), requeues that incarnation's leases when there may be some, then starts
   * heartbeating.
   */
  async start(): Promise<void> {
    if (this.#state !== 'new') throw new MembershipStateError(`start() in state ${this.#state}`);
    this.#state = 'starting';
    await loadHasher();
    if (this.#o.subscribe) await this.#subscribe();
    let reply = await this.#beat('join');
    if (reply.status === HeartbeatStatus.Held) {
      try {
        await awaitHolderSilence(this.#registry, this.#o.podId, this.#o, reply.nowMs);
      } catch (error) {
        this.#closeSubscriber();
        this.#state = 'stopped';
        throw error;
      }
      reply = await this.#beat('take');
    }
    const restarted = reply.status === HeartbeatStatus.Restarted;
    let mayHoldLeases = restarted || reply.cancelledReclaim || reply.reclaimOfSelfInProgress;
    while (reply.reclaimOfSelfInProgress) {
      await sleep(this.#o.heartbeatMs);
      reply = await this.#beat('beat');
      mayHoldLeases ||= reply.cancelledReclaim;
    }
    if (!this.#rings.ring) this.#apply(await this.#registry.view());
    await this.#handoffs;
    if (restarted) this.emit('restarted');
    if (mayHoldLeases && this.#o.reclaimOwnLeasesOnStart && this.#frontier) {
      await this.#frontier.reclaimPod(this.#o.podId);
    }
    if (this.#state !== 'starting') return; // stop() was called meanwhile
    this.#state = 'running';
    this.#schedule();
  }

  /**
   * Stops. Graceful (SIGTERM): stop claiming → `releaseLeases()` → leave (epoch bump,
   * published) → hand off the whole due index on the ring without this pod → wait for
   * reclaims this pod was doing. Not graceful: stop heartbeating only.
   */
  async stop(options: StopOptions = {}): Promise<void> {
    if (this.#state === 'stopped' || this.#state === 'new') {
      this.#state = 'stopped';
      return;
    }
    const graceful = options.graceful ?? true;
    this.#state = 'stopping';
    if (this.#timer) clearTimeout(this.#timer);
    // #tick reports its own failure through 'error' and never rejects.
    await this.#beating;
    // Superseded meanwhile: the id is another instance's now, nothing of it is ours to leave.
    if (this.#superseded) return;
    if (graceful) {
      let released = false;
      if (options.releaseLeases) {
        await options.releaseLeases();
        released = true;
      }
      await this.#handoffs;
      // From here ownerOf answers from the ring without this pod, and views that arrive
      // (our own leave's message among them) queue no handoff: this one moves everything.
      const self = this.#o.podId;
      this.#rings.startLeaving();
      await this.#registry.leave(self, released, this.#o.reclaimLockMs);
      // Read after the leave: a view that arrived meanwhile may have replaced that ring.
      const leavingRing = this.#rings.leavingRing;
      if (leavingRing) await this.#handOffOwn(undefined, leavingRing);
      // Done with our own index: one survivor now checks it once more (late entries).
      await this.#registry.reclaimUnlock(self, self);
      await this.#duties.settle();
    }
    this.#closeSubscriber();
    this.#state = 'stopped';
  }

  #closeSubscriber(): void {
    this.#subscriber?.disconnect();
    this.#subscriber = undefined;
  }

  /**
   * One page of the stranded-domain sweep, if this pod wins the current interval (at most
   * one pod per `sweepIntervalMs`): checks up to `sweepBatch` domains of the frontier's
   * domains index, continuing where the last sweep stopped, and reindexes any domain with
   * work outside its owner's due index. Returns `null` when another pod had the interval.
   */
  sweep(): Promise<SweepReport | null> {
    return this.#duties.sweep();
  }

  /** The member list of the current ring (ids and weights). */
  members(): { id: string; weight: number }[] {
    return (this.#rings.ring?.members() ?? []).map((m) => ({ id: m.id, weight: m.weight ?? 1 }));
  }

  // ───────────────────────────── internals ─────────────────────────────

  async #subscribe(): Promise<void> {
    const sub = this.#redis.duplicate();
    this.#subscriber = sub;
    sub.on('message', (_channel: string, message: string) => {
      // "<epoch>" after a change; "reclaim:<pod>" when a leaver finished its own handoff.
      if (message.startsWith('reclaim:') || Number(message) > this.#rings.epoch) this.#refresh();
    });
    // A reconnected subscriber may have missed messages: catch up from the stored epoch.
    sub.on('ready', () => {
      if (this.#state === 'running') this.#refresh();
    });
    // ioredis reports each failed reconnect; the registry client's own errors say the same,
    // so these are counted, not emitted again.
    sub.on('error', () => {
      this.#errors += 1;
    });
    await sub.subscribe(this.keys.epochChannel());
  }

  #queueHandoff(task: () => Promise<void>): void {
    this.#handoffs = this.#handoffs.then(task).catch((error: unknown) => this.#fail(error));
  }

  #fail(error: unknown): void {
    this.#errors += 1;
    if (this.listenerCount('error') > 0) {
      this.emit('error', error instanceof Error ? error : new Error(String(error)));
    }
  }

  /**
   * Catches up from the stored epoch (after a message, or a reconnect). A running pod
   * heartbeats out of turn: the reply carries the view and the pending reclaims, so a
   * survivor starts on a removed pod's leftovers at once instead of a heartbeat later.
   */
  #refresh(): void {
    if (this.#state === 'stopped') return;
    if (this.#state === 'running') {
      void this.#tick();
      return;
    }
    this.#registry.view().then(
      (view) => this.#apply(view),
      (error: unknown) => this.#fail(error),
    );
  }

  async #beat(mode: 'join' | 'take' | 'beat'): Promise<HeartbeatReply> {
    const o = this.#o;
    const silentMs = performance.now() - this.#lastBeatAt;
    const reply = await this.#registry.heartbeat({
      pod: o.podId,
      sessionTimeoutMs: o.sessionTimeoutMs,
      weight: o.weight,
      instance: this.#instance,
      info: encodeMemberInfo(o.info, o.settings),
      mode,
      knownEpoch: this.#rings.epoch,
      vnodes: o.vnodes,
      seed: o.seed,
    });
    if (reply.status === HeartbeatStatus.Superseded) return this.#supersede(silentMs);
    this.#lastBeatAt = performance.now();
    if (reply.status === HeartbeatStatus.Rejoined) this.emit('session-lost');
    if (reply.view) this.#apply(reply.view);
    return reply;
  }

  #schedule(): void {
    if (this.#state !== 'running') return;
    this.#timer = setTimeout(() => {
      this.#beating = this.#tick().finally(() => {
        this.#beating = undefined;
        this.#schedule();
      });
    }, this.#o.heartbeatMs);
  }

  async #tick(): Promise<void> {
    try {
      const reply = await this.#beat('beat');
      this.#duties.afterHeartbeat(reply.pending);
    } catch (error) {
      // A superseded pod was told through its own event: not a failure to retry.
      if (!(error instanceof MembershipSupersededError)) this.#fail(error);
    }
  }

  /**
   * Another instance has this pod's id (it took the session over while this process stalled):
   * stop at once, writing nothing to the registry — a leave would remove the other's session.
   * Its leases were requeued by the other; completions of this one's are refused by the
   * frontier's lease fencing.
   */
  async #supersede(silentMs: number): Promise<never> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#state = 'stopped';
    this.#closeSubscriber();
    const holder = await this.#registry.holder(this.#o.podId).catch(() => undefined);
    const error = new MembershipSupersededError(this.#o.podId, holder?.info ?? '', silentMs);
    this.#superseded = error;
    this.emit('superseded', error);
    throw error;
  }

  /** Applies a view if it is newer than the ring in use; queues the handoff it implies. */
  #apply(view: MembershipView): void {
    const update = this.#rings.apply(view);
    if (!update) return;
    recordRingView(this.#redis, this.keys, view, this.#o).catch((error: unknown) =>
      this.#fail(error),
    );
    const { before, after } = update.change;
    this.emit('change', update.change);
    if (update.ownersChanged && !this.#rings.leaving) {
      this.#queueHandoff(() => this.#handOffOwn(before, after));
    }
  }

  /** Moves the entries of this pod's due index whose owner is no longer this pod (handoff.ts). */
  async #handOffOwn(before: HashRing | undefined, after: HashRing): Promise<void> {
    const frontier = this.#frontier;
    if (!frontier) return;
    const deps = {
      redis: this.#redis,
      keys: this.keys,
      frontier,
      self: this.#o.podId,
      concurrency: this.#o.handoffConcurrency,
      ownerOf: this.ownerOf,
      staysOn: (ring: HashRing) => !this.#rings.leaving && this.#rings.ring === ring,
    };
    const report = await handOffOwnIndex(deps, before, after);
    if (report) this.emit('handoff', report);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
