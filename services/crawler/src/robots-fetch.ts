/**
 * The fetch of one origin's /robots.txt through the crawler's own Fetcher (same User-Agent,
 * DNS policy and limits), following at most `maxRedirects` redirects, each hop announced to
 * the politeness hooks, and the answer it means (robots-answer.ts).
 */
import { CrawlerError, CrawlerErrorCode, FetchErrorCode } from './errors.js';
import type { FetchOptions, FetchOutcome, FetchTimings } from './fetch-types.js';
import {
  type AnswerLimits,
  nowhereAnswer,
  type RobotsAnswer,
  robotsAnswer,
} from './robots-answer.js';

/** The part of `Fetcher` the loader uses. */
export interface RobotsFetcher {
  fetch(url: string, options?: FetchOptions): Promise<FetchOutcome>;
}

/** One HTTP request made while loading a robots.txt (one per redirect hop). */
export interface RobotsFetchHop {
  /** Origin the request went to (what `beforeFetch` was called with). */
  origin: string;
  url: string;
  status: number;
  timings: FetchTimings;
  error?: FetchOutcome['error'];
  /** The whole fetch outcome (body included), e.g. for an archive. */
  outcome: FetchOutcome;
}

/** How {@link RobotsFetch} fetches (the loader's resolved options). */
export interface RobotsFetchOptions {
  fetcher: RobotsFetcher;
  /** Awaited before every request with the origin it goes to; a rejection aborts the load. */
  beforeFetch: ((origin: string) => Promise<void>) | undefined;
  /** Called after every request; its throws are counted (`onFetchErrors`), not thrown. */
  onFetch: ((hop: RobotsFetchHop) => void) | undefined;
  /** Aborts requests in flight: the fetch then rejects with `SHARDLINE_ERR_CRAWLER_ABORTED`. */
  signal: AbortSignal | undefined;
  maxRedirects: number;
  limits: AnswerLimits;
}

/** The rules of one origin's robots.txt and the requests that fetched it. */
export type RobotsFetchResult = RobotsAnswer & { hops: RobotsFetchHop[] };

/** Fetches robots.txt files and counts the requests it made. */
export class RobotsFetch {
  readonly #o: RobotsFetchOptions;
  #requests = 0;
  #onFetchErrors = 0;

  constructor(options: RobotsFetchOptions) {
    this.#o = options;
  }

  /** Requests made (every redirect hop counts). */
  get requests(): number {
    return this.#requests;
  }

  /** Throws of the `onFetch` observer. */
  get onFetchErrors(): number {
    return this.#onFetchErrors;
  }

  /**
   * Fetches `${origin}/robots.txt`. Network and HTTP problems become answers (RFC 9309);
   * rejects when `beforeFetch` rejects, when the fetcher is closed, or when the signal aborts.
   */
  async fetch(origin: string): Promise<RobotsFetchResult> {
    const o = this.#o;
    const hops: RobotsFetchHop[] = [];
    let url = `${origin}/robots.txt`;
    for (let redirects = 0; ; redirects++) {
      const hopOrigin = new URL(url).origin;
      await o.beforeFetch?.(hopOrigin);
      this.#requests += 1;
      // One byte past the parse limit, so RobotsTxt.parse sees that the file went on and marks
      // the answer truncated (it parses complete lines within maxBytes only).
      const outcome = await o.fetcher.fetch(url, {
        keepBody: 'always',
        maxBodyBytes: o.limits.maxBytes + 1,
        ...(o.signal ? { signal: o.signal } : {}),
      });
      const hop: RobotsFetchHop = {
        origin: hopOrigin,
        url,
        status: outcome.status,
        timings: outcome.timings,
        outcome,
      };
      if (outcome.error) hop.error = outcome.error;
      hops.push(hop);
      try {
        o.onFetch?.(hop);
      } catch {
        // Bookkeeping must not break loading: counted, not thrown.
        this.#onFetchErrors += 1;
      }
      // After onFetch, which settles the request's politeness bookkeeping.
      if (outcome.error?.code === FetchErrorCode.ABORTED) throw robotsLoadAborted();
      const isRedirect = outcome.status >= 300 && outcome.status < 400;
      if (isRedirect && outcome.redirectTo && !outcome.error && redirects < o.maxRedirects) {
        const next = new URL(outcome.redirectTo);
        if (next.protocol === 'http:' || next.protocol === 'https:') {
          url = next.href;
          continue;
        }
      }
      const answer = redirects > 0 ? nowhereAnswer(url, outcome, o.limits.ttlMs) : undefined;
      return { ...(answer ?? robotsAnswer(outcome, o.limits)), hops };
    }
  }
}

/** The error of a robots.txt load stopped by a signal. */
export function robotsLoadAborted(): CrawlerError {
  return new CrawlerError(CrawlerErrorCode.ABORTED, 'robots.txt load aborted');
}
