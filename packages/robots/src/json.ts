import { describeValue, RobotsError, RobotsErrorCode } from './errors.js';
import type { RobotsGroup } from './groups.js';

/** Where a {@link RobotsTxt}'s answers come from. */
export type RobotsSource = 'parsed' | 'allow-all' | 'disallow-all';

/** One group in {@link RobotsTxtJson}; patterns are in canonical form. */
export interface RobotsGroupJson {
  agents: string[];
  allow: string[];
  disallow: string[];
  crawlDelayMs?: number;
}

/**
 * Serialisable form of a {@link RobotsTxt} (for caching in Redis): the parsed groups, not
 * the body, so it is usually much smaller than the file and needs no re-parse.
 */
export interface RobotsTxtJson {
  /** Format version; {@link RobotsTxt.fromJSON} rejects any other. */
  v: 1;
  source: RobotsSource;
  reason: string | null;
  truncated: boolean;
  maxCrawlDelayMs: number;
  sitemaps: string[];
  groups: RobotsGroupJson[];
}

const SOURCES: readonly RobotsSource[] = ['parsed', 'allow-all', 'disallow-all'];
const AGENT = /^(?:\*|[a-z_-]+)$/;
/** Canonical patterns are printable ASCII without white space or `#` (see encoding.ts). */
const PATTERN = /^[!-"$-~]+$/;

function fail(path: string, value: unknown): never {
  throw new RobotsError(
    RobotsErrorCode.INVALID_JSON,
    `invalid RobotsTxtJson: ${path} is ${describeValue(value)}`,
  );
}

function stringArray(value: unknown, path: string, re?: RegExp): string[] {
  if (!Array.isArray(value)) fail(path, value);
  value.forEach((item, i) => {
    if (typeof item !== 'string' || (re !== undefined && !re.test(item)))
      fail(`${path}[${i}]`, item);
  });
  return value as string[];
}

function nonNegative(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) fail(path, value);
  return value;
}

/**
 * Checks a value read back from a cache. Patterns and agents are checked against the
 * canonical alphabet because they are fed to robots-parser as robots.txt text: a newline
 * smuggled into a pattern would otherwise forge rules.
 */
export function validateJson(json: unknown): RobotsTxtJson & { groups: RobotsGroup[] } {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) fail('document', json);
  const doc = json as Record<string, unknown>;
  if (doc.v !== 1) fail('v', doc.v);
  if (!SOURCES.includes(doc.source as RobotsSource)) fail('source', doc.source);
  if (doc.reason !== null && typeof doc.reason !== 'string') fail('reason', doc.reason);
  if (typeof doc.truncated !== 'boolean') fail('truncated', doc.truncated);
  nonNegative(doc.maxCrawlDelayMs, 'maxCrawlDelayMs');
  stringArray(doc.sitemaps, 'sitemaps');
  if (!Array.isArray(doc.groups)) fail('groups', doc.groups);
  const groups = doc.groups.map((g: unknown, i: number): RobotsGroup => {
    if (typeof g !== 'object' || g === null) fail(`groups[${i}]`, g);
    const raw = g as Record<string, unknown>;
    const group: RobotsGroup = {
      agents: stringArray(raw.agents, `groups[${i}].agents`, AGENT),
      allow: stringArray(raw.allow, `groups[${i}].allow`, PATTERN),
      disallow: stringArray(raw.disallow, `groups[${i}].disallow`, PATTERN),
    };
    if (raw.crawlDelayMs !== undefined) {
      group.crawlDelayMs = nonNegative(raw.crawlDelayMs, `groups[${i}].crawlDelayMs`);
    }
    return group;
  });
  return { ...(doc as unknown as RobotsTxtJson), groups };
}
