/**
 * Durations as operators write them: `500ms`, `30s`, `15m`, `2h`, `7d`, or a bare number of
 * milliseconds. Used by `--refetch-after`, the seed attribute `refetch=`, `--domain-budget`'s
 * period (`1000/1d`, {@link parseBudget}) and `shardline pause --until`.
 */

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** The duration in ms, or `undefined` when `text` is not one (negative, fractional ms, junk). */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)?$/.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * UNIT_MS[(match[2] ?? 'ms') as keyof typeof UNIT_MS];
  return Number.isSafeInteger(Math.round(ms)) ? Math.round(ms) : undefined;
}

/** What {@link parseDuration} accepts, for error messages. */
export const DURATION_FORMS = 'a duration like 500ms, 30s, 15m, 2h, 7d or 1w';

/** `--domain-budget`: `<pages>/<period>`, e.g. `1000/1d`; `undefined` when not one. */
export function parseBudget(text: string): { pages: number; periodMs: number } | undefined {
  const slash = text.indexOf('/');
  const pages = Number(text.slice(0, slash).trim());
  const periodMs = slash < 0 ? undefined : parseDuration(text.slice(slash + 1));
  if (!Number.isSafeInteger(pages) || pages < 1 || periodMs === undefined || periodMs < 1) {
    return undefined;
  }
  return { pages, periodMs };
}
