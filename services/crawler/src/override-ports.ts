/**
 * The seed ports of port-less `--resolve host:address` overrides, shared by every pod in Redis.
 *
 * Such an override reaches only the ports of the seeds of the hosts under it (vet-address.ts),
 * and a pod learns a seed's port when it fetches the seed. After a handoff the host's deeper
 * URLs are fetched by a pod that never saw the seed: without this record it would refuse them
 * (dead letters, or a real DNS answer for the name). One set member per seeded `rule:port`
 * (the rule: the host of an exact override, `*.suffix`, or `*`; crawls before rules recorded
 * `host:port`), capped so a seeds file cannot grow it without bound.
 */
import type { Cluster, Redis } from 'ioredis';

/** Members beyond which no seed port is recorded (each ~60 B; the cap is ~6 MB). */
export const OVERRIDE_PORTS_CAP = 100_000;

export class SharedOverridePorts {
  readonly #redis: Redis | Cluster;
  readonly #key: string;
  readonly #cap: number;
  readonly #onFull: () => void;
  // What this pod recorded already: one SADD per seeded host:port per pod, not per seed.
  readonly #recorded = new Set<string>();

  /** `onFull` runs (once) when the set is at its cap and a seed port goes unrecorded. */
  constructor(options: {
    redis: Redis | Cluster;
    prefix: string;
    onFull: () => void;
    cap?: number;
  }) {
    this.#redis = options.redis;
    this.#key = `${options.prefix}:resolve:ports`;
    this.#cap = options.cap ?? OVERRIDE_PORTS_CAP;
    let told = false;
    this.#onFull = () => {
      if (told) return;
      told = true;
      options.onFull();
    };
  }

  /** Records that a seed under `rule` was on `port`, for the pods that take its hosts over. */
  async remember(rule: string, port: number): Promise<void> {
    const member = `${rule}:${port}`;
    if (this.#recorded.has(member)) return;
    if ((await this.#redis.scard(this.#key)) >= this.#cap) {
      this.#onFull();
      return;
    }
    await this.#redis.sadd(this.#key, member);
    if (this.#recorded.size < this.#cap) this.#recorded.add(member);
  }

  /** Whether some pod recorded a seed under `rule` (or of a host) on `port`. */
  async seeded(rule: string, port: number): Promise<boolean> {
    return (await this.#redis.sismember(this.#key, `${rule}:${port}`)) === 1;
  }
}
