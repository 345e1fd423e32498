/**
 * Stage 8, discover links: the URLs a fetched lease leads to — a redirect's target (not
 * followed inline: it goes through the frontier for robots, dedup and politeness), a page's
 * links, a sitemap's URLs or child sitemaps, and the sitemaps a freshly fetched robots.txt
 * lists — scoped, robots-filtered and enqueued before the lease completes: a crash in between
 * re-fetches the page, it never loses its links.
 */
import { type EnqueueResult, FrontierRejectCode } from '@shardline/frontier';
import type { RobotsTxt } from '@shardline/robots';
import { UrlErrorCode } from '@shardline/url';
import { decodeBody } from '../content.js';
import type { FetchOutcome } from '../fetcher.js';
import type { LinkExtractor } from '../links.js';
import type { PodCounters } from '../pod-counters.js';
import { readSitemap, SITEMAP_MAX_BYTES, SITEMAP_MAX_URLS } from '../sitemap.js';
import { type FoundLink, type LeaseContext, required } from './lease-context.js';
import type { LinkFilter } from './link-filter.js';
import { MAX_SITEMAP_LEVEL, MAX_SITEMAPS_PER_INDEX, nestedSitemapMeta } from './sitemap-lease.js';
import type { LeaseStage, Settlement } from './stage.js';

/** Options of {@link DiscoverLinksStage}. */
export interface DiscoverLinksOptions {
  extractor: Pick<LinkExtractor, 'extract'>;
  links: Pick<LinkFilter, 'scoped' | 'robotsSitemaps'>;
  enqueue: (items: FoundLink[]) => Promise<EnqueueResult[]>;
  counters: Pick<PodCounters, 'redirects'>;
}

/** Finds and enqueues the URLs a fetched lease leads to. */
export class DiscoverLinksStage implements LeaseStage {
  readonly name = 'discover-links';
  readonly #o: DiscoverLinksOptions;

  constructor(options: DiscoverLinksOptions) {
    this.#o = options;
  }

  async run(ctx: LeaseContext): Promise<Settlement | undefined> {
    const outcome = required(ctx.outcome, 'fetch outcome', this.name);
    const robots = required(ctx.robots, 'robots answer', this.name);
    const { lease, bounds } = ctx;
    const rules = robots.robots;
    let links: FoundLink[] = [];
    if (outcome.status >= 300 && outcome.status < 400 && outcome.redirectTo) {
      this.#o.counters.redirects += 1;
      links = this.#o.links.scoped([outcome.redirectTo], lease, rules, bounds);
      // A moved sitemap is still a sitemap.
      if (ctx.sitemapLevel !== undefined) for (const item of links) item.meta = lease.meta;
    } else if (
      outcome.status >= 200 &&
      outcome.status < 300 &&
      outcome.body &&
      !ctx.skipPageLinks
    ) {
      links =
        ctx.sitemapLevel === undefined
          ? this.#pageLinks(ctx, outcome, rules)
          : await this.#sitemapLinks(ctx, outcome, ctx.sitemapLevel, rules);
    }
    links.push(...this.#o.links.robotsSitemaps(lease, robots, bounds));
    // After any the page handler enqueued.
    ctx.links.push(...links);
    if (links.length === 0) return undefined;
    const results = await this.#o.enqueue(links);
    for (const r of results) if (r.status === 'queued') ctx.linksQueued += 1;
    for (const r of results) {
      if (r.status === 'over-cap') bounds.push('queue-cap');
      else if (r.code === UrlErrorCode.TOO_LONG) bounds.push('url-length');
      else if (r.code === FrontierRejectCode.DEPTH) bounds.push('depth');
    }
    return undefined;
  }

  #pageLinks(ctx: LeaseContext, outcome: FetchOutcome, rules: RobotsTxt): FoundLink[] {
    const html = decodeBody(outcome.body!, outcome.charset ?? 'utf-8');
    const found = this.#o.extractor.extract(html, ctx.lease.url, outcome.headers);
    if (found.counts.overLimit > found.counts.pageNofollow) ctx.bounds.push('links-per-page');
    if ((found.counts.invalid[UrlErrorCode.TOO_LONG] ?? 0) > 0) ctx.bounds.push('url-length');
    return this.#o.links.scoped(found.links, ctx.lease, rules, ctx.bounds);
  }

  /**
   * Sitemap body → items: a urlset's pages (scoped like links, one depth deeper); an index's
   * sitemaps (same depth, one level deeper, up to MAX_SITEMAP_LEVEL). Broken or oversized
   * bodies are bounded and recorded (bounds `sitemap-*`, the result's `error`), never thrown.
   */
  async #sitemapLinks(
    ctx: LeaseContext,
    outcome: FetchOutcome,
    level: number,
    rules: RobotsTxt,
  ): Promise<FoundLink[]> {
    const { lease, bounds } = ctx;
    const read = await readSitemap(outcome.body!, {
      maxUrls: SITEMAP_MAX_URLS,
      maxBytes: SITEMAP_MAX_BYTES,
    });
    bounds.push(...read.bounds);
    if (read.error) {
      bounds.push('sitemap-invalid');
      ctx.note = `sitemap: ${read.error}`;
    }
    if (read.kind !== 'index') {
      return read.kind === 'urlset' ? this.#o.links.scoped(read.urls, lease, rules, bounds) : [];
    }
    if (level >= MAX_SITEMAP_LEVEL) {
      bounds.push('sitemap-nesting');
      return [];
    }
    if (read.urls.length > MAX_SITEMAPS_PER_INDEX) bounds.push('sitemap-urls');
    const listed = read.urls.slice(0, MAX_SITEMAPS_PER_INDEX);
    return this.#o.links.scoped(listed, lease, rules, bounds, true).map((item) => ({
      url: item.url,
      depth: lease.depth,
      meta: nestedSitemapMeta(level),
    }));
  }
}
