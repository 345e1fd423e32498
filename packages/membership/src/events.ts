/**
 * The events of {@link Membership} and the reports they carry, apart from the class so the
 * contract reads in one place.
 */

import type { HashRing } from '@shardline/ring';
import type { DepartedReport } from './departed.js';
import type { MembershipSupersededError } from './errors.js';
import type { ReclaimKind } from './registry.js';

/** Emitted on every new epoch: the ring before and after. */
export interface MembershipChange {
  epoch: number;
  /** `undefined` for the first view after `start()`. */
  before: HashRing | undefined;
  after: HashRing;
  joined: string[];
  left: string[];
  /** Fraction of the keyspace whose owner changed (1 for the first view). */
  movedFraction: number;
}

/** Emitted after a pod moved the entries of a due index that changed owner. */
export interface HandoffReport {
  /** Ring epoch the handoff followed. */
  epoch: number;
  /** Pod whose due index was handed off (this pod, or a pod that left or vanished). */
  pod: string;
  /** Domains in the pod's due index when the handoff looked. */
  scanned: number;
  /** Domains reindexed to their new owner. */
  moved: number;
  durationMs: number;
}

/** Emitted by the one survivor that handled a removed pod's leftovers. */
export interface ReclaimReport {
  pod: string;
  kind: ReclaimKind;
  /** Domains moved out of the removed pod's due index. */
  domains: number;
  /** Leases requeued / dead-lettered (0 when the pod released its leases itself). */
  requeued: number;
  deadLettered: number;
  durationMs: number;
}

/** Emitted after a sweep page. */
export interface SweepReport {
  /** Domains looked at. */
  checked: number;
  /** Domains found with work outside their owner's due index, now reindexed. */
  stranded: string[];
  /** Where the next sweep starts in the frontier's domains index. */
  cursor: number;
}

/** Events of {@link Membership}. */
export interface MembershipEvents {
  change: [MembershipChange];
  handoff: [HandoffReport];
  reclaimed: [ReclaimReport];
  swept: [SweepReport];
  /** Entries of departed pods' due indexes moved to their owners, or departed pods forgotten. */
  departed: [DepartedReport];
  /** Start found this id alive inside its session (a restart): no epoch bump. */
  restarted: [];
  /** Others had expired this pod's session (it stalled); it joined again. */
  'session-lost': [];
  /**
   * Another instance took this pod's id over while it stalled: the membership has stopped
   * without leaving; the pod must stop at once (its leases are already requeued).
   */
  superseded: [MembershipSupersededError];
  /** Background work failed (Redis unreachable, …); it is retried on the next heartbeat. */
  error: [Error];
}

/** Options of {@link Membership.stop}. */
export interface StopOptions {
  /**
   * `true`: leave the registry at once and hand off this pod's due index (SIGTERM).
   * `false`: just stop heartbeating (others notice after the session timeout, as for a
   * crash). @default true
   */
  graceful?: boolean;
  /**
   * Called after the pod stopped claiming and before it leaves: release (or finish) the
   * leases still held. When given and it resolves, survivors skip requeuing this pod's
   * leases.
   */
  releaseLeases?: () => Promise<void>;
}
