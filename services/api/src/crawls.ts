/**
 * The crawls of a frontier with their counters and live pods, for `GET /v1/crawls`,
 * `shardline crawl list` and the dashboard's crawl selector; and the per-crawl readers the
 * `?crawl=` filter of the routes uses. Bounded: a few reads per crawl, no scan.
 */
import {
  CrawlRegistry,
  crawlKeyPrefix,
  DEFAULT_CRAWL,
  FrontierInspector,
} from '@shardline/frontier';
import { MembershipReader } from '@shardline/membership';
import type { Cluster, Redis } from 'ioredis';
import { ClusterRing } from './cluster-ring.js';
import { RegistryClusterView } from './cluster-view.js';
import { StatsReader } from './stats-reader.js';

/** Most crawls listed (the registry is small; this bounds one answer). */
export const MAX_CRAWLS_LISTED = 1000;

/** One crawl and its counters (eventually consistent sums, as `GET /v1/stats`). */
export interface CrawlSummary {
  crawlId: string;
  state: 'active' | 'deleting';
  /** When the crawl first wrote a key (Redis ms); `null` for the default crawl. */
  createdAtMs: number | null;
  /** Live pods serving the crawl (registry sessions current). */
  livePods: number;
  domains: number;
  queued: number;
  inFlight: number;
  fetched: number;
  failed: number;
  dead: number;
}

/** Every crawl (default first), at most {@link MAX_CRAWLS_LISTED}, with its counters. */
export async function listCrawls(redis: Redis | Cluster, prefix: string): Promise<CrawlSummary[]> {
  const crawls = (await new CrawlRegistry({ redis, prefix }).list()).slice(0, MAX_CRAWLS_LISTED);
  return Promise.all(
    crawls.map(async (c) => {
      const inspector = new FrontierInspector({ redis, prefix, crawlId: c.crawlId });
      const [counters, domains, members] = await Promise.all([
        inspector.stats(),
        inspector.domainCount(),
        new MembershipReader(redis, crawlKeyPrefix(prefix, c.crawlId)).members(),
      ]);
      return {
        crawlId: c.crawlId,
        state: c.state,
        createdAtMs: c.createdAtMs,
        livePods: members.filter((m) => m.alive).length,
        domains,
        queued: counters.queued ?? 0,
        inFlight: counters.inFlight ?? 0,
        fetched: counters.fetched ?? 0,
        failed: counters.failed ?? 0,
        dead: counters.dead ?? 0,
      };
    }),
  );
}

/**
 * The {@link StatsReader} of one crawl: its frontier counters and its own ring (its pods'
 * registry). The default crawl's is the server's own; the others are built once each.
 */
export class CrawlReaders {
  readonly #redis: Redis | Cluster;
  readonly #prefix: string;
  readonly #default: StatsReader;
  readonly #ringOptions: { vnodes?: number; seed?: number };
  readonly #readers = new Map<string, StatsReader>();

  constructor(
    redis: Redis | Cluster,
    prefix: string,
    defaultReader: StatsReader,
    ringOptions: { vnodes?: number; seed?: number } = {},
  ) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#default = defaultReader;
    this.#ringOptions = ringOptions;
  }

  /** The reader of `crawlId` (already validated by the route schema). */
  of(crawlId: string | undefined): StatsReader {
    if (crawlId === undefined || crawlId === DEFAULT_CRAWL) return this.#default;
    let reader = this.#readers.get(crawlId);
    if (!reader) {
      // Bounded by the registry's size in practice; a typo'd id costs one small entry.
      if (this.#readers.size >= MAX_CRAWLS_LISTED) this.#readers.clear();
      const view = new RegistryClusterView(this.#redis, crawlKeyPrefix(this.#prefix, crawlId));
      reader = new StatsReader(
        new FrontierInspector({ redis: this.#redis, prefix: this.#prefix, crawlId }),
        new ClusterRing(view, this.#ringOptions),
      );
      this.#readers.set(crawlId, reader);
    }
    return reader;
  }
}
