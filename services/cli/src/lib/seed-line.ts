/**
 * The seed line format: a URL, optionally followed by whitespace-separated attributes
 *
 *     https://example.com/            priority=5 tag=news tag=daily
 *
 * `priority=N` (integer, higher is crawled first), `tag=x` (repeatable; letters,
 * digits, `.`, `_`, `-`, `:`, up to 64 characters) and `refetch=1d` (fetch the URL again
 * this long after each fetch: 30m, 12h, 7d…; beats the crawl's `--refetch-after`). Tags travel to the crawler in the
 * frontier's `meta` field as `tags=a,b`. Blank lines and `#` comments are skipped before a
 * line gets here (see `lines.ts`).
 */
import {
  DURATION_FORMS,
  isTag,
  parseDuration,
  TAG_RULE,
  tagsMeta,
} from '@shardline/crawler/settings';
import { type EnqueueItem, MAX_REFETCH_MS } from '@shardline/frontier';

/** Code of a line that is not in the seed format (frontier codes cover the URL itself). */
export const SEED_SYNTAX_CODE = 'SHARDLINE_ERR_CLI_SEED_SYNTAX';

const PRIORITY = /^[+-]?\d{1,16}$/;

/** Defaults applied to every line (`--priority`, `--tag`). */
export interface SeedDefaults {
  priority?: number;
  tags?: readonly string[];
}

/** A parsed line: the item to enqueue, or why the line cannot be one. */
export type SeedLine =
  | { ok: true; item: Exclude<EnqueueItem, string> }
  | { ok: false; code: string; reason: string };

/** Parses one (trimmed, non-empty) seed line. */
export function parseSeedLine(text: string, defaults: SeedDefaults = {}): SeedLine {
  const [url, ...attributes] = text.split(/\s+/);
  let priority = defaults.priority;
  let refetchAfterMs: number | undefined;
  const tags = new Set(defaults.tags ?? []);
  for (const attribute of attributes) {
    const eq = attribute.indexOf('=');
    const name = eq < 0 ? attribute : attribute.slice(0, eq);
    const value = eq < 0 ? '' : attribute.slice(eq + 1);
    if (name === 'priority') {
      if (!PRIORITY.test(value)) {
        return syntax(`priority must be an integer, got ${JSON.stringify(value)}`);
      }
      priority = Number(value);
    } else if (name === 'tag') {
      if (!isTag(value)) {
        return syntax(`tag must be ${TAG_RULE}, got ${JSON.stringify(value.slice(0, 80))}`);
      }
      tags.add(value);
    } else if (name === 'refetch') {
      const ms = parseDuration(value);
      if (ms === undefined || ms < 1 || ms > MAX_REFETCH_MS) {
        return syntax(
          `refetch must be ${DURATION_FORMS}, at most a year, got ${JSON.stringify(value.slice(0, 80))}`,
        );
      }
      refetchAfterMs = ms;
    } else {
      return syntax(
        `unexpected ${JSON.stringify(attribute.slice(0, 80))} after the URL (a URL has no spaces; attributes are priority=N, tag=x and refetch=1d)`,
      );
    }
  }
  const item: Exclude<EnqueueItem, string> = { url: url ?? '' };
  if (priority !== undefined) item.priority = priority;
  if (tags.size > 0) item.meta = tagsMeta([...tags]);
  if (refetchAfterMs !== undefined) item.refetchAfterMs = refetchAfterMs;
  return { ok: true, item };
}

function syntax(reason: string): SeedLine {
  return { ok: false, code: SEED_SYNTAX_CODE, reason };
}
