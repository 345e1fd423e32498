/**
 * What a correct crawler reaches, computed from the model (never by crawling the server):
 * breadth-first from every `siteN.test` root, obeying each host's robots file per RFC 9309,
 * following `<a href>` except nofollow, resolving against `<base href>`, and treating each
 * redirect target as a new URL one hop deeper.
 */
import type { HostModel, WebModel } from './model.js';
import { REAL_ROBOTS_PATH } from './robots-files.js';
import { ALLOW_ALL, DISALLOW_ALL, type RuleSet, ruleSetForBody } from './robots-rules.js';

/** Options of {@link computeGroundTruth}. */
export interface GroundTruthOptions {
  /** Links followed from a seed (depth 0); a redirect hop counts as one. @default Infinity */
  maxDepth?: number;
  /** Product token the crawler matches robots groups with. @default 'shardline' */
  userAgentToken?: string;
}

/** The expected outcome of a crawl. URLs are WHATWG-serialised, without fragment. */
export interface GroundTruth {
  /** Allowed by robots and reachable: a correct crawler fetches each exactly once (plus retries). */
  reachableAllowed: Set<string>;
  /** Discovered (linked, redirected to or seeded) but disallowed by robots: never fetched. */
  disallowedLinked: Set<string>;
  /** Linked only through nofollow (rel, meta robots or X-Robots-Tag): never fetched. */
  notFollowed: Set<string>;
  /** Depth at which each URL of the two first sets was first discovered. */
  depth: Map<string, number>;
}

const NOFOLLOW = /(^|[\s,])(nofollow|none)($|[\s,])/i;

/** The rules a crawler identifying as `token` ends up with for `host` (after redirects, caps, status rules). */
export function robotsRulesFor(host: HostModel, token: string): RuleSet {
  const robots = host.robots;
  switch (robots.kind) {
    case 'body':
      return ruleSetForBody(robots.body, token);
    case 'redirect':
      return ruleSetForBody(robots.target, token);
    case 'status':
      return robots.status >= 500 ? DISALLOW_ALL : ALLOW_ALL;
    case 'timeout':
      return DISALLOW_ALL;
    case 'fail-first':
      // Unreachable only until retried (RFC 9309 §2.3.1.4): the file served after the 503 rules.
      return ruleSetForBody(robots.body, token);
  }
}

function withoutFragment(url: URL): string {
  url.hash = '';
  return url.href;
}

/** Outgoing links of `url`: followed ones and ones a crawler must skip. */
export function outlinks(model: WebModel, url: URL): { follow: string[]; skip: string[] } {
  const resource = model.lookup(url.hostname, url.pathname);
  if (resource === undefined || resource.kind === 'file') return { follow: [], skip: [] };
  if (resource.kind === 'redirect') {
    return { follow: [withoutFragment(new URL(resource.location, url))], skip: [] };
  }
  // Links on error pages are never followed; a 429/503-first page succeeds after retries.
  if (resource.status !== 200) return { follow: [], skip: [] };
  const base = resource.baseHref === undefined ? url : new URL(resource.baseHref, url);
  const pageNofollow =
    NOFOLLOW.test(resource.metaRobots ?? '') || NOFOLLOW.test(resource.xRobotsTag ?? '');
  const follow: string[] = [];
  const skip: string[] = [];
  for (const link of resource.links) {
    const target = withoutFragment(new URL(link.href, base));
    const relNofollow = (link.rel ?? '').toLowerCase().split(/\s+/).includes('nofollow');
    (pageNofollow || relNofollow ? skip : follow).push(target);
  }
  return { follow, skip };
}

function inScope(model: WebModel, url: URL): boolean {
  return (
    url.protocol === 'http:' && url.port === String(model.port) && model.hosts.has(url.hostname)
  );
}

/** Breadth-first walk of the model from every site root. */
export function computeGroundTruth(model: WebModel, options: GroundTruthOptions = {}): GroundTruth {
  const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
  const token = options.userAgentToken ?? 'shardline';
  const rules = new Map<string, RuleSet>();
  const rulesOf = (host: string): RuleSet => {
    let set = rules.get(host);
    if (set === undefined) {
      set = robotsRulesFor(model.hosts.get(host) as HostModel, token);
      rules.set(host, set);
    }
    return set;
  };
  const reachableAllowed = new Set<string>();
  const disallowedLinked = new Set<string>();
  const skipped = new Set<string>();
  const depth = new Map<string, number>();
  const queue: string[] = [];
  for (const host of model.siteHosts) {
    const seed = `${model.origin(host)}/`;
    depth.set(seed, 0);
    queue.push(seed);
  }
  for (let head = 0; head < queue.length; head++) {
    const href = queue[head] as string;
    const d = depth.get(href) as number;
    const url = new URL(href);
    if (!rulesOf(url.hostname).allows(url.pathname + url.search)) {
      disallowedLinked.add(href);
      continue;
    }
    reachableAllowed.add(href);
    if (d >= maxDepth) continue;
    const { follow, skip } = outlinks(model, url);
    for (const s of skip) skipped.add(s);
    for (const next of follow) {
      if (depth.has(next) || !inScope(model, new URL(next))) continue;
      depth.set(next, d + 1);
      queue.push(next);
    }
  }
  const notFollowed = new Set([...skipped].filter((u) => !depth.has(u)));
  return { reachableAllowed, disallowedLinked, notFollowed, depth };
}

/** Robots paths are fetched by the robots cache, not by the frontier: kept out of page counts. */
export function isRobotsPath(path: string): boolean {
  return path === '/robots.txt' || path === REAL_ROBOTS_PATH;
}
