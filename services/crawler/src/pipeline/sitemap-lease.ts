/**
 * Sitemaps travel through the frontier as ordinary URLs whose lease meta marks them:
 * `sitemap` (listed by robots.txt) or `sitemap:<n>` (n sitemap indexes deep).
 */

/** Lease meta of a sitemap listed by robots.txt; `sitemap:<n>` for one found n indexes deep. */
export const SITEMAP_META = 'sitemap';
/** Deepest sitemap followed through indexes (the protocol allows 1: indexes must not nest). */
export const MAX_SITEMAP_LEVEL = 2;
/** Most sitemaps followed from one index. */
export const MAX_SITEMAPS_PER_INDEX = 1000;
/** Most sitemaps followed from one robots.txt. */
export const MAX_SITEMAPS_PER_ROBOTS = 100;

/** Index nesting level of a sitemap lease, or undefined when the lease is no sitemap. */
export function sitemapLevel(meta: string): number | undefined {
  if (meta === SITEMAP_META) return 0;
  if (meta === 'sitemap-index') return 1; // written by earlier versions
  if (!meta.startsWith(`${SITEMAP_META}:`)) return undefined;
  const level = Number(meta.slice(SITEMAP_META.length + 1));
  return Number.isInteger(level) && level >= 0 ? level : undefined;
}

/** The lease meta of a sitemap found in an index at `level`. */
export function nestedSitemapMeta(level: number): string {
  return `${SITEMAP_META}:${level + 1}`;
}
