/**
 * Every Redis key and channel of the membership layer, spelled in one place. All keys
 * share the hash tag `{m}`, so every membership script touches one slot and runs
 * unchanged on Redis Cluster. Keys that scripts build from a key root (reclaim locks)
 * are spelled here too and must match the scripts in `lua/`.
 */
export class MembershipKeys {
  readonly prefix: string;

  constructor(prefix: string) {
    this.prefix = prefix;
  }

  /** Key root of the registry: the prefix of every membership key. */
  root(): string {
    return `${this.prefix}:{m}:`;
  }
  /** ZSET: live pod → session expiry (Redis ms). */
  members(): string {
    return `${this.root()}members`;
  }
  /** HASH: pod → `<weight>\t<startedAtMs>\t<instance>\t<info>`. */
  meta(): string {
    return `${this.root()}meta`;
  }
  /** STRING: the ring epoch, bumped on every change of the member list or a weight. */
  epoch(): string {
    return `${this.root()}epoch`;
  }
  /** HASH: ring config `vnodes`, `seed`; set by the first pod ever to join. */
  config(): string {
    return `${this.root()}config`;
  }
  /** ZSET: removed pod → epoch of its removal; pods whose leftovers await a survivor. */
  reclaim(): string {
    return `${this.root()}reclaim`;
  }
  /** HASH: removed pod → `crash` | `left` | `left-released`. */
  reclaimKinds(): string {
    return `${this.root()}kinds`;
  }
  /** STRING (built by scripts from the root): holder of the reclaim of a removed pod. */
  reclaimLock(pod: string): string {
    return `${this.root()}lock:${pod}`;
  }
  /** STRING: exists while some pod heartbeated within the session timeout. */
  pulse(): string {
    return `${this.root()}pulse`;
  }
  /** ZSET: epoch → JSON of that epoch's members and ring config (capped; see history.ts). */
  ringHistory(): string {
    return `${this.root()}ring-history`;
  }
  /** HASH: departed pod → Redis ms since its due index is empty (see departed.ts). */
  departed(): string {
    return `${this.root()}departed`;
  }
  /** STRING: holder of this interval's stranded-domain sweep. */
  sweepLock(): string {
    return `${this.root()}sweep:lock`;
  }
  /** STRING: offset into the frontier's domains index where the next sweep starts. */
  sweepCursor(): string {
    return `${this.root()}sweep:cursor`;
  }
  /** Pub/sub channel carrying each new epoch. */
  epochChannel(): string {
    return `${this.prefix}:m:epoch`;
  }
  /**
   * Every stored key of the registry (deleting a crawl's ring). Reclaim locks are left out:
   * they expire by themselves.
   */
  storedKeys(): string[] {
    return [
      this.members(),
      this.meta(),
      this.epoch(),
      this.config(),
      this.reclaim(),
      this.reclaimKinds(),
      this.pulse(),
      this.ringHistory(),
      this.departed(),
      this.sweepLock(),
      this.sweepCursor(),
    ];
  }
}
