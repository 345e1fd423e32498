/**
 * Which of the URLs a lease found go to the frontier: the crawl scope (domains, deny patterns,
 * depth) and the robots.txt rules of the page's own origin, which are at hand, so a
 * disallowed same-origin link never costs a claim. Other origins' rules are checked when
 * their URLs are claimed.
 */
import type { Lease } from '@shardline/frontier';
import { RobotsError, RobotsErrorCode, type RobotsTxt } from '@shardline/robots';
import type { LinkScope } from '../links.js';
import type { PodCounters } from '../pod-counters.js';
import type { RobotsLoadResult } from '../robots-loader.js';
import type { FoundLink } from './lease-context.js';
import { MAX_SITEMAPS_PER_ROBOTS, SITEMAP_META } from './sitemap-lease.js';

/** Options of {@link LinkFilter}. */
export interface LinkFilterOptions {
  scope: Pick<LinkScope, 'decide'>;
  /** The robots.txt product token. */
  userAgentToken: string;
  /** Enqueue the sitemaps a freshly fetched robots.txt lists. */
  enqueueSitemaps: boolean;
  /** Counts `robotsFilteredLinks`. */
  counters: Pick<PodCounters, 'robotsFilteredLinks'>;
}

/** Scope and same-origin robots for the URLs found by one lease. */
export class LinkFilter {
  readonly #o: LinkFilterOptions;

  constructor(options: LinkFilterOptions) {
    this.#o = options;
  }

  /**
   * The URLs in scope and allowed, in order, at depth + 1 (`sameDepth`: at the lease's own
   * depth, for sitemaps, which are no step away from the page that led to them). Bounds hit
   * are pushed to `bounds`.
   */
  scoped(
    urls: readonly string[],
    lease: Lease,
    rules: RobotsTxt,
    bounds: string[],
    sameDepth = false,
  ): FoundLink[] {
    const items: FoundLink[] = [];
    let origin: string | undefined;
    for (const url of urls) {
      const decision = this.#o.scope.decide(
        url,
        sameDepth ? lease.depth - 1 : lease.depth,
        lease.url,
      );
      if (decision !== 'ok') {
        if (decision === 'too-deep') bounds.push('depth');
        continue;
      }
      origin ??= originOf(lease.url);
      if (originOf(url) === origin && !allowed(rules, url, this.#o.userAgentToken)) {
        this.#o.counters.robotsFilteredLinks += 1;
        continue;
      }
      items.push({ url, depth: lease.depth + 1 });
    }
    return items;
  }

  /**
   * With `enqueueSitemaps`, the sitemaps a freshly fetched robots.txt lists — through the
   * frontier like any URL: scope, dedup, robots and the host's politeness.
   */
  robotsSitemaps(lease: Lease, robots: RobotsLoadResult, bounds: string[]): FoundLink[] {
    const rules = robots.robots;
    if (!this.#o.enqueueSitemaps || robots.from !== 'fetch' || rules.sitemaps.length === 0) {
      return [];
    }
    const listed = rules.sitemaps.slice(0, MAX_SITEMAPS_PER_ROBOTS);
    return this.scoped(listed, lease, rules, bounds, true).map((item) => ({
      url: item.url,
      depth: lease.depth,
      meta: SITEMAP_META,
    }));
  }
}

function originOf(url: string): string | undefined {
  return URL.canParse(url) ? new URL(url).origin : undefined;
}

/** A URL the rules cannot read is let through: its own claim checks it again. */
function allowed(rules: RobotsTxt, url: string, token: string): boolean {
  try {
    return rules.isAllowed(url, token);
  } catch (error) {
    if (error instanceof RobotsError && error.code === RobotsErrorCode.INVALID_URL) return true;
    throw error;
  }
}
