import { canonicalPattern } from './encoding.js';
import type { Directive } from './lines.js';
import { agentKeyOfLine } from './user-agent.js';

/**
 * One group as written in the file: its user-agent keys (lower-case product tokens or `*`)
 * and its rules in canonical form (see `encoding.ts`). Groups naming the same agent are
 * merged at lookup time, not here, so the file's structure survives serialisation.
 */
export interface RobotsGroup {
  agents: string[];
  allow: string[];
  disallow: string[];
  /** Largest Crawl-delay in the group, uncapped. */
  crawlDelayMs?: number;
}

/** What a robots.txt body says, independent of any crawler. */
export interface ParsedRobots {
  groups: RobotsGroup[];
  sitemaps: string[];
}

interface GroupBuilder {
  agents: Set<string>;
  allow: Set<string>;
  disallow: Set<string>;
  crawlDelayMs: number | undefined;
}

/**
 * Builds groups per RFC 9309 §2.1/§2.2.1: a group is one or more user-agent lines followed
 * by rules, and a user-agent line that follows a rule starts the next group. Rules before
 * the first user-agent line belong to no group and are ignored. Sitemap and unknown lines
 * neither end a group nor join one (§2.2.4: "a Sitemaps record MUST NOT terminate a group").
 *
 * Crawl-delay is not in the RFC; we treat it as a group member like a rule, so that the
 * common `User-agent: a / Crawl-delay: 5 / User-agent: b / Disallow: /` gives `a` a delay
 * and not b's `Disallow: /` (Google ignores Crawl-delay altogether and would merge a and b).
 */
export function buildGroups(directives: readonly Directive[]): ParsedRobots {
  const builders: GroupBuilder[] = [];
  const sitemaps: string[] = [];
  const seenSitemaps = new Set<string>();
  let current: GroupBuilder | undefined;
  let sawMember = false;

  for (const { kind, value } of directives) {
    switch (kind) {
      case 'user-agent': {
        if (current === undefined || sawMember) {
          current = {
            agents: new Set(),
            allow: new Set(),
            disallow: new Set(),
            crawlDelayMs: undefined,
          };
          builders.push(current);
          sawMember = false;
        }
        const key = agentKeyOfLine(value);
        if (key !== undefined) current.agents.add(key);
        break;
      }
      case 'allow':
      case 'disallow': {
        if (current === undefined) break;
        sawMember = true;
        const pattern = canonicalPattern(value);
        // An empty pattern matches with priority 0, which never decides: "Disallow:" allows.
        if (pattern.length === 0) break;
        if (kind === 'disallow') {
          current.disallow.add(pattern);
        } else {
          current.allow.add(pattern);
          const directory = indexHtmlDirectory(pattern);
          if (directory !== undefined) current.allow.add(`${directory}$`);
        }
        break;
      }
      case 'crawl-delay': {
        if (current === undefined) break;
        sawMember = true;
        const ms = parseCrawlDelayMs(value);
        if (ms !== undefined) current.crawlDelayMs = Math.max(current.crawlDelayMs ?? 0, ms);
        break;
      }
      case 'sitemap': {
        const url = parseSitemap(value);
        if (url !== undefined && !seenSitemaps.has(url)) {
          seenSitemaps.add(url);
          sitemaps.push(url);
        }
        break;
      }
      case 'unknown':
        break;
    }
  }

  const groups = builders
    .filter((b) => b.agents.size > 0)
    .map((b): RobotsGroup => {
      const group: RobotsGroup = {
        agents: [...b.agents],
        allow: [...b.allow],
        disallow: [...b.disallow],
      };
      if (b.crawlDelayMs !== undefined) group.crawlDelayMs = b.crawlDelayMs;
      return group;
    });
  return { groups, sitemaps };
}

/**
 * Google-only: `Allow: /dir/index.html` (or `.htm…`) also allows `/dir/` itself, as a
 * server usually serves the same page for both.
 */
function indexHtmlDirectory(pattern: string): string | undefined {
  const slash = pattern.lastIndexOf('/');
  if (slash < 0 || !pattern.startsWith('/index.htm', slash)) return undefined;
  return pattern.slice(0, slash + 1);
}

const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/** Crawl-delay in seconds (decimals allowed) to whole milliseconds; anything else is ignored. */
export function parseCrawlDelayMs(value: string): number | undefined {
  if (!DECIMAL.test(value)) return undefined;
  // 400 nines overflow to Infinity: still a (huge) delay, capped by the caller.
  return Math.min(Math.round(Number(value) * 1000), Number.MAX_SAFE_INTEGER);
}

/** Sitemap values must be absolute http(s) URLs; they are decoded as UTF-8 and normalised. */
function parseSitemap(value: string): string | undefined {
  if (value.length === 0) return undefined;
  try {
    const url = new URL(Buffer.from(value, 'latin1').toString('utf8'));
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
