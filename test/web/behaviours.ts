/**
 * The hostile behaviours a virtual host can have, and the deterministic "default mix"
 * that spreads them over a subset of hosts. What each one does is documented in README.md.
 */
import { Random } from './random.js';

/** Variants of `/robots.txt`. A host has at most one. */
export const ROBOTS_BEHAVIOURS = [
  'robots-disallow',
  'robots-wildcard',
  'robots-crawl-delay',
  'robots-404',
  'robots-500',
  'robots-timeout',
  'robots-huge',
  'robots-binary',
  'robots-redirect',
  'robots-503-first',
] as const;

/** Behaviours that add special pages to a host (linked from its root). */
export const PAGE_BEHAVIOURS = [
  'slow',
  'drip',
  'huge-body',
  'retry-429',
  'retry-503',
  'error-500',
  'redirect-chain',
  'redirect-loop',
  'non-html',
  'base-href',
  'nofollow-link',
  'meta-nofollow',
  'meta-noindex',
  'header-nofollow',
  'charset',
] as const;

export type RobotsBehaviour = (typeof ROBOTS_BEHAVIOURS)[number];
export type PageBehaviour = (typeof PAGE_BEHAVIOURS)[number];
/** One hostile trait of a virtual host. */
export type HostBehaviour = RobotsBehaviour | PageBehaviour;

/** Every behaviour, robots variants first. */
export const ALL_BEHAVIOURS: readonly HostBehaviour[] = [...ROBOTS_BEHAVIOURS, ...PAGE_BEHAVIOURS];

export function isHostBehaviour(value: unknown): value is HostBehaviour {
  return typeof value === 'string' && (ALL_BEHAVIOURS as readonly string[]).includes(value);
}

export function isRobotsBehaviour(value: HostBehaviour): value is RobotsBehaviour {
  return (ROBOTS_BEHAVIOURS as readonly string[]).includes(value);
}

/**
 * The default mix: one behaviour per hostile host, so a blocking robots variant never
 * hides a page behaviour. `site1.test` stays plain. The hostile share is 20 % of the hosts
 * but at least one host per behaviour, so with 25 or more hosts every behaviour appears.
 */
export function defaultMix(
  hostNames: readonly string[],
  seed: number,
): Map<string, HostBehaviour[]> {
  const out = new Map<string, HostBehaviour[]>();
  const candidates = new Random(seed ^ 0x5eed).shuffle(hostNames.slice(1));
  const hostile = Math.min(
    candidates.length,
    Math.max(ALL_BEHAVIOURS.length, Math.round(hostNames.length * 0.2)),
  );
  for (let i = 0; i < hostile; i++) {
    const host = candidates[i] as string;
    out.set(host, [ALL_BEHAVIOURS[i % ALL_BEHAVIOURS.length] as HostBehaviour]);
  }
  return out;
}
