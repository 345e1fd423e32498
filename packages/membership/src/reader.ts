/**
 * Read-only view of the registry for processes that are not pods (the stats API, the
 * CLI): the member list of the current epoch, each member's session state, and the ring
 * config. Shaped to fit the API's `ClusterView`.
 */
import type { Cluster, Redis } from 'ioredis';
import { type RingHistoryEntry, readRingHistory } from './history.js';
import { MembershipKeys } from './keys.js';
import { decodeMemberInfo, type MemberInfo } from './member-info.js';
import { Registry } from './registry.js';

/** One member as the registry holds it. */
export interface RegistryMember {
  id: string;
  weight: number;
  /** Whether its session expiry is still ahead of Redis time. */
  alive: boolean;
  /** Redis time (ms) at which its session expires unless renewed. */
  sessionExpiresAtMs: number;
}

/** One member's record: diagnostics and the settings it published, with its session state. */
export interface MemberRecord extends MemberInfo {
  id: string;
  alive: boolean;
}

/** Reads the membership registry without joining it. */
export class MembershipReader {
  readonly keys: MembershipKeys;
  readonly #redis: Redis | Cluster;
  readonly #registry: Registry;

  /** @param prefix key prefix of the registry. @default 'sl' */
  constructor(redis: Redis | Cluster, prefix = 'sl') {
    this.#redis = redis;
    this.keys = new MembershipKeys(prefix);
    this.#registry = new Registry(redis, this.keys);
  }

  /** The members of the current epoch (sorted by id) with their session state. */
  async members(): Promise<RegistryMember[]> {
    const [view, scores, time] = await Promise.all([
      this.#registry.view(),
      this.#redis.zrange(this.keys.members(), 0, -1, 'WITHSCORES') as Promise<string[]>,
      this.#redis.time() as unknown as Promise<[string, string]>,
    ]);
    const nowMs = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
    const expiry = new Map<string, number>();
    for (let i = 0; i < scores.length; i += 2) expiry.set(scores[i]!, Number(scores[i + 1]));
    return view.members
      .map((m) => {
        const at = expiry.get(m.id) ?? 0;
        return { id: m.id, weight: m.weight, alive: at >= nowMs, sessionExpiresAtMs: at };
      })
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /**
   * Each member's diagnostics and published settings (sorted by id). A pod that left is
   * gone; one whose session expired stays (alive: false) until another pod's heartbeat
   * removes it, so its settings are the last ones known.
   */
  async memberInfo(): Promise<MemberRecord[]> {
    const members = await this.members();
    if (members.length === 0) return [];
    const records = await this.#redis.hmget(this.keys.meta(), ...members.map((m) => m.id));
    return members.map((m, i) => {
      // `<weight>\t<startedAtMs>\t<instance>\t<info>`: the info is everything after the third tab.
      const fields = (records[i] ?? '').split('\t');
      return { id: m.id, alive: m.alive, ...decodeMemberInfo(fields.slice(3).join('\t')) };
    });
  }

  /** The ring's recorded epochs (members and ring config), newest first. */
  ringHistory(limit?: number): Promise<RingHistoryEntry[]> {
    return readRingHistory(this.#redis, this.keys, limit);
  }

  /** The stored ring epoch (0 before any pod joined). */
  async epoch(): Promise<number> {
    return Number((await this.#redis.get(this.keys.epoch())) ?? 0);
  }

  /** The stored ring config, `undefined` before any pod joined. */
  async ringParams(): Promise<{ vnodes: number; seed: number } | undefined> {
    const view = await this.#registry.view();
    return view.vnodes === undefined ? undefined : { vnodes: view.vnodes, seed: view.seed ?? 0 };
  }
}
