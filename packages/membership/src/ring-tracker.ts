/**
 * The ring a pod uses and the epoch it is on. Views from the registry replace the ring only
 * when newer (they may arrive out of order: heartbeat replies, epoch messages, catch-ups);
 * while the pod leaves gracefully, `ownerOf` answers from the ring without it, so what it
 * hands off goes to the pods that stay.
 */
import { diffRings, HashRing } from '@shardline/ring';
import { MembershipNotReadyError } from './errors.js';
import type { MembershipChange } from './events.js';
import type { MembershipView } from './registry.js';

/** A view that replaced the ring in use. */
export interface RingUpdate {
  change: MembershipChange;
  /** Whether some keyspace changed owner (false when the new ring has the same owners). */
  ownersChanged: boolean;
}

/** The ring in use, its epoch, and the ring without this pod while it leaves. */
export class RingTracker {
  readonly #self: string;
  // Ring config used when the stored view has none yet (before the first join).
  readonly #defaults: { vnodes: number; seed: number };
  #ring: HashRing | undefined;
  // The ring without this pod, used by ownerOf while leaving (undefined when alone).
  #leavingRing: HashRing | undefined;
  #leaving = false;
  #epoch = 0;

  constructor(self: string, defaults: { vnodes: number; seed: number }) {
    this.#self = self;
    this.#defaults = defaults;
  }

  /** The ring in use, `undefined` before the first view. */
  get ring(): HashRing | undefined {
    return this.#ring;
  }

  /** Epoch of the ring in use (0 before the first view). */
  get epoch(): number {
    return this.#epoch;
  }

  /** Whether {@link startLeaving} was called. */
  get leaving(): boolean {
    return this.#leaving;
  }

  /** The ring without this pod while leaving; `undefined` when this pod is alone on it. */
  get leavingRing(): HashRing | undefined {
    return this.#leavingRing;
  }

  /** Owner of `domain`: on the ring without this pod while leaving, else on the ring in use. */
  ownerOf(domain: string): string {
    const ring = this.#leaving && this.#leavingRing ? this.#leavingRing : this.#ring;
    if (!ring || ring.size === 0) throw new MembershipNotReadyError(`ownerOf(${domain})`);
    return ring.owner(domain);
  }

  /** From now on {@link ownerOf} answers from the ring without this pod, for every later view too. */
  startLeaving(): void {
    this.#leavingRing = this.#without(this.#ring);
    this.#leaving = true;
  }

  /**
   * Applies `view` if it is newer than the ring in use. `undefined` when it is not, or when
   * it has no members (this pod just left, or the store was wiped): the last ring stays.
   */
  apply(view: MembershipView): RingUpdate | undefined {
    if (this.#ring && view.epoch <= this.#epoch) return undefined;
    if (view.members.length === 0) {
      this.#epoch = Math.max(this.#epoch, view.epoch);
      return undefined;
    }
    const before = this.#ring;
    const after = new HashRing(view.members, {
      vnodes: view.vnodes ?? this.#defaults.vnodes,
      seed: view.seed ?? this.#defaults.seed,
      epoch: view.epoch,
    });
    this.#ring = after;
    this.#epoch = view.epoch;
    if (this.#leaving) this.#leavingRing = this.#without(after);
    const beforeIds = new Set(before?.ids() ?? []);
    const afterIds = new Set(after.ids());
    const sameOwners = before !== undefined && before.fingerprint === after.fingerprint;
    return {
      change: {
        epoch: view.epoch,
        before,
        after,
        joined: [...afterIds].filter((id) => !beforeIds.has(id)),
        left: [...beforeIds].filter((id) => !afterIds.has(id)),
        movedFraction:
          before === undefined ? 1 : sameOwners ? 0 : diffRings(before, after).movedFraction,
      },
      ownersChanged: !sameOwners,
    };
  }

  #without(ring: HashRing | undefined): HashRing | undefined {
    const self = this.#self;
    if (!ring?.has(self)) return ring;
    return ring.size > 1 ? ring.remove(self) : undefined;
  }
}
