/**
 * The modulo assignment, kept for comparison with the ring: `owner(domain) =
 * replicas[hash(domain) mod N]`, where the replica list and N are learned without any
 * configuration from per-interval `INCR` counters (see lua/mod-tick-1.lua). Each pod
 * registers once per interval at a random phase picked at start; the previous interval's
 * arrival order is the replica list, final and identical for every pod.
 *
 * A change of the list is applied safely: stop claiming, drain (the `drain` hook), adopt
 * the new list, move this pod's due-index entries it no longer owns, and resume at the
 * next interval boundary, when every live pod has adopted the same list. Its weakness is
 * structural: a change of N moves about (N−1)/N of all domains and pauses every pod for
 * up to an interval, where the ring moves ≈ 1/N and pauses nothing it keeps.
 */
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Cluster, Redis } from 'ioredis';
import xxhash from 'xxhash-wasm';
import { MembershipNotReadyError, MembershipStateError } from './errors.js';
import { MembershipKeys } from './keys.js';
import { forEachLimited } from './limit.js';
import type { HandoffReport, ReclaimReport, StopOptions } from './membership.js';
import {
  type MembershipFrontier,
  type ModuloAssignmentOptions,
  type ResolvedModuloOptions,
  resolveModuloOptions,
} from './options.js';
import { type ModuloTick, Registry } from './registry.js';

/** Emitted when a pod adopts a new replica list. */
export interface ModuloChange {
  /** Interval whose arrivals form the new list. */
  interval: number;
  before: readonly string[] | undefined;
  after: readonly string[];
}

/** Events of {@link ModuloAssignment}. */
export interface ModuloEvents {
  change: [ModuloChange];
  handoff: [HandoffReport];
  reclaimed: [ReclaimReport];
  /** Claiming resumed after a transition. */
  resumed: [];
  error: [Error];
}

type State = 'new' | 'running' | 'stopped';

let h32: ((input: string, seed?: number) => number) | undefined;

/** See the module comment. Same `ownerOf` / `ready` surface as {@link Membership}. */
export class ModuloAssignment extends EventEmitter<ModuloEvents> {
  readonly keys: MembershipKeys;
  readonly #o: ResolvedModuloOptions;
  readonly #redis: Redis | Cluster;
  readonly #registry: Registry;
  readonly #frontier: MembershipFrontier | undefined;
  #state: State = 'new';
  // Adopted replica list (arrival order of one closed interval).
  #list: readonly string[] | undefined;
  #interval = -1;
  #ready = false;
  // Phase of this pod's registration inside each interval (ms), fixed at start.
  #phaseMs = 0;
  #timer: NodeJS.Timeout | undefined;
  #latest: ModuloTick | undefined;
  #transitions: Promise<void> = Promise.resolve();
  #pending = 0;
  #sweepingGone = false;

  constructor(options: ModuloAssignmentOptions) {
    super();
    this.#o = resolveModuloOptions(options);
    this.#redis = options.redis;
    this.#frontier = options.frontier;
    this.keys = new MembershipKeys(this.#o.prefix);
    this.#registry = new Registry(options.redis, this.keys);
  }

  get podId(): string {
    return this.#o.podId;
  }

  /** Whether the pod may claim: it is in the adopted list and no transition is running. */
  get ready(): boolean {
    return this.#state === 'running' && this.#ready;
  }

  /** The adopted replica list (arrival order), `undefined` before the first. */
  get replicas(): readonly string[] | undefined {
    return this.#list;
  }

  /** Interval whose arrivals form the adopted list. */
  get interval(): number {
    return this.#interval;
  }

  /** Owner of a domain under the adopted list; pass it as the frontier's `ownerOf`. */
  readonly ownerOf = (domain: string): string => {
    const list = this.#list;
    if (!list || list.length === 0 || !h32) throw new MembershipNotReadyError(`ownerOf(${domain})`);
    return list[h32(domain, 0) % list.length]!;
  };

  /**
   * Picks a random phase, registers every interval from then on, and resolves once this
   * pod is in an adopted list and claiming may start (two to three intervals).
   */
  async start(): Promise<void> {
    if (this.#state !== 'new') throw new MembershipStateError(`start() in state ${this.#state}`);
    this.#state = 'running';
    h32 ??= (await xxhash()).h32;
    const interval = this.#o.intervalMs;
    // Keep the phase off the boundaries so Redis-time jitter cannot push a registration
    // into the neighbouring interval.
    this.#phaseMs = Math.floor(interval * (0.1 + 0.8 * this.#o.random()));
    const [sec, usec] = (await this.#redis.time()) as [string | number, string | number];
    const nowMs = Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
    const ready = new Promise<void>((resolve) => {
      const check = () => {
        if (this.ready || this.#state !== 'running') {
          this.off('resumed', check);
          resolve();
        }
      };
      this.on('resumed', check);
    });
    this.#timer = setTimeout(() => this.#tick(), interval - (nowMs % interval) + this.#phaseMs);
    await ready;
  }

  /**
   * Stops registering. The pod stops claiming at once; `releaseLeases` runs if given.
   * The others notice the pod missing from the next closed interval and one of them
   * hands off its due index.
   */
  async stop(options: StopOptions = {}): Promise<void> {
    if (this.#state !== 'running') {
      this.#state = 'stopped';
      return;
    }
    this.#state = 'stopped';
    this.#ready = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.emit('resumed');
    if (options.graceful !== false && options.releaseLeases) await options.releaseLeases();
    await this.#transitions;
  }

  #tick(): void {
    if (this.#state !== 'running') return;
    const t0 = performance.now();
    this.#registry.modTick(this.#o.podId, this.#o.intervalMs).then(
      (tick) => {
        if (this.#state !== 'running') return;
        // Next registration at the same phase of the next interval (Redis-time based).
        const wait = tick.msToNextInterval + this.#phaseMs - (performance.now() - t0);
        this.#timer = setTimeout(() => this.#tick(), Math.max(0, wait));
        if (this.#o.order === 'id') tick.previous.sort();
        this.#latest = tick;
        if (!sameList(tick.previous, this.#list) && tick.previous.length > 0) {
          this.#pending++;
          this.#transitions = this.#transitions
            .then(() => this.#transition(t0))
            .catch((error: unknown) => this.#fail(error))
            .finally(() => this.#pending--);
        } else if (!this.#ready && this.#pending === 0 && this.#list?.includes(this.#o.podId)) {
          this.#ready = true;
          this.emit('resumed');
        }
        if (this.#ready && this.#pending === 0 && this.#list?.[0] === this.#o.podId) {
          this.#sweepGone();
        }
      },
      (error: unknown) => {
        this.#fail(error);
        this.#timer = setTimeout(() => this.#tick(), this.#o.intervalMs);
      },
    );
  }

  /** Stop claiming, drain, adopt the newest list, hand off, resume at the next boundary. */
  async #transition(tickStartedAt: number): Promise<void> {
    const tick = this.#latest!;
    if (sameList(tick.previous, this.#list)) return;
    this.#ready = false;
    await this.#o.drain();
    const before = this.#list;
    this.#list = tick.previous;
    this.#interval = tick.interval - 1;
    this.emit('change', { interval: this.#interval, before, after: tick.previous });
    await this.#handOffOwn();
    const gone = (before ?? []).filter((p) => !tick.previous.includes(p));
    for (const pod of gone) await this.#reclaim(pod);
    // Every live pod adopts this list during the current interval: resume at its end.
    const left = tick.msToNextInterval - (performance.now() - tickStartedAt);
    if (left > 0) await sleep(left);
    if (this.#state === 'running' && this.#pending <= 1 && this.#list.includes(this.#o.podId)) {
      this.#ready = true;
      this.emit('resumed');
    }
  }

  async #handOffOwn(): Promise<void> {
    const frontier = this.#frontier;
    if (!frontier) return;
    const self = this.#o.podId;
    const t0 = performance.now();
    const domains = await frontier.queuedDomainsOf(self);
    const moving = domains.filter((d) => this.ownerOf(d) !== self);
    await forEachLimited(moving, this.#o.handoffConcurrency, (d) => frontier.reindex(d));
    this.emit('handoff', {
      epoch: this.#interval,
      pod: self,
      scanned: domains.length,
      moved: moving.length,
      durationMs: performance.now() - t0,
    });
  }

  /**
   * Run by the first pod of the adopted list only (one pod per list): moves entries
   * still sitting in the due index of any pod outside the list (placed there after its
   * reclaim by pods that had not yet adopted the list). Cheap when nothing is left: one
   * SMEMBERS and a ZCARD per departed pod.
   */
  #sweepGone(): void {
    const frontier = this.#frontier;
    const list = this.#list;
    if (!frontier || !list || this.#sweepingGone) return;
    this.#sweepingGone = true;
    (async () => {
      const pods = (await this.#redis.smembers(frontier.keys.pods())) as string[];
      for (const pod of pods) {
        if (list.includes(pod) || (await this.#redis.zcard(frontier.keys.due(pod))) === 0) continue;
        const t0 = performance.now();
        const domains = await frontier.queuedDomainsOf(pod);
        await forEachLimited(domains, this.#o.handoffConcurrency, (d) => frontier.reindex(d));
        this.emit('handoff', {
          epoch: this.#interval,
          pod,
          scanned: domains.length,
          moved: domains.length,
          durationMs: performance.now() - t0,
        });
      }
    })()
      .catch((error: unknown) => this.#fail(error))
      .finally(() => {
        this.#sweepingGone = false;
      });
  }

  /** Exactly one survivor (lock) hands off a vanished pod's due index and leases. */
  async #reclaim(pod: string): Promise<void> {
    const frontier = this.#frontier;
    if (!frontier) return;
    const lockMs = 3 * this.#o.intervalMs;
    if (!(await this.#registry.modReclaimClaim(pod, this.#o.podId, lockMs))) return;
    const t0 = performance.now();
    const domains = await frontier.queuedDomainsOf(pod);
    await forEachLimited(domains, this.#o.handoffConcurrency, (d) => frontier.reindex(d));
    const leases = await frontier.reclaimPod(pod);
    this.emit('reclaimed', {
      pod,
      kind: 'crash',
      domains: domains.length,
      ...leases,
      durationMs: performance.now() - t0,
    });
  }

  #fail(error: unknown): void {
    if (this.listenerCount('error') > 0) {
      this.emit('error', error instanceof Error ? error : new Error(String(error)));
    }
  }
}

function sameList(a: readonly string[], b: readonly string[] | undefined): boolean {
  return b !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
