/** What a crawl id may be, in one place for the frontier, the crawler, the CLI and the API. */

/** The crawl of a frontier without crawl ids; its keys are the layout from before crawls. */
export const DEFAULT_CRAWL = 'default';

/** A crawl id: lower-case, starts with a letter or digit, at most 64 characters. */
export const CRAWL_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export function isCrawlId(value: string): boolean {
  return CRAWL_ID.test(value);
}

/**
 * Prefix of a crawl's own global keys (counters, indexes, due indexes; and, by the
 * crawler's defaults, its ring membership and its results and items streams): the
 * frontier prefix itself for the default crawl, `<prefix>:c:<crawl>` for the others.
 */
export function crawlKeyPrefix(prefix: string, crawlId: string): string {
  return crawlId === DEFAULT_CRAWL ? prefix : `${prefix}:c:${crawlId}`;
}
