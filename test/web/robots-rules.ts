/**
 * A small, independent RFC 9309 evaluator used only for the ground truth. It reads the
 * robots files the generator itself wrote (plus its 500 KiB cap), so it deliberately stays
 * minimal: groups, merging of groups that name the same agent, Allow/Disallow with `*` and
 * `$`, longest match with Allow winning ties, and the non-standard Crawl-delay.
 */

/** RFC 9309 §2.5: crawlers must parse at least 500 KiB; we model a crawler that parses exactly that. */
export const ROBOTS_PARSE_LIMIT_BYTES = 500 * 1024;

interface Rule {
  allow: boolean;
  pattern: string;
  regex: RegExp;
}

interface Group {
  agents: string[];
  rules: Rule[];
  crawlDelayS?: number;
}

/** The rules that apply to one user-agent token. */
export interface RuleSet {
  /** Whether `pathAndQuery` (e.g. `/p/3?v=1`) may be fetched. */
  allows(pathAndQuery: string): boolean;
  /** Crawl-delay of the chosen group in seconds, if it has one. */
  readonly crawlDelayS: number | undefined;
}

function compile(pattern: string): RegExp {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const source = body
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}${anchored ? '$' : ''}`);
}

function parseGroups(text: string): Group[] {
  const groups: Group[] = [];
  let current: Group | undefined;
  let lastWasAgent = false;
  for (const rawLine of text.split(/\r\n|\r|\n/)) {
    const line = rawLine.replace(/#.*$/, '').trim();
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'user-agent') {
      if (!lastWasAgent || current === undefined) {
        current = { agents: [], rules: [] };
        groups.push(current);
      }
      // The product token is the part before any version or comment.
      current.agents.push((value.split(/[\s/]/)[0] ?? '').toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (current === undefined) continue; // rules before any user-agent line belong to no group
    if (key === 'allow' || key === 'disallow') {
      if (value === '') continue; // an empty Disallow means "nothing disallowed"
      current.rules.push({ allow: key === 'allow', pattern: value, regex: compile(value) });
    } else if (key === 'crawl-delay') {
      const seconds = Number(value);
      if (Number.isFinite(seconds) && seconds >= 0) current.crawlDelayS = seconds;
    }
  }
  return groups;
}

/** Builds the rule set a crawler identifying as `userAgentToken` must obey for this file. */
export function ruleSetFor(text: string, userAgentToken: string): RuleSet {
  const groups = parseGroups(text);
  const token = userAgentToken.toLowerCase();
  let chosen = groups.filter((g) => g.agents.includes(token));
  if (chosen.length === 0) chosen = groups.filter((g) => g.agents.includes('*'));
  const rules = chosen.flatMap((g) => g.rules);
  const crawlDelayS = chosen.find((g) => g.crawlDelayS !== undefined)?.crawlDelayS;
  return {
    crawlDelayS,
    allows(pathAndQuery: string): boolean {
      let best: Rule | undefined;
      for (const rule of rules) {
        if (!rule.regex.test(pathAndQuery)) continue;
        if (
          best === undefined ||
          rule.pattern.length > best.pattern.length ||
          (rule.pattern.length === best.pattern.length && rule.allow && !best.allow)
        ) {
          best = rule;
        }
      }
      return best === undefined || best.allow;
    },
  };
}

/** Parses only the first {@link ROBOTS_PARSE_LIMIT_BYTES} of a robots body, as a crawler must. */
export function ruleSetForBody(body: Buffer, userAgentToken: string): RuleSet {
  return ruleSetFor(body.subarray(0, ROBOTS_PARSE_LIMIT_BYTES).toString('utf8'), userAgentToken);
}

/** Rule sets for the status-only outcomes of RFC 9309 §2.3.1. */
export const ALLOW_ALL: RuleSet = { allows: () => true, crawlDelayS: undefined };
export const DISALLOW_ALL: RuleSet = { allows: () => false, crawlDelayS: undefined };
