/**
 * What every live pod does for the others after each heartbeat: the reclaim of removed pods'
 * leftovers (reclaim.ts, one survivor per removed pod under a lock), the tidy of departed
 * pods' due indexes (departed.ts) and the stranded-domain sweep (one pod per interval).
 * Each runs in the background, one at a time per kind; results go out as the membership's
 * events, failures to `onError`.
 */
import type { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Cluster, Redis } from 'ioredis';
import { tidyDeparted } from './departed.js';
import { MembershipNotReadyError, MembershipStateError } from './errors.js';
import type { MembershipEvents, SweepReport } from './events.js';
import type { MembershipKeys } from './keys.js';
import { forEachLimited } from './limit.js';
import type { MembershipFrontier, ResolvedMembershipOptions } from './options.js';
import { reclaimRemovedPod } from './reclaim.js';
import type { PendingReclaim, Registry } from './registry.js';
import type { RingTracker } from './ring-tracker.js';

export interface SurvivorDutiesDeps {
  redis: Redis | Cluster;
  keys: MembershipKeys;
  registry: Registry;
  /** Without a frontier there is nothing to move: every duty is a no-op, `sweep()` throws. */
  frontier: MembershipFrontier | undefined;
  options: ResolvedMembershipOptions;
  /** This pod's ring: the epoch a reclaim may act on, the members, the owners. */
  rings: RingTracker;
  /** Whether the pod is running (no new duty starts while it starts or stops). */
  running: () => boolean;
  events: Pick<EventEmitter<MembershipEvents>, 'emit'>;
  onError: (error: unknown) => void;
}

/** The survivor duties of one pod and the work of theirs in flight. */
export class SurvivorDuties {
  readonly #d: SurvivorDutiesDeps;
  // Removed pods this pod is reclaiming right now, and the work in flight.
  readonly #reclaiming = new Map<string, Promise<void>>();
  #sweeping: Promise<unknown> | undefined;
  #tidying: Promise<unknown> | undefined;
  #lastSweepAt = Number.NEGATIVE_INFINITY;

  constructor(deps: SurvivorDutiesDeps) {
    this.#d = deps;
  }

  /** Starts what a heartbeat reply calls for: reclaims of `pending`, the tidy, the sweep. */
  afterHeartbeat(pending: PendingReclaim[]): void {
    this.#takeReclaims(pending);
    this.#maybeTidyDeparted(pending);
    this.#maybeSweep();
  }

  /** See {@link Membership.sweep}. */
  async sweep(): Promise<SweepReport | null> {
    const { frontier, options: o, rings } = this.#d;
    if (!frontier) throw new MembershipStateError('sweep() needs the frontier option');
    if (!rings.ring) throw new MembershipNotReadyError('sweep()');
    const interval = o.sweepIntervalMs > 0 ? o.sweepIntervalMs : 1000;
    const cursor = await this.#d.registry.sweepClaim(o.podId, interval);
    if (cursor === null) return null;
    const page = await frontier.inspector.domains({ offset: cursor, limit: o.sweepBatch });
    const stranded: string[] = [];
    await forEachLimited(page, o.handoffConcurrency, async ({ domain }) => {
      if (await frontier.inspector.isStranded(domain, rings.ownerOf(domain))) {
        stranded.push(domain);
        await frontier.reindex(domain);
      }
    });
    const next = page.length < o.sweepBatch ? 0 : cursor + page.length;
    await this.#d.registry.setSweepCursor(next);
    const report = { checked: page.length, stranded: stranded.sort(), cursor: next };
    this.#d.events.emit('swept', report);
    return report;
  }

  /** Waits for the reclaims, the sweep and the tidy in flight (each reports its own failure). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.#reclaiming.values()]);
    await this.#sweeping;
    await this.#tidying;
  }

  /** Starts the reclaim of each removed pod this pod's ring is new enough for. */
  #takeReclaims(pending: PendingReclaim[]): void {
    const { frontier, options: o, rings } = this.#d;
    if (!frontier || !this.#d.running()) return;
    for (const p of pending) {
      if (p.pod === o.podId || this.#reclaiming.has(p.pod)) continue;
      if (p.removedAtEpoch > rings.epoch) continue;
      const work = this.#reclaim(frontier, p.pod)
        .catch((error: unknown) => this.#d.onError(error))
        .finally(() => this.#reclaiming.delete(p.pod));
      this.#reclaiming.set(p.pod, work);
    }
  }

  async #reclaim(frontier: MembershipFrontier, pod: string): Promise<void> {
    const { options: o, rings } = this.#d;
    const report = await reclaimRemovedPod(
      {
        registry: this.#d.registry,
        frontier,
        self: o.podId,
        epoch: () => rings.epoch,
        lockMs: o.reclaimLockMs,
        concurrency: o.handoffConcurrency,
        onError: this.#d.onError,
      },
      pod,
    );
    if (report) this.#d.events.emit('reclaimed', report);
  }

  /** Moves what departed pods' indexes hold and forgets those empty long enough (departed.ts). */
  #maybeTidyDeparted(pending: PendingReclaim[]): void {
    const { frontier, options: o } = this.#d;
    const ring = this.#d.rings.ring;
    if (!frontier || !ring || this.#tidying || !this.#d.running()) return;
    const skip = new Set([...pending.map((p) => p.pod), ...this.#reclaiming.keys()]);
    const deps = {
      redis: this.#d.redis,
      keys: this.#d.keys,
      frontier,
      concurrency: o.handoffConcurrency,
      retentionMs: o.departedRetentionMs,
    };
    this.#tidying = tidyDeparted(deps, new Set(ring.ids()), skip)
      .then((report) => {
        if (report.moved.length > 0 || report.forgotten.length > 0) {
          this.#d.events.emit('departed', report);
        }
      })
      .catch((error: unknown) => this.#d.onError(error))
      .finally(() => {
        this.#tidying = undefined;
      });
  }

  #maybeSweep(): void {
    const interval = this.#d.options.sweepIntervalMs;
    if (!this.#d.frontier || interval === 0 || this.#sweeping) return;
    // Local pacing of attempts only; the Redis lock decides who sweeps each interval.
    if (performance.now() - this.#lastSweepAt < interval) return;
    this.#lastSweepAt = performance.now();
    this.#sweeping = this.sweep()
      .catch((error: unknown) => this.#d.onError(error))
      .finally(() => {
        this.#sweeping = undefined;
      });
  }
}
