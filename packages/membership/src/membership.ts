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
import { diffRings, HashRing, loadHasher } from '@shardline/ring';
import type { Cluster, Redis } from 'ioredis';
import type { Assignment } from './assignment.js';
import { tidyDeparted } from './departed.js';
import { MembershipNotReadyError, MembershipStateError } from './errors.js';
import type { MembershipEvents, StopOptions, SweepReport } from './events.js';
import { recordRingView } from './history.js';
import { MembershipKeys } from './keys.js';
import { forEachLimited } from './limit.js';
import { encodeMemberInfo } from './member-info.js';
import {
  type MembershipFrontier,
  type MembershipOptions,
  type ResolvedMembershipOptions,
  resolveMembershipOptions,
} from './options.js';
import { reclaimRemovedPod } from './reclaim.js';
import {
  type HeartbeatReply,
  HeartbeatStatus,
  type MembershipView,
  type PendingReclaim,
  Registry,
} from './registry.js';

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
  #state: State = 'new';
  #ring: HashRing | undefined;
  // The ring without this pod, used by ownerOf while leaving (undefined when alone).
  #leavingRing: HashRing | undefined;
  #leaving = false;
  #epoch = 0;
  #subscriber: Redis | Cluster | undefined;
  #timer: NodeJS.Timeout | undefined;
  // performance.now() of the last successful heartbeat: a relative local duration only.
  #lastBeatAt = Number.NEGATIVE_INFINITY;
  // Serialises handoffs (views apply at once; #apply ignores any older than the ring).
  #handoffs: Promise<void> = Promise.resolve();
  // Removed pods this pod is reclaiming right now, and the work in flight.
  readonly #reclaiming = new Map<string, Promise<void>>();
  #sweeping: Promise<unknown> | undefined;
  #tidying: Promise<unknown> | undefined;
  #lastSweepAt = Number.NEGATIVE_INFINITY;
  #beating: Promise<unknown> | undefined;
  // Background failures (each emitted as 'error' when someone listens; counted either way).
  #errors = 0;

  constructor(options: MembershipOptions) {
    super();
    this.#o = resolveMembershipOptions(options);
    this.#redis = options.redis;
    this.#frontier = options.frontier;
    this.keys = new MembershipKeys(this.#o.prefix);
    this.#registry = new Registry(options.redis, this.keys);
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

  /** Epoch of the ring in use (0 before start). */
  get epoch(): number {
    return this.#epoch;
  }

  /** The ring in use, `undefined` before the first view. */
  get ring(): HashRing | undefined {
    return this.#ring;
  }

  /**
   * Whether the pod may claim: started, not stopping, on the ring, and its last
   * heartbeat succeeded within the session timeout (a pod cut off from the registry may
   * already count as dead for the others).
   */
  get ready(): boolean {
    return (
      this.#state === 'running' &&
      !this.#leaving &&
      this.#ring?.has(this.#o.podId) === true &&
      performance.now() - this.#lastBeatAt < this.#o.sessionTimeoutMs
    );
  }

  /**
   * Owner of a domain on the current ring; pass it as the frontier's `ownerOf`. While
   * leaving gracefully it answers from the ring without this pod.
   */
  readonly ownerOf = (domain: string): string => {
    const ring = this.#leaving && this.#leavingRing ? this.#leavingRing : this.#ring;
    if (!ring || ring.size === 0) throw new MembershipNotReadyError(`ownerOf(${domain})`);
    return ring.owner(domain);
  };

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
    const restarted = reply.status === HeartbeatStatus.Restarted;
    let mayHoldLeases = restarted || reply.cancelledReclaim || reply.reclaimOfSelfInProgress;
    while (reply.reclaimOfSelfInProgress) {
      await sleep(this.#o.heartbeatMs);
      reply = await this.#beat('beat');
      mayHoldLeases ||= reply.cancelledReclaim;
    }
    if (!this.#ring) this.#apply(await this.#registry.view());
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
      const ring = this.#ring;
      this.#leavingRing = ring?.has(self) ? (ring.size > 1 ? ring.remove(self) : undefined) : ring;
      this.#leaving = true;
      await this.#registry.leave(self, released, this.#o.reclaimLockMs);
      if (this.#leavingRing) await this.#handOffOwn(undefined, this.#leavingRing);
      // Done with our own index: one survivor now checks it once more (late entries).
      await this.#registry.reclaimUnlock(self, self);
      await Promise.allSettled([...this.#reclaiming.values()]);
      // The sweep and the tidy report their own failures through 'error'.
      await this.#sweeping;
      await this.#tidying;
    }
    if (this.#subscriber) {
      this.#subscriber.disconnect();
      this.#subscriber = undefined;
    }
    this.#state = 'stopped';
  }

  /**
   * One page of the stranded-domain sweep, if this pod wins the current interval (at most
   * one pod per `sweepIntervalMs`): checks up to `sweepBatch` domains of the frontier's
   * domains index, continuing where the last sweep stopped, and reindexes any domain with
   * work outside its owner's due index. Returns `null` when another pod had the interval.
   */
  async sweep(): Promise<SweepReport | null> {
    const frontier = this.#frontier;
    if (!frontier) throw new MembershipStateError('sweep() needs the frontier option');
    if (!this.#ring) throw new MembershipNotReadyError('sweep()');
    const interval = this.#o.sweepIntervalMs > 0 ? this.#o.sweepIntervalMs : 1000;
    const cursor = await this.#registry.sweepClaim(this.#o.podId, interval);
    if (cursor === null) return null;
    const page = await frontier.inspector.domains({ offset: cursor, limit: this.#o.sweepBatch });
    const stranded: string[] = [];
    await forEachLimited(page, this.#o.handoffConcurrency, async ({ domain }) => {
      if (await frontier.inspector.isStranded(domain, this.ownerOf(domain))) {
        stranded.push(domain);
        await frontier.reindex(domain);
      }
    });
    const next = page.length < this.#o.sweepBatch ? 0 : cursor + page.length;
    await this.#registry.setSweepCursor(next);
    const report = { checked: page.length, stranded: stranded.sort(), cursor: next };
    this.emit('swept', report);
    return report;
  }

  /** The member list of the current ring (ids and weights). */
  members(): { id: string; weight: number }[] {
    return (this.#ring?.members() ?? []).map((m) => ({ id: m.id, weight: m.weight ?? 1 }));
  }

  // ───────────────────────────── internals ─────────────────────────────

  async #subscribe(): Promise<void> {
    const sub = this.#redis.duplicate();
    this.#subscriber = sub;
    sub.on('message', (_channel: string, message: string) => {
      // "<epoch>" after a change; "reclaim:<pod>" when a leaver finished its own handoff.
      if (message.startsWith('reclaim:') || Number(message) > this.#epoch) this.#refresh();
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

  async #beat(mode: 'join' | 'beat'): Promise<HeartbeatReply> {
    const o = this.#o;
    const reply = await this.#registry.heartbeat({
      pod: o.podId,
      sessionTimeoutMs: o.sessionTimeoutMs,
      weight: o.weight,
      instance: this.#instance,
      info: encodeMemberInfo(o.info, o.settings),
      mode,
      knownEpoch: this.#epoch,
      vnodes: o.vnodes,
      seed: o.seed,
    });
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
      this.#takeReclaims(reply.pending);
      this.#maybeTidyDeparted(reply.pending);
      this.#maybeSweep();
    } catch (error) {
      this.#fail(error);
    }
  }

  /** Applies a view if it is newer than the ring in use; queues the handoff it implies. */
  #apply(view: MembershipView): void {
    if (this.#ring && view.epoch <= this.#epoch) return;
    if (view.members.length === 0) {
      // Nobody left (this pod just left, or the store was wiped): keep the last ring.
      this.#epoch = Math.max(this.#epoch, view.epoch);
      return;
    }
    const before = this.#ring;
    recordRingView(this.#redis, this.keys, view, this.#o).catch((error: unknown) =>
      this.#fail(error),
    );
    const after = new HashRing(view.members, {
      vnodes: view.vnodes ?? this.#o.vnodes,
      seed: view.seed ?? this.#o.seed,
      epoch: view.epoch,
    });
    this.#ring = after;
    this.#epoch = view.epoch;
    if (this.#leaving) {
      const self = this.#o.podId;
      this.#leavingRing = !after.has(self)
        ? after
        : after.size > 1
          ? after.remove(self)
          : undefined;
    }
    const beforeIds = new Set(before?.ids() ?? []);
    const afterIds = new Set(after.ids());
    const sameOwners = before !== undefined && before.fingerprint === after.fingerprint;
    this.emit('change', {
      epoch: view.epoch,
      before,
      after,
      joined: [...afterIds].filter((id) => !beforeIds.has(id)),
      left: [...beforeIds].filter((id) => !afterIds.has(id)),
      movedFraction:
        before === undefined ? 1 : sameOwners ? 0 : diffRings(before, after).movedFraction,
    });
    if (!sameOwners && !this.#leaving) this.#queueHandoff(() => this.#handOffOwn(before, after));
  }

  /**
   * Moves the entries of this pod's due index whose owner is no longer this pod. Skipped
   * when the diff shows no keyspace leaving this pod; entries that stay are not touched.
   * A live pod on the stored epoch evicts its own copies even when recently pinned (they
   * would stay to the pin's end, be reindexed again by its next handoff and forwarded by
   * its claims, work that competes with the hosts it keeps). A leaver, or a pod whose
   * ring is already behind the registry, only parks them: a newer ring may give a host
   * back to it, and the pinned copy is then what finds it again.
   */
  async #handOffOwn(before: HashRing | undefined, after: HashRing): Promise<void> {
    const frontier = this.#frontier;
    if (!frontier) return;
    const self = this.#o.podId;
    if (before?.has(self) && after.has(self)) {
      const diff = diffRings(before, after);
      if (!diff.ranges.some((r) => r.from === self)) return;
    }
    const t0 = performance.now();
    const [domains, stored] = await Promise.all([
      frontier.inspector.queuedDomainsOf(self),
      this.#redis.get(this.keys.epoch()),
    ]);
    const moving = domains.filter((d) => this.ownerOf(d) !== self);
    const evict =
      !this.#leaving && after.has(self) && this.#ring === after && Number(stored) === after.epoch;
    const options = evict ? { evictFrom: self } : {};
    await forEachLimited(moving, this.#o.handoffConcurrency, (d) => frontier.reindex(d, options));
    this.emit('handoff', {
      epoch: after.epoch,
      pod: self,
      scanned: domains.length,
      moved: moving.length,
      durationMs: performance.now() - t0,
    });
  }

  /** Starts the reclaim of each removed pod this pod's ring is new enough for. */
  #takeReclaims(pending: PendingReclaim[]): void {
    if (!this.#frontier || this.#state !== 'running') return;
    for (const p of pending) {
      if (p.pod === this.#o.podId || this.#reclaiming.has(p.pod)) continue;
      if (p.removedAtEpoch > this.#epoch) continue;
      const work = this.#reclaim(p)
        .catch((error: unknown) => this.#fail(error))
        .finally(() => this.#reclaiming.delete(p.pod));
      this.#reclaiming.set(p.pod, work);
    }
  }

  async #reclaim(p: PendingReclaim): Promise<void> {
    const report = await reclaimRemovedPod(
      {
        registry: this.#registry,
        frontier: this.#frontier!,
        self: this.#o.podId,
        epoch: () => this.#epoch,
        lockMs: this.#o.reclaimLockMs,
        concurrency: this.#o.handoffConcurrency,
        onError: (error) => this.#fail(error),
      },
      p.pod,
    );
    if (report) this.emit('reclaimed', report);
  }

  /** Moves what departed pods' indexes hold and forgets those empty long enough (departed.ts). */
  #maybeTidyDeparted(pending: PendingReclaim[]): void {
    const frontier = this.#frontier;
    const ring = this.#ring;
    if (!frontier || !ring || this.#tidying || this.#state !== 'running') return;
    const skip = new Set([...pending.map((p) => p.pod), ...this.#reclaiming.keys()]);
    const deps = {
      redis: this.#redis,
      keys: this.keys,
      frontier,
      concurrency: this.#o.handoffConcurrency,
      retentionMs: this.#o.departedRetentionMs,
    };
    this.#tidying = tidyDeparted(deps, new Set(ring.ids()), skip)
      .then((report) => {
        if (report.moved.length > 0 || report.forgotten.length > 0) this.emit('departed', report);
      })
      .catch((error: unknown) => this.#fail(error))
      .finally(() => {
        this.#tidying = undefined;
      });
  }

  #maybeSweep(): void {
    const interval = this.#o.sweepIntervalMs;
    if (!this.#frontier || interval === 0 || this.#sweeping) return;
    // Local pacing of attempts only; the Redis lock decides who sweeps each interval.
    if (performance.now() - this.#lastSweepAt < interval) return;
    this.#lastSweepAt = performance.now();
    this.#sweeping = this.sweep()
      .catch((error: unknown) => this.#fail(error))
      .finally(() => {
        this.#sweeping = undefined;
      });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
