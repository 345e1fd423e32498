/**
 * Crawls (namespaces) of one frontier: the registry that lists them, the record of the
 * domains each non-default crawl wrote keys of, and deletion of a crawl in batches of
 * domains (no KEYS, no SCAN). The default crawl is the layout from before crawls: it is
 * never recorded, and cannot be deleted this way (its keys hold every crawl's politeness).
 */
import type { Cluster, Redis } from 'ioredis';
import { DEFAULT_CRAWL } from './crawl-id.js';
import { CrawlDeletingError, FrontierArgumentError } from './errors.js';
import { Executor } from './executor.js';
import { FrontierKeys } from './keys.js';
import { resolveInspectorOptions } from './options.js';
import { SCRIPT_COMMANDS as C, defineScripts } from './scripts.js';

/** A crawl as the registry lists it. */
export interface CrawlInfo {
  crawlId: string;
  /** When the crawl first wrote a key (Redis ms); `null` for the default crawl. */
  createdAtMs: number | null;
  /** `deleting` from the start of `crawl delete` until it finishes (resumable). */
  state: 'active' | 'deleting';
}

/** Options of {@link CrawlRegistry}. */
export interface CrawlRegistryOptions {
  /** A connected ioredis client: `Redis` or `Cluster`. */
  redis: Redis | Cluster;
  /** Prefix of every key (the frontier's). @default 'sl' */
  prefix?: string;
}

/** Options of {@link CrawlRegistry.delete}. */
export interface CrawlDeleteOptions {
  /** Domains deleted per batch (one script per domain, then one SREM). @default 200 */
  batchDomains?: number;
  /**
   * Further keys of the crawl that live outside the frontier (results and items streams,
   * membership), unlinked before the crawl leaves the registry.
   */
  extraKeys?: string[];
  /** Called after each batch with the running totals. */
  onBatch?: (progress: CrawlDeleteProgress) => void;
}

/** Running totals of a deletion. */
export interface CrawlDeleteProgress {
  domains: number;
  keys: number;
}

function parseEntry(crawlId: string, value: string): CrawlInfo {
  const [at, state] = value.split(',');
  return {
    crawlId,
    createdAtMs: Number(at),
    state: state === 'deleting' ? 'deleting' : 'active',
  };
}

/** Records the domains a crawl writes (called by the frontier before it writes them). */
export class CrawlTracker {
  readonly #keys: FrontierKeys;
  readonly #exec: Executor;

  constructor(keys: FrontierKeys, exec: Executor) {
    this.#keys = keys;
    this.#exec = exec;
  }

  /**
   * Registers the crawl and records `domains` as touched (one script call; nothing for the
   * default crawl). Throws {@link CrawlDeletingError} while the crawl is being deleted.
   */
  async touch(domains: Iterable<string>): Promise<void> {
    if (this.#keys.isDefaultCrawl) return;
    const keys = this.#keys;
    const state = await this.#exec.script({
      command: C['crawl-touch'],
      args: [keys.crawls(), keys.crawlDomains(), keys.crawlId, ...domains],
    });
    if (state === 'deleting') throw new CrawlDeletingError(keys.crawlId);
  }
}

/** Lists and deletes the crawls of one frontier. Needs no pod and no ring. */
export class CrawlRegistry {
  readonly #redis: Redis | Cluster;
  readonly #prefix: string;
  readonly #exec: Executor;

  constructor(options: CrawlRegistryOptions) {
    const { redis, prefix } = resolveInspectorOptions(options);
    this.#redis = redis;
    this.#prefix = prefix;
    this.#exec = new Executor(redis);
    defineScripts(redis);
  }

  /** Every crawl: the default one first, then the others by id. */
  async list(): Promise<CrawlInfo[]> {
    const hash = (await this.#redis.hgetall(new FrontierKeys(this.#prefix).crawls())) as Record<
      string,
      string
    >;
    const others = Object.keys(hash)
      .sort()
      .map((id) => parseEntry(id, hash[id]!));
    return [{ crawlId: DEFAULT_CRAWL, createdAtMs: null, state: 'active' }, ...others];
  }

  /** One crawl, or `null` when no key of it was ever written (the default crawl always is). */
  async get(crawlId: string): Promise<CrawlInfo | null> {
    const keys = this.#keysOf(crawlId);
    if (keys.isDefaultCrawl) return { crawlId, createdAtMs: null, state: 'active' };
    const value = await this.#redis.hget(keys.crawls(), crawlId);
    return value === null ? null : parseEntry(crawlId, value);
  }

  /**
   * Marks a crawl `deleting` (idempotent): writes to it are refused from then on, and
   * {@link delete} finishes the deletion. Refuses the default crawl.
   */
  async markDeleting(crawlId: string): Promise<void> {
    const keys = this.#keysOf(crawlId);
    if (keys.isDefaultCrawl) {
      throw new FrontierArgumentError(
        'crawlId',
        crawlId,
        'a crawl other than "default" (its keys are every crawl\'s politeness state)',
      );
    }
    const registry = keys.crawls();
    const entry = await this.#redis.hget(registry, crawlId);
    const createdAt = entry === null ? '0' : entry.split(',')[0];
    await this.#redis.hset(registry, crawlId, `${createdAt},deleting`);
  }

  /**
   * Deletes every key of a crawl: each domain it wrote (one script per domain, in batches
   * of `batchDomains`, so the time per step is bounded by the batch, not the crawl), its
   * pods' due indexes and counters, its global counters and indexes, `extraKeys`; the
   * shared politeness keys stay. Marks the crawl `deleting` first (writes to it are
   * refused from then on) and leaves the registry last, so a crashed deletion is finished
   * by running it again. Refuses the default crawl. Stop the crawl's pods first.
   */
  async delete(crawlId: string, options: CrawlDeleteOptions = {}): Promise<CrawlDeleteProgress> {
    const keys = this.#keysOf(crawlId);
    if (keys.isDefaultCrawl) {
      throw new FrontierArgumentError(
        'crawlId',
        crawlId,
        'a crawl other than "default" (its keys are every crawl\'s politeness state)',
      );
    }
    const batch = options.batchDomains ?? 200;
    if (!Number.isSafeInteger(batch) || batch < 1) {
      throw new FrontierArgumentError('batchDomains', batch, 'a positive integer');
    }
    const registry = keys.crawls();
    await this.markDeleting(crawlId);

    const progress: CrawlDeleteProgress = { domains: 0, keys: 0 };
    const touched = keys.crawlDomains();
    for (;;) {
      const domains = (await this.#redis.srandmember(touched, batch)) as string[];
      if (domains.length === 0) break;
      const removed = await this.#exec.scripts(
        domains.map((d) => ({
          command: C['crawl-drop'],
          args: [keys.domain(d), keys.root(d), keys.archive(d)],
        })),
      );
      for (const n of removed) progress.keys += Number(n);
      // Forgotten only once their keys are gone: a crash re-drops them (idempotent).
      await this.#redis.srem(touched, ...domains);
      progress.domains += domains.length;
      options.onBatch?.({ ...progress });
    }
    const pods = (await this.#redis.smembers(keys.pods())) as string[];
    const rest = [
      ...pods.flatMap((pod) => keys.podKeys(pod)),
      ...keys.crawlGlobalKeys(),
      ...(options.extraKeys ?? []),
      touched,
    ];
    // One key per UNLINK: a Cluster refuses a multi-key command across slots.
    const unlinked = await Promise.all(rest.map((key) => this.#redis.unlink(key)));
    for (const n of unlinked) progress.keys += n;
    await this.#redis.hdel(registry, crawlId);
    return progress;
  }

  #keysOf(crawlId: string): FrontierKeys {
    // Validates the id like the frontier's option does.
    resolveInspectorOptions({ redis: this.#redis, prefix: this.#prefix, crawlId });
    return new FrontierKeys(this.#prefix, crawlId);
  }
}
