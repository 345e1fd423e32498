/**
 * The one place a URLFrontier crawl id becomes a shardline crawl, and the frontier of each.
 * URLFrontier's default crawl is "DEFAULT" (and the empty string, which protobuf cannot tell
 * from unset); it is shardline's `default` crawl. Any other id is a shardline crawl namespace
 * of the same name (its own queues, seen-set, leases, counters and due indexes; a host's
 * politeness shared with every crawl), so it must be a valid shardline crawl id. All crawls
 * share the node's ring: a node owns the same domains in every crawl.
 */
import {
  CRAWL_ID,
  type CrawlRegistry,
  DEFAULT_CRAWL,
  isCrawlId,
  type RedisFrontier,
} from '@shardline/frontier';
import { UrlFrontierError, UrlFrontierErrorCode } from './errors.js';

/** URLFrontier's name of the default crawl. */
export const DEFAULT_CRAWL_ID = 'DEFAULT';

/** Crawls one node keeps a frontier for at once. */
const MAX_CRAWLS = 1000;

export class CrawlFrontiers {
  readonly #make: (crawlId: string) => RedisFrontier;
  readonly #registry: CrawlRegistry;
  readonly #frontiers = new Map<string, RedisFrontier>();

  /** `make` builds the frontier of a shardline crawl id (the default one is built at once). */
  constructor(make: (crawlId: string) => RedisFrontier, registry: CrawlRegistry) {
    this.#make = make;
    this.#registry = registry;
    this.#frontiers.set(DEFAULT_CRAWL, make(DEFAULT_CRAWL));
  }

  /** The default crawl's frontier (the one the node's membership hands off). */
  get default(): RedisFrontier {
    return this.#frontiers.get(DEFAULT_CRAWL)!;
  }

  /** The shardline crawl id of a URLFrontier crawl id; throws for one that cannot be one. */
  static toShardline(crawlId: string | undefined, method: string): string {
    if (crawlId === undefined || crawlId === '' || crawlId === DEFAULT_CRAWL_ID)
      return DEFAULT_CRAWL;
    if (isCrawlId(crawlId)) return crawlId;
    throw new UrlFrontierError(
      UrlFrontierErrorCode.INVALID_ARGUMENT,
      `${method}: crawl id ${JSON.stringify(crawlId)} is not a shardline crawl id (${CRAWL_ID}: ` +
        `lower-case letters, digits, '.', '_', '-', at most 64); send "${DEFAULT_CRAWL_ID}" or an empty ` +
        'crawlID for the default crawl',
    );
  }

  /** The URLFrontier crawl id of a shardline crawl id. */
  static toUrlFrontier(crawlId: string): string {
    return crawlId === DEFAULT_CRAWL ? DEFAULT_CRAWL_ID : crawlId;
  }

  /** The frontier of a URLFrontier crawl id (built on first use). */
  get(crawlId: string | undefined, method: string): RedisFrontier {
    return this.ofShardline(CrawlFrontiers.toShardline(crawlId, method), method);
  }

  /** The frontier of a shardline crawl id (built on first use). */
  ofShardline(crawlId: string, method: string): RedisFrontier {
    let frontier = this.#frontiers.get(crawlId);
    if (frontier) return frontier;
    if (this.#frontiers.size >= MAX_CRAWLS) {
      throw new UrlFrontierError(
        UrlFrontierErrorCode.INVALID_ARGUMENT,
        `${method}: this node already serves ${MAX_CRAWLS} crawls; delete finished ones (DeleteCrawl)`,
      );
    }
    frontier = this.#make(crawlId);
    this.#frontiers.set(crawlId, frontier);
    return frontier;
  }

  /** Shardline ids of every crawl in the registry that is not being deleted, default first. */
  async ids(): Promise<string[]> {
    return (await this.#registry.list()).filter((c) => c.state === 'active').map((c) => c.crawlId);
  }

  /** The frontiers of every crawl other than the default one (for handoffs). */
  async others(method: string): Promise<RedisFrontier[]> {
    const ids = await this.ids();
    return ids.filter((id) => id !== DEFAULT_CRAWL).map((id) => this.ofShardline(id, method));
  }

  /**
   * Deletes a crawl's keys (the registry's batched delete) and forgets its frontier; returns
   * the URLs it held (queued and in flight). The default crawl cannot be deleted.
   */
  async delete(crawlId: string, method: string): Promise<number> {
    const id = CrawlFrontiers.toShardline(crawlId, method);
    if (id === DEFAULT_CRAWL) {
      throw new UrlFrontierError(
        UrlFrontierErrorCode.UNIMPLEMENTED,
        `${method}: the default crawl cannot be deleted: its keys hold every crawl's politeness ` +
          'state (delete the other crawls, or stop the nodes and flush the key prefix)',
      );
    }
    if ((await this.#registry.get(id)) === null) return 0;
    const { queued = 0, inFlight = 0 } = await this.ofShardline(id, method).inspector.stats();
    await this.#registry.delete(id);
    this.#frontiers.delete(id);
    return Math.max(0, queued) + Math.max(0, inFlight);
  }
}
