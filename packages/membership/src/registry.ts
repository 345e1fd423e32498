/**
 * The membership registry on Redis: one method per Lua script, each building KEYS in the
 * script's header order and decoding its reply. Nothing else calls the scripts.
 */
import type { Cluster, Redis } from 'ioredis';
import { MembershipReplyError } from './errors.js';
import type { MembershipKeys } from './keys.js';
import { decodeMemberInfo } from './member-info.js';
import { SCRIPT_COMMANDS as C, callScript, defineScripts } from './scripts.js';

/** A pod of the member list and its weight. */
export interface MemberEntry {
  id: string;
  weight: number;
}

/** The member list at one epoch, with the ring config every pod must use. */
export interface MembershipView {
  epoch: number;
  /** Stored ring config; `undefined` before the first join. */
  vnodes: number | undefined;
  seed: number | undefined;
  members: MemberEntry[];
}

/** How a heartbeat went for the caller. */
export const HeartbeatStatus = {
  /** The session was renewed. */
  Renewed: 0,
  /** Joined as a new member; the epoch was bumped. */
  Joined: 1,
  /** Same id re-joined by a new instance inside its session: a restart, no epoch bump. */
  Restarted: 2,
  /** The caller's session had been expired by others; it joined again (epoch bumped). */
  Rejoined: 3,
  /** ('join' only) Another instance holds the id's live session; nothing was written. */
  Held: 4,
  /**
   * ('beat' only) Another instance took this id's session over while the caller was stalled
   * (see `awaitHolderSilence`); nothing was written: the caller must stop.
   */
  Superseded: 5,
} as const;
export type HeartbeatStatus = (typeof HeartbeatStatus)[keyof typeof HeartbeatStatus];

/** Who holds a pod id's live session (see `Registry.holder`). */
export interface SessionHolder {
  expiryMs: number;
  instance: string;
  info: string;
}

/** A removed pod whose leftovers await one survivor. */
export interface PendingReclaim {
  pod: string;
  /** Epoch at which it was removed: only a ring at least this new may do the work. */
  removedAtEpoch: number;
  kind: ReclaimKind;
}

/** Why a pod was removed: a crash (session expired) or a graceful leave. */
export type ReclaimKind = 'crash' | 'left' | 'left-released';

export interface HeartbeatReply {
  status: HeartbeatStatus;
  /** Redis time of the heartbeat (ms). */
  nowMs: number;
  /** A survivor is reclaiming this pod id's leftovers right now. */
  reclaimOfSelfInProgress: boolean;
  /** This join cancelled a pending reclaim of the caller's id (it must requeue its own leases). */
  cancelledReclaim: boolean;
  pending: PendingReclaim[];
  /** Present when the stored epoch differs from the one the caller knows. */
  view: MembershipView | undefined;
}

export interface HeartbeatRequest {
  pod: string;
  sessionTimeoutMs: number;
  weight: number;
  instance: string;
  info: string;
  mode: 'join' | 'take' | 'beat';
  knownEpoch: number;
  vnodes: number;
  seed: number;
}

/** Result of a reclaim-claim: granted (with the kind), or why not. */
export type ReclaimClaim =
  | { granted: true; kind: ReclaimKind }
  | { granted: false; reason: 'done' | 'stale-ring' | 'taken' };

export class Registry {
  readonly keys: MembershipKeys;
  readonly #redis: Redis | Cluster;

  constructor(redis: Redis | Cluster, keys: MembershipKeys) {
    this.#redis = redis;
    this.keys = keys;
    defineScripts(redis);
  }

  /** Joins, or renews the session; expires the others' sessions (heartbeat-8.lua). */
  async heartbeat(r: HeartbeatRequest): Promise<HeartbeatReply> {
    const k = this.keys;
    const reply = asArray(
      await callScript(this.#redis, C.heartbeat, [
        k.members(),
        k.meta(),
        k.epoch(),
        k.config(),
        k.reclaim(),
        k.reclaimKinds(),
        k.pulse(),
        k.root(),
        r.pod,
        r.sessionTimeoutMs,
        String(r.weight),
        r.instance,
        r.info,
        r.mode,
        r.knownEpoch,
        r.vnodes,
        r.seed,
        k.epochChannel(),
      ]),
      'heartbeat',
    );
    const status = Number(reply[0]) as HeartbeatStatus;
    const nPending = Number(reply[4]);
    const pending: PendingReclaim[] = [];
    let at = 5;
    for (let i = 0; i < nPending; i++, at += 3) {
      pending.push({
        pod: String(reply[at]),
        removedAtEpoch: Number(reply[at + 1]),
        kind: String(reply[at + 2]) as ReclaimKind,
      });
    }
    return {
      status,
      nowMs: Number(reply[1]),
      reclaimOfSelfInProgress: Number(reply[2]) === 1,
      cancelledReclaim: Number(reply[3]) === 1,
      pending,
      view: at < reply.length ? decodeView(reply, at, 'heartbeat') : undefined,
    };
  }

  /**
   * The instance holding `pod`'s session: its session end (Redis ms), instance id and
   * diagnostics (host/pid), or `undefined` when the id has no live session.
   */
  async holder(pod: string): Promise<SessionHolder | undefined> {
    const [expiry, record] = await Promise.all([
      this.#redis.zscore(this.keys.members(), pod),
      this.#redis.hget(this.keys.meta(), pod),
    ]);
    if (expiry === null || record === null) return undefined;
    // `<weight>\t<startedAtMs>\t<instance>\t<info>`: the info is everything after the third tab.
    const [, , instance = '', ...info] = record.split('\t');
    return { expiryMs: Number(expiry), instance, info: decodeMemberInfo(info.join('\t')).info };
  }

  /** Reads the current view (view-4.lua). */
  async view(): Promise<MembershipView> {
    const k = this.keys;
    const reply = asArray(
      await callScript(this.#redis, C.view, [k.members(), k.meta(), k.epoch(), k.config()]),
      'view',
    );
    return decodeView(reply, 0, 'view');
  }

  /**
   * Leaves the registry and takes the reclaim lock on itself for `lockMs` (leave-6.lua);
   * returns whether the pod was a member and the epoch.
   */
  async leave(
    pod: string,
    released: boolean,
    lockMs: number,
  ): Promise<{ removed: boolean; epoch: number }> {
    const k = this.keys;
    const reply = asArray(
      await callScript(this.#redis, C.leave, [
        k.members(),
        k.meta(),
        k.epoch(),
        k.reclaim(),
        k.reclaimKinds(),
        k.root(),
        pod,
        released ? 'left-released' : 'left',
        k.epochChannel(),
        lockMs,
      ]),
      'leave',
    );
    return { removed: Number(reply[0]) === 1, epoch: Number(reply[1]) };
  }

  /** Lets a held reclaim lock go and tells survivors to look (reclaim-unlock-1.lua). */
  async reclaimUnlock(pod: string, holder: string): Promise<boolean> {
    const k = this.keys;
    const reply = await callScript(this.#redis, C['reclaim-unlock'], [
      k.root(),
      pod,
      holder,
      k.epochChannel(),
    ]);
    return Number(reply) === 1;
  }

  /** Takes or renews the reclaim lock of a removed pod (reclaim-claim-4.lua). */
  async reclaimClaim(
    pod: string,
    holder: string,
    ringEpoch: number,
    lockMs: number,
  ): Promise<ReclaimClaim> {
    const k = this.keys;
    const reply = asArray(
      await callScript(this.#redis, C['reclaim-claim'], [
        k.reclaim(),
        k.reclaimKinds(),
        k.members(),
        k.root(),
        pod,
        holder,
        ringEpoch,
        lockMs,
      ]),
      'reclaim-claim',
    );
    switch (Number(reply[0])) {
      case 1:
        return { granted: true, kind: String(reply[1]) as ReclaimKind };
      case 0:
        return { granted: false, reason: 'done' };
      case 2:
        return { granted: false, reason: 'stale-ring' };
      case 3:
        return { granted: false, reason: 'taken' };
      default:
        throw new MembershipReplyError('reclaim-claim', reply);
    }
  }

  /** Marks a reclaim done if the caller still holds its lock (reclaim-done-3.lua). */
  async reclaimDone(pod: string, holder: string): Promise<boolean> {
    const k = this.keys;
    const reply = await callScript(this.#redis, C['reclaim-done'], [
      k.reclaim(),
      k.reclaimKinds(),
      k.root(),
      pod,
      holder,
    ]);
    return Number(reply) === 1;
  }

  /** Wins this interval's sweep (returns the cursor) or not (`null`) (sweep-claim-2.lua). */
  async sweepClaim(holder: string, intervalMs: number): Promise<number | null> {
    const k = this.keys;
    const reply = Number(
      await callScript(this.#redis, C['sweep-claim'], [
        k.sweepLock(),
        k.sweepCursor(),
        holder,
        intervalMs,
      ]),
    );
    return reply < 0 ? null : reply;
  }

  /** Stores where the next sweep starts (same slot as the lock). */
  async setSweepCursor(cursor: number): Promise<void> {
    await this.#redis.set(this.keys.sweepCursor(), String(cursor));
  }
}

function decodeView(reply: unknown[], at: number, script: string): MembershipView {
  const epoch = Number(reply[at]);
  const vnodes = reply[at + 1] === '' ? undefined : Number(reply[at + 1]);
  const seed = reply[at + 2] === '' ? undefined : Number(reply[at + 2]);
  const n = Number(reply[at + 3]);
  if (!Number.isSafeInteger(epoch) || !Number.isSafeInteger(n)) {
    throw new MembershipReplyError(script, reply);
  }
  const members: MemberEntry[] = [];
  for (let i = 0, p = at + 4; i < n; i++, p += 2) {
    members.push({ id: String(reply[p]), weight: Number(reply[p + 1]) });
  }
  return { epoch, vnodes, seed, members };
}

function asArray(reply: unknown, script: string): unknown[] {
  if (!Array.isArray(reply)) throw new MembershipReplyError(script, reply);
  return reply;
}
