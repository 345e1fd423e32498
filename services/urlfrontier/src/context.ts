/**
 * What every method handler of a node shares: its id, the frontier per crawl id, the leases it
 * handed out, the registry reader, the crawl's active switch, its counters and its log.
 */
import type { MembershipReader } from '@shardline/membership';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { CrawlFrontiers } from './crawl-frontiers.js';
import type { LeaseBook } from './lease-book.js';
import type { ResolvedNodeOptions } from './options.js';

/** The node's own counters (URLFrontier GetStats `counts` with `local`), by name. */
export class NodeCounters {
  readonly #counts = new Map<string, number>();
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  add(name: string, n = 1): number {
    const value = (this.#counts.get(name) ?? 0) + n;
    this.#counts.set(name, value);
    return value;
  }

  /**
   * Counts a refusal or fault and logs it at its 1st, 10th, 100th… occurrence, so a client
   * that repeats a mistake is told without the log filling up.
   */
  fault(name: string, message: string, detail: Record<string, unknown> = {}): void {
    const n = this.add(name);
    if (Number.isInteger(Math.log10(n)))
      this.#log.warn({ ...detail, count: n, kind: name }, message);
  }

  snapshot(): Record<string, number> {
    return Object.fromEntries(this.#counts);
  }
}

/**
 * URLFrontier's SetActive/GetActive: a crawl-wide switch in Redis (every node stops handing
 * out URLs), and a node-local one (`local: true`). PutURLs still accepts URLs either way.
 */
export class ActiveSwitch {
  readonly #redis: Redis | Cluster;
  readonly #key: string;
  #localActive = true;

  constructor(redis: Redis | Cluster, prefix: string) {
    this.#redis = redis;
    this.#key = `${prefix}:urlfrontier:inactive`;
  }

  async set(active: boolean, local: boolean): Promise<void> {
    if (local) this.#localActive = active;
    else if (active) await this.#redis.del(this.#key);
    else await this.#redis.set(this.#key, '1');
  }

  /** Whether this node hands out URLs: both switches on (`local`: the node's switch alone). */
  async get(local = false): Promise<boolean> {
    if (local) return this.#localActive;
    return this.#localActive && (await this.#redis.exists(this.#key)) === 0;
  }
}

export interface NodeContext {
  podId: string;
  options: ResolvedNodeOptions;
  redis: Redis | Cluster;
  crawls: CrawlFrontiers;
  leases: LeaseBook;
  reader: MembershipReader;
  active: ActiveSwitch;
  counters: NodeCounters;
  log: Logger;
}
