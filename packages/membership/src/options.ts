/** Options of {@link Membership} and their validation. */
import { hostname } from 'node:os';
import {
  type FrontierInspector,
  isKeyPrefix,
  KEY_PREFIX_RULE,
  type RedisFrontier,
} from '@shardline/frontier';
import { DEFAULT_VNODES } from '@shardline/ring';
import type { Cluster, Redis } from 'ioredis';
import { MembershipOptionsError } from './errors.js';
import { checkSettings, type PublishedSettings } from './member-info.js';

/**
 * What the membership layer needs from the frontier (a `RedisFrontier` has it all): the
 * moves, and the reads behind handoff, reclaim and the stranded-domain sweep.
 */
export type MembershipFrontier = Pick<
  RedisFrontier,
  'reindex' | 'reclaimPod' | 'forgetPod' | 'spillBacklog'
> & {
  readonly inspector: Pick<
    FrontierInspector,
    'queuedDomainsOf' | 'domains' | 'isStranded' | 'pods'
  >;
};

/** Options of {@link Membership} (the consistent-hash ring assignment). */
export interface MembershipOptions {
  /** A connected ioredis client (`Redis` or `Cluster`) for the registry. */
  redis: Redis | Cluster;
  /**
   * Stable pod id (`POD_ID`, default the hostname, as a StatefulSet or compose replica
   * gives it): a pod restarting with the same id inside its session keeps its domains.
   * 1–128 characters of `[A-Za-z0-9._:-]` (the frontier's pod ids).
   */
  podId: string;
  /** Prefix of every key. Use the frontier's prefix. @default 'sl' */
  prefix?: string;
  /**
   * The frontier whose due indexes follow the ring. Without it the class only
   * tracks membership (`ownerOf`, events) and moves nothing.
   */
  frontier?: MembershipFrontier;
  /** Domains reindexed concurrently during a handoff or reclaim. @default 16 */
  handoffConcurrency?: number;
  /** The pod's capacity: it gets `vnodes × weight` ring tokens. @default 1 */
  weight?: number;
  /** A pod not heard from for this long is removed (its session expires). @default 10000 */
  sessionTimeoutMs?: number;
  /** Heartbeat period; must be below `sessionTimeoutMs`. @default floor(sessionTimeoutMs / 3) */
  heartbeatMs?: number;
  /**
   * Ring tokens per unit weight, proposed for the ring config. The first pod ever to
   * join stores it; every pod then uses the stored value. @default DEFAULT_VNODES (8192)
   */
  vnodes?: number;
  /** Seed of the ring's token hashes, proposed like `vnodes`. @default 0 */
  seed?: number;
  /**
   * Subscribe to epoch messages. With `false` the pod learns changes from its heartbeat
   * replies only (at most one heartbeat late). @default true
   */
  subscribe?: boolean;
  /**
   * How long a survivor holds the lock on reclaiming a removed pod before another may
   * take over (renewed while the work runs). @default max(30000, 3 × sessionTimeoutMs)
   */
  reclaimLockMs?: number;
  /**
   * Period of the stranded-domain sweep (one pod per period does it); `0` turns the
   * automatic sweep off (`sweep()` still works). @default 60000
   */
  sweepIntervalMs?: number;
  /** Domains checked per sweep. @default 1000 */
  sweepBatch?: number;
  /**
   * How long a pod that left stays known (in `pods`, `/metrics`) once its due index is empty;
   * then it is forgotten. Entries left in a departed pod's index are moved to their owners on
   * the next heartbeat whatever this is. @default 600000
   */
  departedRetentionMs?: number;
  /**
   * At start, requeue the leases a previous incarnation of this pod id left behind
   * (`frontier.reclaimPod(podId)`) when the registry says there may be some: a restart
   * inside the session, or a join that cancelled a pending reclaim. @default true
   */
  reclaimOwnLeasesOnStart?: boolean;
  /** Diagnostics stored with the member (host, pid). @default `${hostname()}/${process.pid}` */
  info?: string;
  /**
   * Settings this pod runs with, stored with its member record for readers
   * (`MembershipReader.memberInfo()`), e.g. the politeness defaults. @default none
   */
  settings?: PublishedSettings;
}

export interface ResolvedMembershipOptions {
  podId: string;
  prefix: string;
  weight: number;
  sessionTimeoutMs: number;
  heartbeatMs: number;
  vnodes: number;
  seed: number;
  subscribe: boolean;
  reclaimLockMs: number;
  sweepIntervalMs: number;
  sweepBatch: number;
  departedRetentionMs: number;
  reclaimOwnLeasesOnStart: boolean;
  info: string;
  settings: PublishedSettings;
  handoffConcurrency: number;
}

const POD_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function int(name: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new MembershipOptionsError(
      name,
      value,
      max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`,
    );
  }
  return value;
}

function bool(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new MembershipOptionsError(name, value, 'a boolean');
  return value;
}

function common(options: MembershipOptions): {
  podId: string;
  prefix: string;
  handoffConcurrency: number;
} {
  if (typeof options !== 'object' || options === null) {
    throw new MembershipOptionsError('options', options, 'an object');
  }
  const r = options.redis as unknown;
  if (typeof r !== 'object' || r === null || typeof (r as Redis).defineCommand !== 'function') {
    throw new MembershipOptionsError('redis', r, 'an ioredis Redis or Cluster client');
  }
  if (typeof options.podId !== 'string' || !POD_ID.test(options.podId)) {
    throw new MembershipOptionsError('podId', options.podId, '1-128 characters of [A-Za-z0-9._:-]');
  }
  const prefix = options.prefix ?? 'sl';
  if (!isKeyPrefix(prefix)) throw new MembershipOptionsError('prefix', prefix, KEY_PREFIX_RULE);
  const f = options.frontier as unknown;
  if (f !== undefined && (typeof f !== 'object' || f === null || !('reindex' in f))) {
    throw new MembershipOptionsError('frontier', f, 'a RedisFrontier');
  }
  return {
    podId: options.podId,
    prefix,
    handoffConcurrency: int('handoffConcurrency', options.handoffConcurrency ?? 16, 1, 1024),
  };
}

/** The greatest pod weight: a pod of weight w holds `vnodes × w` ring tokens. */
export const MAX_POD_WEIGHT = 1000;

/** Validates {@link MembershipOptions}; the error names the option, the value and its type. */
export function resolveMembershipOptions(options: MembershipOptions): ResolvedMembershipOptions {
  const base = common(options);
  const weight = options.weight ?? 1;
  if (
    typeof weight !== 'number' ||
    !Number.isFinite(weight) ||
    weight <= 0 ||
    weight > MAX_POD_WEIGHT
  ) {
    throw new MembershipOptionsError(
      'weight',
      weight,
      `a finite number > 0 and ≤ ${MAX_POD_WEIGHT}`,
    );
  }
  const sessionTimeoutMs = int('sessionTimeoutMs', options.sessionTimeoutMs ?? 10_000, 100);
  const heartbeatMs = int(
    'heartbeatMs',
    options.heartbeatMs ?? Math.floor(sessionTimeoutMs / 3),
    10,
    sessionTimeoutMs - 1,
  );
  const info = options.info ?? `${hostname()}/${process.pid}`;
  if (typeof info !== 'string' || info.length > 200 || /[\t\r\n]/.test(info)) {
    throw new MembershipOptionsError('info', info, 'a string of ≤ 200 characters without tabs');
  }
  return {
    ...base,
    weight,
    sessionTimeoutMs,
    heartbeatMs,
    vnodes: int('vnodes', options.vnodes ?? DEFAULT_VNODES, 1, 2 ** 20),
    seed: int('seed', options.seed ?? 0, 0),
    subscribe: bool('subscribe', options.subscribe ?? true),
    reclaimLockMs: int(
      'reclaimLockMs',
      options.reclaimLockMs ?? Math.max(30_000, 3 * sessionTimeoutMs),
      100,
    ),
    sweepIntervalMs: int('sweepIntervalMs', options.sweepIntervalMs ?? 60_000, 0),
    sweepBatch: int('sweepBatch', options.sweepBatch ?? 1000, 1, 100_000),
    departedRetentionMs: int('departedRetentionMs', options.departedRetentionMs ?? 600_000, 0),
    reclaimOwnLeasesOnStart: bool(
      'reclaimOwnLeasesOnStart',
      options.reclaimOwnLeasesOnStart ?? true,
    ),
    info,
    settings: checkSettings(options.settings ?? {}),
  };
}
