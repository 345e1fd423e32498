/**
 * Link extraction from HTML with htmlparser2's streaming tokenizer (no DOM), page-level robots
 * directives (`<meta name=robots>`, `X-Robots-Tag`), and crawl-scope decisions for the links.
 */
import { type Canonicalizer, createCanonicalizer, domainKey, UrlError } from '@shardline/url';
import { Parser } from 'htmlparser2';
import { CrawlerError, CrawlerErrorCode, check, invalidOption } from './errors.js';

/** Options of {@link LinkExtractor} / {@link extractLinks}. */
export interface LinkExtractorOptions {
  /**
   * Our robots product token: `<meta name="<token>">` and `X-Robots-Tag: <token>: …` apply to
   * us as well as the generic `robots` forms. Matched case-insensitively.
   * @default 'shardline'
   */
  userAgentToken?: string;
  /** Most links returned per page; the rest are counted in `counts.overLimit`. @default 5000 */
  maxLinksPerPage?: number;
  /** Canonicaliser (from `@shardline/url`) shared with the frontier. @default createCanonicalizer() */
  canonicalizer?: Canonicalizer;
}

/** Why links were kept or dropped; every `<a href>` / `<area href>` lands in exactly one bucket. */
export interface LinkCounts {
  /** `<a>` / `<area>` elements with an `href`. */
  found: number;
  /** Returned in `links`. */
  kept: number;
  /** Canonicalised to a URL already kept from this page. */
  duplicate: number;
  /** Skipped for `rel~=nofollow`. */
  relNofollow: number;
  /** Pointing at the page itself (empty href, `#fragment`, …). */
  self: number;
  /** Refused by the canonicaliser (javascript:, mailto:, bad host, too long…), by `UrlError` code. */
  invalid: Record<string, number>;
  /** Beyond `maxLinksPerPage` (or found while the page is `nofollow`). */
  overLimit: number;
  /** Not followed because the page is `nofollow` (meta or header). */
  pageNofollow: number;
}

/** What {@link LinkExtractor.extract} found on one page. */
export interface ExtractedLinks {
  /** Canonical absolute http(s) URLs, deduplicated, in document order; empty when `nofollow`. */
  links: string[];
  /** The page asks not to follow its links (meta robots / X-Robots-Tag `nofollow` or `none`). */
  nofollow: boolean;
  /** The page asks not to be indexed (`noindex` or `none`). */
  noindex: boolean;
  /** URL relative links were resolved against: the first valid http(s) `<base href>`, else the page. */
  baseUrl: string;
  counts: LinkCounts;
}

interface Directives {
  nofollow: boolean;
  noindex: boolean;
}

const OWNER = 'LinkExtractorOptions';

/**
 * Extracts links with options compiled once (one per crawler). Stateless between calls,
 * so safe to share.
 */
export class LinkExtractor {
  readonly #token: string;
  readonly #maxLinks: number;
  readonly #canonicalizer: Canonicalizer;

  constructor(options: LinkExtractorOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw invalidOption('LinkExtractor', 'options', options, 'an object');
    }
    this.#token = check
      .string(OWNER, 'userAgentToken', options.userAgentToken, 'shardline')
      .toLowerCase();
    this.#maxLinks = check.int(OWNER, 'maxLinksPerPage', options.maxLinksPerPage, 5000, 0);
    const canonicalizer = options.canonicalizer;
    if (canonicalizer !== undefined && typeof canonicalizer?.tryCanonicalize !== 'function') {
      throw invalidOption(OWNER, 'canonicalizer', canonicalizer, 'a Canonicalizer');
    }
    this.#canonicalizer = canonicalizer ?? createCanonicalizer();
  }

  /**
   * Links of `html` (already decoded text) fetched from `pageUrl` with response `headers`
   * (lower-case names, as in `FetchOutcome.headers`).
   */
  extract(html: string, pageUrl: string, headers: Record<string, string> = {}): ExtractedLinks {
    const directives = parseXRobotsTag(headers['x-robots-tag'], this.#token);
    // Raw hrefs are kept until the end because a <base> applies to the whole document, also
    // to links parsed before it. Bounded so a page of a million anchors costs bounded work.
    const rawCap = this.#maxLinks * 4;
    const raw: string[] = [];
    let baseHref: string | undefined;
    const counts: LinkCounts = {
      found: 0,
      kept: 0,
      duplicate: 0,
      relNofollow: 0,
      self: 0,
      invalid: {},
      overLimit: 0,
      pageNofollow: 0,
    };
    const parser = new Parser(
      {
        onopentag: (name, attribs) => {
          if (name === 'a' || name === 'area') {
            const href = attribs.href;
            if (href === undefined) return;
            counts.found += 1;
            if (hasToken(attribs.rel, 'nofollow')) counts.relNofollow += 1;
            else if (raw.length < rawCap) raw.push(href);
            else counts.overLimit += 1;
          } else if (name === 'base') {
            if (baseHref === undefined && attribs.href !== undefined) baseHref = attribs.href;
          } else if (name === 'meta') {
            const metaName = attribs.name?.trim().toLowerCase();
            if (metaName === 'robots' || metaName === this.#token) {
              applyDirectives(directives, attribs.content ?? '');
            }
          }
        },
      },
      { decodeEntities: true },
    );
    parser.end(html);

    const baseUrl = resolveBase(baseHref, pageUrl);
    const links: string[] = [];
    if (directives.nofollow) {
      counts.pageNofollow = raw.length;
      return { links, nofollow: true, noindex: directives.noindex, baseUrl, counts };
    }
    const self = this.#canonicalizer.tryCanonicalize(pageUrl);
    const selfUrl = self.ok ? self.value.url : undefined;
    const seen = new Set<string>();
    for (let i = 0; i < raw.length; i++) {
      const href = raw[i]!;
      if (href.trim() === '') {
        counts.self += 1;
        continue;
      }
      const result = this.#canonicalizer.tryCanonicalize(href, baseUrl);
      if (!result.ok) {
        const code = result.error.code;
        counts.invalid[code] = (counts.invalid[code] ?? 0) + 1;
        continue;
      }
      const url = result.value.url;
      if (url === selfUrl) counts.self += 1;
      else if (seen.has(url)) counts.duplicate += 1;
      else if (links.length >= this.#maxLinks) counts.overLimit += 1;
      else {
        seen.add(url);
        links.push(url);
      }
    }
    counts.kept = links.length;
    return { links, nofollow: false, noindex: directives.noindex, baseUrl, counts };
  }
}

/** One-off {@link LinkExtractor.extract}; hold a `LinkExtractor` on hot paths. */
export function extractLinks(
  html: string,
  pageUrl: string,
  headers: Record<string, string> = {},
  options: LinkExtractorOptions = {},
): ExtractedLinks {
  return new LinkExtractor(options).extract(html, pageUrl, headers);
}

function hasToken(list: string | undefined, token: string): boolean {
  if (list === undefined) return false;
  return list.toLowerCase().split(/[\s]+/).includes(token);
}

/** The first `<base href>` if it resolves to an http(s) URL, else the page URL. */
function resolveBase(href: string | undefined, pageUrl: string): string {
  // An unparseable base is ignored, as browsers ignore it.
  if (href === undefined || !URL.canParse(href.trim(), pageUrl)) return pageUrl;
  const base = new URL(href.trim(), pageUrl);
  return base.protocol === 'http:' || base.protocol === 'https:' ? base.href : pageUrl;
}

function applyDirectives(into: Directives, content: string): void {
  for (const raw of content.toLowerCase().split(/[\s,]+/)) {
    if (raw === 'nofollow') into.nofollow = true;
    else if (raw === 'noindex') into.noindex = true;
    else if (raw === 'none') {
      into.nofollow = true;
      into.noindex = true;
    }
  }
}

// Directives that themselves take a `name: value` form, so `max-snippet: 20` is not read as a
// user-agent prefix.
const VALUED_DIRECTIVES = new Set([
  'max-snippet',
  'max-image-preview',
  'max-video-preview',
  'unavailable_after',
]);

/**
 * `X-Robots-Tag` (repeated fields arrive joined with `, `): `noindex, nofollow` applies to
 * every crawler; `<ua>: noindex, nofollow` only to that user agent, until the next prefix.
 */
export function parseXRobotsTag(value: string | undefined, userAgentToken: string): Directives {
  const directives: Directives = { nofollow: false, noindex: false };
  if (value === undefined) return directives;
  const token = userAgentToken.toLowerCase();
  let appliesToUs = true;
  for (const part of value.split(',')) {
    let directive = part.trim().toLowerCase();
    const colon = directive.indexOf(':');
    if (colon > 0) {
      const prefix = directive.slice(0, colon).trim();
      if (!VALUED_DIRECTIVES.has(prefix)) {
        appliesToUs = prefix === token;
        directive = directive.slice(colon + 1).trim();
      }
    }
    if (appliesToUs) applyDirectives(directives, directive);
  }
  return directives;
}

/** Verdict of {@link LinkScope.decide}. */
export type ScopeDecision = 'ok' | 'out-of-scope' | 'too-deep' | 'denied';

/** Options of {@link LinkScope}. */
export interface LinkScopeOptions {
  /** Keep only links whose domain key equals the linking page's. @default false */
  sameDomainOnly?: boolean;
  /**
   * Keep only hosts equal to, or under, one of these (`example.com` admits `www.example.com`).
   * @default undefined (every host)
   */
  allowDomains?: string[];
  /**
   * URLs matching any of these are denied: a RegExp (tested against the canonical URL) or a
   * glob where `*` matches any run of characters and the glob must match the whole URL
   * (`*.pdf`, `https://example.com/private/*`). `?` is literal, since URLs are full of them.
   * @default []
   */
  denyPatterns?: (string | RegExp)[];
  /** Deepest depth followed (seeds are depth 0; a link is at `fromDepth + 1`). @default Infinity */
  maxDepth?: number;
}

/**
 * Crawl-scope rules for discovered links. Checks run in the order domain (`out-of-scope`),
 * patterns (`denied`), depth (`too-deep`). Per-domain page caps live in the frontier, not here.
 */
export class LinkScope {
  readonly #sameDomainOnly: boolean;
  readonly #allowDomains: string[] | undefined;
  readonly #deny: RegExp[];
  readonly #maxDepth: number;

  constructor(options: LinkScopeOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw invalidOption('LinkScope', 'options', options, 'an object');
    }
    this.#sameDomainOnly = check.bool(
      'LinkScopeOptions',
      'sameDomainOnly',
      options.sameDomainOnly,
      false,
    );
    const allow = options.allowDomains;
    if (
      allow !== undefined &&
      (!Array.isArray(allow) || !allow.every((d) => typeof d === 'string' && d))
    ) {
      throw invalidOption(
        'LinkScopeOptions',
        'allowDomains',
        allow,
        'an array of non-empty strings',
      );
    }
    this.#allowDomains = allow?.map((d) =>
      d
        .trim()
        .toLowerCase()
        .replace(/^\.+|\.+$/g, ''),
    );
    const deny = options.denyPatterns ?? [];
    if (!Array.isArray(deny) || !deny.every((p) => typeof p === 'string' || p instanceof RegExp)) {
      throw invalidOption(
        'LinkScopeOptions',
        'denyPatterns',
        deny,
        'an array of strings or RegExps',
      );
    }
    this.#deny = deny.map((p) => (typeof p === 'string' ? globToRegExp(p) : p));
    const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
    if (
      typeof maxDepth !== 'number' ||
      Number.isNaN(maxDepth) ||
      maxDepth < 0 ||
      (Number.isFinite(maxDepth) && !Number.isInteger(maxDepth))
    ) {
      throw invalidOption('LinkScopeOptions', 'maxDepth', maxDepth, 'an integer >= 0 or Infinity');
    }
    this.#maxDepth = maxDepth;
  }

  /**
   * Whether `link` (a canonical URL found on a page at `fromDepth`) should be enqueued.
   * `fromUrl`, the linking page, is required when `sameDomainOnly` is set.
   */
  decide(link: string, fromDepth: number, fromUrl?: string): ScopeDecision {
    if (!URL.canParse(link)) return 'out-of-scope';
    const host = new URL(link).hostname;
    if (this.#sameDomainOnly) {
      if (fromUrl === undefined) {
        throw new CrawlerError(
          CrawlerErrorCode.INVALID_ARGUMENT,
          'LinkScope.decide needs fromUrl when sameDomainOnly is set',
        );
      }
      const linkDomain = safeDomainKey(link);
      if (linkDomain === undefined || linkDomain !== safeDomainKey(fromUrl)) return 'out-of-scope';
    }
    if (
      this.#allowDomains &&
      !this.#allowDomains.some((d) => host === d || host.endsWith(`.${d}`))
    ) {
      return 'out-of-scope';
    }
    for (const pattern of this.#deny) {
      pattern.lastIndex = 0;
      if (pattern.test(link)) return 'denied';
    }
    if (fromDepth + 1 > this.#maxDepth) return 'too-deep';
    return 'ok';
  }
}

/** The domain key of `url`, or undefined for a URL it cannot be taken from. */
function safeDomainKey(url: string): string | undefined {
  try {
    return domainKey(url);
  } catch (error) {
    if (error instanceof UrlError) return undefined;
    throw error;
  }
}

function globToRegExp(glob: string): RegExp {
  const source = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`);
}
