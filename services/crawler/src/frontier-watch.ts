/**
 * Watches that the frontier the pod works on is still there. At start the pod learns the
 * frontier's identity (a random id in Redis, created by the first pod); every `intervalMs`,
 * and before the pod would exit as idle, it checks that Redis still holds that id. A Redis
 * restarted without persistence (or flushed) has none, or a new one: every queued URL is
 * gone, and an empty frontier must not pass for a finished crawl. The pod then stops with
 * `SHARDLINE_ERR_FRONTIER_LOST`, loudly, and exits non-zero.
 */
import {
  FrontierLostError,
  hashListpackEntriesShortfall,
  hashListpackShortfall,
  type RedisFrontier,
  type SettingShortfall,
} from '@shardline/frontier';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';

/** Options of {@link FrontierWatch}. */
export interface FrontierWatchOptions {
  frontier: Pick<RedisFrontier, 'identity' | 'checkIdentity'>;
  /** For the persistence and memory-setting checks at start (`CONFIG GET`). */
  redis: Redis | Cluster;
  pod: string;
  intervalMs: number;
  log: Logger;
  /** Called once, when the frontier is found lost. */
  onLost: (error: FrontierLostError) => void;
}

export class FrontierWatch {
  readonly #o: FrontierWatchOptions;
  #identity: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #lost: FrontierLostError | undefined;

  constructor(options: FrontierWatchOptions) {
    this.#o = options;
  }

  /** Learns the frontier's identity (creating it on a new frontier) and starts checking. */
  async start(): Promise<void> {
    if (this.#identity === undefined) {
      this.#identity = await this.#o.frontier.identity();
      await this.#warnWithoutPersistence();
      await this.#warnHashListpack();
    }
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.check(), this.#o.intervalMs);
    this.#timer.unref();
  }

  /**
   * One warning when Redis keeps nothing across a restart (no AOF, no RDB snapshots): a
   * restart then loses the frontier. A server that refuses CONFIG (managed Redis) is not judged.
   */
  async #warnWithoutPersistence(): Promise<void> {
    let aof: string | undefined;
    let save: string | undefined;
    try {
      const redis = this.#o.redis as Redis;
      aof = ((await redis.config('GET', 'appendonly')) as string[])[1];
      save = ((await redis.config('GET', 'save')) as string[])[1];
    } catch (error) {
      this.#o.log.debug({ err: error }, 'cannot read the Redis persistence settings');
      return;
    }
    if (aof === 'yes' || (save !== undefined && save.trim() !== '')) return;
    this.#o.log.warn(
      { appendonly: aof, save },
      'Redis has no persistence (appendonly no, save ""): a restart of Redis loses the whole frontier (pods then stop with SHARDLINE_ERR_FRONTIER_LOST); turn on appendonly yes (docs/operations.md, Faults)',
    );
  }

  /**
   * One warning per hash setting below what the compact layout needs: hash-max-listpack-value
   * (a host hash with a folded queue, a domain hash with its inline seen-set) and
   * hash-max-listpack-entries (the archive hashes of finished domains, at tens of millions of
   * them). Nothing breaks, but such hashes then cost several times the memory. A server that
   * refuses CONFIG (managed Redis) is not judged.
   */
  async #warnHashListpack(): Promise<void> {
    let value: SettingShortfall | undefined;
    let entries: SettingShortfall | undefined;
    try {
      value = await hashListpackShortfall(this.#o.redis);
      entries = await hashListpackEntriesShortfall(this.#o.redis);
    } catch (error) {
      this.#o.log.debug(
        { err: error },
        'cannot read the Redis hash-max-listpack-value and -entries settings',
      );
      return;
    }
    const what = [
      [value, 'B a small host queue folded into its host hash takes', 'several times larger'],
      [entries, 'finished domains an archive hash holds at ~67 M archived domains', '~75 % larger'],
    ] as const;
    for (const [shortfall, needs, cost] of what) {
      if (shortfall === undefined) continue;
      this.#o.log.warn(
        { [shortfall.setting]: shortfall.value },
        `Redis ${shortfall.setting} is ${shortfall.value}, below the ${shortfall.needed} ${needs}: such hashes are then stored unpacked, ${cost}; set ${shortfall.setting} ${shortfall.recommended} (docs/operations.md, Redis)`,
      );
    }
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The loss, once found. */
  get lost(): FrontierLostError | undefined {
    return this.#lost;
  }

  /**
   * Checks the identity now; resolves `true` when the frontier is lost. A failed read (Redis
   * unreachable: the client logs and reconnects) is no verdict: the next check decides.
   */
  async check(): Promise<boolean> {
    if (this.#lost) return true;
    if (this.#identity === undefined) return false;
    try {
      await this.#o.frontier.checkIdentity(this.#identity, this.#o.pod);
      return false;
    } catch (error) {
      if (!(error instanceof FrontierLostError)) {
        this.#o.log.debug({ err: error }, 'frontier identity check failed (retried)');
        return false;
      }
      if (this.#lost) return true;
      this.#lost = error;
      this.stop();
      this.#o.log.fatal({ code: error.code, err: error }, `${error.code}: ${error.message}`);
      this.#o.onLost(error);
      return true;
    }
  }
}
