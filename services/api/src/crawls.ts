/**
 * The crawls of a frontier with their counters and live pods, for `GET /v1/crawls`,
 * `shardline crawl list` and the dashboard's crawl selector; and the per-crawl reader,
 * frontier and ring the `?crawl=` parameter of the routes uses. Bounded: a few reads per crawl, no scan.
 */
import {
  CrawlRegistry,
  crawlKeyPrefix,
  DEFAULT_CRAWL,
  FrontierInspector,
  RedisFrontier,
} from '@shardline/frontier';
import { MembershipReader } from '@shardline/membership';
import type { Cluster, Redis } from 'ioredis';
import { ClusterRing } from './cluster-ring.js';
import { RegistryClusterView } from './cluster-view.js';
import { ApiErrorCode, HttpError } from './errors.js';
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

/** What the routes use to read and change one crawl: its reader, frontier and ring. */
export interface CrawlScope {
  reader: StatsReader;
  frontier: RedisFrontier;
  cluster: ClusterRing;
}

/**
 * The {@link CrawlScope} of each crawl (`?crawl=`): its frontier counters and its own ring
 * (its pods' registry). The default crawl's is the server's own; the others are built once
 * each. A crawl that never wrote a key is answered 404, not with zeros: a mistyped id would
 * otherwise read as an empty crawl.
 */
export class CrawlReaders {
  readonly #redis: Redis | Cluster;
  readonly #prefix: string;
  readonly #default: CrawlScope;
  readonly #registry: CrawlRegistry;
  readonly #scopes = new Map<string, CrawlScope>();

  constructor(redis: Redis | Cluster, prefix: string, defaultScope: CrawlScope) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#default = defaultScope;
    this.#registry = new CrawlRegistry({ redis, prefix });
  }

  /** The reader of `crawlId` (already validated by the route schema); 404 when unknown. */
  async of(crawlId: string | undefined): Promise<StatsReader> {
    return (await this.scope(crawlId)).reader;
  }

  /** Reader, frontier and ring of `crawlId` (already validated by the route schema); 404 when unknown. */
  async scope(crawlId: string | undefined): Promise<CrawlScope> {
    if (crawlId === undefined || crawlId === DEFAULT_CRAWL) return this.#default;
    // Asked each time (one HGET): a crawl deleted since stays unknown, not cached as known.
    if ((await this.#registry.get(crawlId)) === null) {
      throw new HttpError(
        404,
        ApiErrorCode.UNKNOWN_CRAWL,
        `unknown crawl ${JSON.stringify(crawlId)}: nothing of it is in this frontier (prefix ${JSON.stringify(this.#prefix)}); GET /v1/crawls lists the crawls`,
      );
    }
    return this.writeScope(crawlId);
  }

  /**
   * Reader, frontier and ring of `crawlId`, known or not: for seeds, whose first write
   * starts the crawl (its pods are asked for owners; none live is a 503 like the default's).
   */
  writeScope(crawlId: string | undefined): CrawlScope {
    if (crawlId === undefined || crawlId === DEFAULT_CRAWL) return this.#default;
    let scope = this.#scopes.get(crawlId);
    if (!scope) {
      // Bounded by the registry's size, and by the cap for ids seeded but refused.
      if (this.#scopes.size >= MAX_CRAWLS_LISTED) this.#scopes.clear();
      const redis = this.#redis;
      const view = new RegistryClusterView(redis, crawlKeyPrefix(this.#prefix, crawlId));
      const cluster = new ClusterRing(view, { crawlId });
      const frontier = new RedisFrontier({
        redis,
        prefix: this.#prefix,
        crawlId,
        ownerOf: cluster.ownerOf,
      });
      scope = { reader: new StatsReader(frontier.inspector, cluster), frontier, cluster };
      this.#scopes.set(crawlId, scope);
    }
    return scope;
  }
}
