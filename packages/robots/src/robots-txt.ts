import { canonicalPath } from './encoding.js';
import { RobotsError, RobotsErrorCode } from './errors.js';
import { buildGroups, type RobotsGroup } from './groups.js';
import {
  type RobotsGroupJson,
  type RobotsSource,
  type RobotsTxtJson,
  validateJson,
} from './json.js';
import { parseDirectives, readBody } from './lines.js';
import { GroupMatcher } from './matcher.js';
import { type RobotsOptions, resolveOptions } from './options.js';
import { robotsTxtStatusPolicy } from './status-policy.js';
import { productToken } from './user-agent.js';

/** A robots.txt fetch as the crawler saw it: a response, or a network-level failure. */
export type RobotsFetchOutcome = { status: number; body?: string | Uint8Array } | { error: string };

interface RobotsTxtInit {
  source: RobotsSource;
  reason: string | undefined;
  truncated: boolean;
  maxCrawlDelayMs: number;
  sitemaps: readonly string[];
  groups: readonly RobotsGroup[];
}

const FALLBACK_BASE = 'http://robots.invalid';

/**
 * RFC 9309 robots.txt rules of one host. Built by {@link RobotsTxt.parse} from a body, by
 * {@link RobotsTxt.fromResponse} from a fetch outcome, or from the cached
 * {@link RobotsTxt.toJSON} form. Immutable.
 */
export class RobotsTxt {
  /** Sitemap URLs (absolute http/https, in file order, deduplicated); global, not per group. */
  readonly sitemaps: readonly string[];
  /** `parsed` when rules come from a body; otherwise the blanket answer of a status rule. */
  readonly source: RobotsSource;
  /** Why a blanket answer was chosen (e.g. `HTTP 503`); `undefined` for parsed bodies. */
  readonly reason: string | undefined;
  /** True when the body exceeded `maxBytes` and only its first complete lines were read. */
  readonly truncated: boolean;

  readonly #groups: readonly RobotsGroup[];
  readonly #maxCrawlDelayMs: number;
  /** Agent key → largest Crawl-delay over the groups naming it; a key present means a group names it. */
  readonly #agents = new Map<string, number | undefined>();
  /** Built only for parsed bodies: blanket answers never consult rules. */
  readonly #matcher: GroupMatcher | undefined;

  private constructor(init: RobotsTxtInit) {
    this.source = init.source;
    this.reason = init.reason;
    this.truncated = init.truncated;
    this.sitemaps = Object.freeze([...init.sitemaps]);
    this.#groups = init.groups;
    this.#maxCrawlDelayMs = init.maxCrawlDelayMs;
    for (const group of init.groups) {
      for (const agent of group.agents) {
        const known = this.#agents.get(agent);
        const delay = group.crawlDelayMs;
        this.#agents.set(agent, delay === undefined ? known : Math.max(known ?? 0, delay));
      }
    }
    this.#matcher = init.source === 'parsed' ? new GroupMatcher(init.groups) : undefined;
  }

  /** Parses a fetched body (Buffer or string). Invalid UTF-8 or binary input never throws. */
  static parse(body: string | Uint8Array, options?: RobotsOptions): RobotsTxt {
    const { maxBytes, maxCrawlDelayMs } = resolveOptions(options);
    const { text, truncated } = readBody(body, maxBytes);
    const { groups, sitemaps } = buildGroups(parseDirectives(text));
    return new RobotsTxt({
      source: 'parsed',
      reason: undefined,
      truncated,
      maxCrawlDelayMs,
      sitemaps,
      groups,
    });
  }

  /** Everything allowed, e.g. robots.txt answered 4xx ("unavailable", RFC 9309 §2.3.1.3). */
  static allowAll(reason: string): RobotsTxt {
    return RobotsTxt.#blanket('allow-all', reason);
  }

  /** Everything but /robots.txt disallowed, e.g. 5xx or unreachable (RFC 9309 §2.3.1.4). */
  static disallowAll(reason: string): RobotsTxt {
    return RobotsTxt.#blanket('disallow-all', reason);
  }

  static #blanket(source: RobotsSource, reason: string): RobotsTxt {
    const { maxCrawlDelayMs } = resolveOptions(undefined);
    return new RobotsTxt({
      source,
      reason: String(reason),
      truncated: false,
      maxCrawlDelayMs,
      sitemaps: [],
      groups: [],
    });
  }

  /**
   * From a fetch outcome per RFC 9309 §2.3.1 (see {@link robotsTxtStatusPolicy}): 2xx →
   * parse the body; 4xx → allow all; 429, 5xx and network errors → disallow all. A 3xx here
   * means the caller stopped following redirects (after {@link ROBOTS_MAX_REDIRECTS}), which
   * §2.3.1.2 lets us treat as "unavailable" → allow all.
   */
  static fromResponse(outcome: RobotsFetchOutcome, options?: RobotsOptions): RobotsTxt {
    resolveOptions(options);
    if ('error' in outcome) return RobotsTxt.disallowAll(`unreachable: ${outcome.error}`);
    const { status } = outcome;
    switch (robotsTxtStatusPolicy(status)) {
      case 'parse':
        return RobotsTxt.parse(outcome.body ?? '', options);
      case 'redirect':
        return RobotsTxt.allowAll(`HTTP ${status}: redirect not followed, treated as unavailable`);
      case 'allow-all':
        return RobotsTxt.allowAll(`HTTP ${status}`);
      case 'disallow-all':
        return RobotsTxt.disallowAll(`HTTP ${status}`);
    }
  }

  /**
   * Whether `userAgent` may fetch `url`. `url` is absolute (a path starting with `/` is also
   * accepted); only its path and query are matched. `userAgent` is the crawler's product
   * token or a User-Agent string that starts with it (`shardline/0.1 (+…)` → `shardline`).
   * `/robots.txt` is always allowed (RFC 9309 §2.2.2).
   * @throws RobotsError `SHARDLINE_ERR_ROBOTS_INVALID_URL` when `url` does not parse.
   */
  isAllowed(url: string, userAgent: string): boolean {
    const path = requestPath(url);
    if (path === '/robots.txt' || path.startsWith('/robots.txt?')) return true;
    if (this.#matcher === undefined) return this.source !== 'disallow-all';
    const key = this.#agentKey(userAgent);
    return key === undefined || this.#matcher.isAllowed(path, key);
  }

  /** Crawl-delay of the group that applies to `userAgent`, in ms, capped at `maxCrawlDelayMs`. */
  crawlDelayMs(userAgent: string): number | undefined {
    const key = this.#agentKey(userAgent);
    const delay = key === undefined ? undefined : this.#agents.get(key);
    return delay === undefined ? undefined : Math.min(delay, this.#maxCrawlDelayMs);
  }

  /**
   * The group that applies: the merged groups naming the agent's product token, else the
   * merged `*` groups, else none (RFC 9309 §2.2.1). A specific group with no rules still
   * applies, and so allows everything.
   */
  #agentKey(userAgent: string): string | undefined {
    const token = productToken(String(userAgent).trimStart()).toLowerCase();
    if (token.length > 0 && this.#agents.has(token)) return token;
    return this.#agents.has('*') ? '*' : undefined;
  }

  /** Compact serialisable form; `RobotsTxt.fromJSON(x.toJSON())` answers exactly like `x`. */
  toJSON(): RobotsTxtJson {
    return {
      v: 1,
      source: this.source,
      reason: this.reason ?? null,
      truncated: this.truncated,
      maxCrawlDelayMs: this.#maxCrawlDelayMs,
      sitemaps: [...this.sitemaps],
      groups: this.#groups.map(
        (g): RobotsGroupJson => ({
          ...g,
          agents: [...g.agents],
          allow: [...g.allow],
          disallow: [...g.disallow],
        }),
      ),
    };
  }

  /**
   * Rebuilds from {@link RobotsTxt.toJSON} output (also after `JSON.stringify`/`JSON.parse`).
   * @throws RobotsError `SHARDLINE_ERR_ROBOTS_INVALID_JSON` on anything else.
   */
  static fromJSON(json: RobotsTxtJson): RobotsTxt {
    const doc = validateJson(json);
    return new RobotsTxt({
      source: doc.source,
      reason: doc.reason ?? undefined,
      truncated: doc.truncated,
      maxCrawlDelayMs: doc.maxCrawlDelayMs,
      sitemaps: doc.sitemaps,
      groups: doc.source === 'parsed' ? doc.groups : [],
    });
  }
}

/** Canonical path and query of a request URL (fragment dropped). */
function requestPath(url: string): string {
  let parsed: URL;
  try {
    parsed =
      url.startsWith('/') && !url.startsWith('//') ? new URL(url, FALLBACK_BASE) : new URL(url);
  } catch {
    throw new RobotsError(
      RobotsErrorCode.INVALID_URL,
      `not an absolute URL or path: ${JSON.stringify(url)}`,
    );
  }
  const path = canonicalPath(parsed.pathname + parsed.search);
  // Opaque paths (`mailto:x`) have no leading slash; rules are anchored at one.
  return path.startsWith('/') ? path : `/${path}`;
}
