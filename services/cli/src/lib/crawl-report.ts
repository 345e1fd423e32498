/**
 * What `shardline crawl` tells its operator about failures: each failed URL is logged, rate
 * limited per host and error code (a dead host is one line, then a line at 10, 100, 1000…
 * failures, and its count at the end — never thousands of lines) and per code (its first
 * hosts one by one, then a line per power of ten of its failures: a wide crawl meets dead
 * hosts by the ten thousand); errors are kept by code with one example URL each for the
 * progress line and the end-of-crawl summary; a refused address names the flag that allows it.
 * What it remembers per host is bounded.
 */
import type { CrawlResult, PodStats } from '@shardline/crawler';
import { CrawlOutcomeCode, oneLine } from '@shardline/crawler/settings';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { SeedCounts } from './seed-progress.js';
import { plural } from './table.js';

/** Hosts of one error code logged one by one; past them, a line per power of ten of the code. */
export const HOSTS_LOGGED_PER_CODE = 20;
/** Failing hosts counted in the summary; past it the count stays there. */
export const MAX_FAILING_HOSTS_COUNTED = 100_000;
/** Host and code pairs whose failure counts are kept for their power-of-ten lines. */
const HOST_CODES_TRACKED = 10_000;

/** What an error code needs from the operator, when a flag or setting changes it. */
const HINTS: Record<string, string> = {
  SHARDLINE_ERR_FETCH_DNS_REFUSED:
    'a private, loopback or reserved address: --allow-private-addresses (env ALLOW_PRIVATE_ADDRESSES) allows it',
  SHARDLINE_ERR_FETCH_DNS: 'the host name does not resolve (--resolve host:addr maps it by hand)',
  SHARDLINE_ERR_CRAWLER_ROBOTS_UNREACHABLE:
    'robots.txt cannot be fetched, so the host is held until it can',
};

/** The hint for an error code, if any. */
export function hintFor(code: string): string | undefined {
  return HINTS[code];
}

/** One error code: how often, and the first URL that had it (with its error text). */
export interface CodeCount {
  count: number;
  example: string;
  /** The example's error text (`page handler: boom`), when the result had one. */
  error?: string;
}

/** The end-of-crawl summary (also the `--json` line's `summary`). */
export interface CrawlSummary {
  pages: number;
  bytes: number;
  durationMs: number;
  pagesPerSecond: number;
  errors: Record<string, CodeCount>;
  /** Pages fetched whose response had a status of 400 or more (broken links…), by status. */
  errorStatuses: Record<string, CodeCount>;
  deadLetters: number;
  robots: { disallowed: number; deferred: number; filteredLinks: number };
  /** Distinct hosts with a failed fetch (counted up to MAX_FAILING_HOSTS_COUNTED). */
  failingHosts: number;
  /** The pod's domains with URLs still queued or in flight at the end (politeness, backoff, a stop). */
  domainsLeft?: number;
}

/** The pod's counters the summary reads. */
export type SummaryStats = Pick<
  PodStats,
  'fetched' | 'bytes' | 'dead' | 'robotsDisallowed' | 'robotsDeferred' | 'robotsFilteredLinks'
>;

/** Collects failures from the pod's results; see the file comment. */
export class CrawlReport {
  readonly #logger: Logger;
  readonly #startedAt = Date.now();
  readonly #codes = new Map<string, CodeCount>();
  readonly #statuses = new Map<string, CodeCount>();
  readonly #byHost = new LRUCache<string, number>({ max: HOST_CODES_TRACKED });
  readonly #failingHosts = new Set<string>();
  readonly #hostsLogged = new Map<string, number>();

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Observes one result (the pod's `onResult`). */
  observe = (result: CrawlResult): void => {
    const code = result.errorCode;
    // A page is fetched whatever its status: a 404 is no failed fetch, but the operator
    // still wants to know how many links were broken (summary only, no log line per page).
    if (!code && result.outcome === 'fetched' && result.status >= 400) {
      count(this.#statuses, String(result.status), result.url);
    }
    if (!code || result.outcome === 'released') return;
    const total = count(this.#codes, code, result.url, result.error);
    const key = `${result.host}\t${code}`;
    const n = (this.#byHost.get(key) ?? 0) + 1;
    this.#byHost.set(key, n);
    if (n === 1 && this.#failingHosts.size < MAX_FAILING_HOSTS_COUNTED) {
      this.#failingHosts.add(result.host);
    }
    const logged = this.#hostsLogged.get(code) ?? 0;
    if (n === 1 && logged < HOSTS_LOGGED_PER_CODE) {
      this.#hostsLogged.set(code, logged + 1);
      const hint = hintFor(code);
      this.#warn(
        result,
        { failures: n, hint },
        `${code === CrawlOutcomeCode.HANDLER ? 'page handler failed' : 'fetch failed'}: ${result.url}: ${code}${result.error ? ` (${result.error})` : ''}${hint ? ` — ${hint}` : ''}`,
      );
    } else if (isPowerOfTen(n)) {
      this.#warn(
        result,
        { failures: n },
        `${result.host}: ${n} failures with ${code} so far (logged once per power of ten)`,
      );
    }
    if (logged >= HOSTS_LOGGED_PER_CODE && isPowerOfTen(total)) {
      this.#warn(
        result,
        { total },
        `${code}: ${total} failures so far (its first ${HOSTS_LOGGED_PER_CODE} hosts logged one by one, then a line per power of ten; all in the summary)`,
      );
    }
  };

  /** One warning about a failed result: its URL, host, code and outcome, plus `extra`. */
  #warn(result: CrawlResult, extra: Record<string, unknown>, message: string): void {
    const { url, host, errorCode: code, outcome } = result;
    this.#logger.warn({ url, host, code, outcome, ...extra }, message);
  }

  /** Errors by code, most frequent first. */
  errors(): [string, CodeCount][] {
    return mostFirst(this.#codes);
  }

  /** The summary of the crawl that ended with `stats`. */
  summary(stats: SummaryStats, domainsLeft?: number): CrawlSummary {
    const durationMs = Date.now() - this.#startedAt;
    const summary: CrawlSummary = {
      pages: stats.fetched,
      bytes: stats.bytes,
      durationMs,
      pagesPerSecond: Math.round((stats.fetched * 1000 * 10) / Math.max(1, durationMs)) / 10,
      errors: Object.fromEntries(this.errors()),
      errorStatuses: Object.fromEntries(mostFirst(this.#statuses)),
      deadLetters: stats.dead,
      robots: {
        disallowed: stats.robotsDisallowed,
        deferred: stats.robotsDeferred,
        filteredLinks: stats.robotsFilteredLinks,
      },
      failingHosts: this.#failingHosts.size,
    };
    if (domainsLeft !== undefined) summary.domainsLeft = domainsLeft;
    return summary;
  }
}

/** Counts one more under `key` (the first URL is its example); returns the new count. */
function count(counts: Map<string, CodeCount>, key: string, url: string, error?: string): number {
  const known = counts.get(key) ?? { count: 0, example: url, ...(error ? { error } : {}) };
  known.count += 1;
  counts.set(key, known);
  return known.count;
}

function isPowerOfTen(n: number): boolean {
  return n >= 10 && Number.isInteger(Math.log10(n));
}

function mostFirst(counts: Map<string, CodeCount>): [string, CodeCount][] {
  return [...counts].sort((a, b) => b[1].count - a[1].count);
}

/** A byte count for people: `0 B`, `12.3 KB`, `4.5 MB`. */
function bytesText(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return unit === 0 ? `${n} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** The human summary printed on stderr when a crawl ends. */
export function formatSummary(s: CrawlSummary, deadLettersCommand?: string): string {
  const lines = [
    `crawl summary: ${s.pages} pages, ${bytesText(s.bytes)} in ${(s.durationMs / 1000).toFixed(1)} s (${s.pagesPerSecond}/s)`,
  ];
  const codes = Object.entries(s.errors);
  if (codes.length === 0) lines.push('  errors: none');
  else {
    lines.push('  errors by code:');
    for (const [code, { count, example }] of codes) {
      const hint = hintFor(code);
      lines.push(`    ${code}  ${count}  e.g. ${example}${hint ? `  (${hint})` : ''}`);
    }
  }
  const statuses = Object.entries(s.errorStatuses);
  if (statuses.length > 0) {
    lines.push('  pages with an error status:');
    for (const [status, { count, example }] of statuses) {
      lines.push(`    ${status}  ${count}  e.g. ${example}`);
    }
  }
  const where =
    s.deadLetters > 0 && deadLettersCommand
      ? `  (which, and why: ${deadLettersCommand}; add --requeue to retry them)`
      : '';
  lines.push(`  dead letters: ${s.deadLetters}${where}`);
  lines.push(
    `  robots: ${s.robots.disallowed} disallowed, ${s.robots.deferred} deferred (robots.txt unreachable), ${s.robots.filteredLinks} links filtered`,
  );
  if (s.domainsLeft !== undefined) {
    lines.push(`  domains left with URLs queued or in flight: ${s.domainsLeft}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The progress line's error part: `errors 12 (DNS 10, http-503 2)`. */
export function errorsText(report: CrawlReport): string {
  const codes = report.errors();
  const total = codes.reduce((sum, [, c]) => sum + c.count, 0);
  if (total === 0) return 'errors 0';
  const parts = codes
    .slice(0, 3)
    .map(([code, c]) => `${code.replace(/^SHARDLINE_ERR_(FETCH_|CRAWLER_)?/, '')} ${c.count}`);
  return `errors ${total} (${parts.join(', ')}${codes.length > 3 ? ', …' : ''})`;
}

/**
 * Why a crawl given seeds fetched nothing, in one line: every seed rejected (their lines were
 * logged), every seed seen before (a crawl run again), pages the handler failed on (they were
 * fetched), or the commonest fetch error with an example URL, its error text and what to do.
 */
export function nothingFetchedMessage(
  report: CrawlReport,
  seeded: Pick<SeedCounts, 'lines' | 'rejected' | 'queued' | 'duplicates'>,
): string {
  if (seeded.rejected === seeded.lines) {
    return `nothing to fetch: every seed given was rejected (${seeded.rejected}; the warnings above say why)`;
  }
  const [top] = report.errors();
  if (!top && seeded.queued === 0 && seeded.duplicates > 0) {
    return `nothing new to fetch: the seeds given were seen before in this crawl (${plural(seeded.duplicates, 'duplicate')}), which fetches a URL once; to fetch them again, start a new crawl with another --crawl-id (\`shardline crawl list\` shows the crawls)`;
  }
  if (!top) return 'nothing could be fetched from the seeds given';
  const [code, { example, error }] = top;
  const why = `: ${code} (e.g. ${example}${error ? `: ${shortLine(error)}` : ''})`;
  // Pages that failed in the handler were fetched: say what stopped them.
  if (code === CrawlOutcomeCode.HANDLER) {
    return `no page from the seeds given got through the page handler${why}; the page handler threw or ran past --handler-timeout-ms: fix the handler (--handler)`;
  }
  const hint = hintFor(code);
  return `nothing could be fetched from the seeds given${why}${hint ? `; ${hint}` : ''}`;
}

/** `text` on one line, cut at 200 characters: an error quoted in a one-line message. */
function shortLine(text: string): string {
  const line = oneLine(text);
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
