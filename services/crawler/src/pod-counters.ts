/**
 * The pod's own counters (what `stats()` reports besides the loop's, the gate's and the result
 * sink's). The lease pipeline's stages and its settler count into one instance.
 */
import type { PodStats } from './pod-options.js';

/** The part of {@link PodStats} the lease pipeline counts. */
export type LeaseCounts = Omit<
  PodStats,
  | 'pod'
  | 'inFlight'
  | 'claims'
  | 'emptyClaims'
  | 'wakes'
  | 'gate'
  | 'ipGate'
  | 'results'
  | 'faults'
  | 'warc'
>;

/** Mutable counters; see {@link PodStats} for what each means. */
export class PodCounters implements LeaseCounts {
  fetched = 0;
  retried = 0;
  dead = 0;
  released = 0;
  lost = 0;
  robotsDisallowed = 0;
  robotsDeferred = 0;
  gapReleases = 0;
  notModified = 0;
  robotsFilteredLinks = 0;
  robotsLoads = { memory: 0, 'shared-cache': 0, fetch: 0 };
  redirects = 0;
  bytes = 0;
  linksQueued = 0;
  errors: Record<string, number> = {};
  bounds: Record<string, number> = {};
  items = 0;
  handlerErrors = 0;

  /** One more outcome with error code `code`. */
  countError(code: string): void {
    this.errors[code] = (this.errors[code] ?? 0) + 1;
  }

  /** One more lease that hit each of `names` (each counted once per lease). */
  countBounds(names: Iterable<string>): void {
    for (const name of names) this.bounds[name] = (this.bounds[name] ?? 0) + 1;
  }

  /** A copy (the maps copied too). */
  snapshot(): LeaseCounts {
    return {
      fetched: this.fetched,
      items: this.items,
      handlerErrors: this.handlerErrors,
      retried: this.retried,
      dead: this.dead,
      released: this.released,
      lost: this.lost,
      robotsDisallowed: this.robotsDisallowed,
      robotsDeferred: this.robotsDeferred,
      gapReleases: this.gapReleases,
      notModified: this.notModified,
      robotsFilteredLinks: this.robotsFilteredLinks,
      robotsLoads: { ...this.robotsLoads },
      redirects: this.redirects,
      bytes: this.bytes,
      linksQueued: this.linksQueued,
      errors: { ...this.errors },
      bounds: { ...this.bounds },
    };
  }
}
