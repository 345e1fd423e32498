/**
 * Membership-change figures: domains moved vs the optimum (from the rings before and after)
 * and the pause each domain saw at the server around the change (from the request log).
 */
import { diffRings, HashRing, loadHasher } from '@shardline/ring';
import type { RequestLogEntry } from '../web/index.js';
import type { ObservedView } from './membership-watch.js';

/** One membership change, replayed on the ring. */
export interface ChangeFigures {
  label: string;
  epochBefore: number;
  epochAfter: number;
  /** When the watcher first saw the new epoch. */
  atMs: number;
  before: string[];
  after: string[];
  /** Σ over pods of the share each one gains: k/N for equal weights. */
  optimum: number;
  /** Keyspace fraction whose owner changed (`diffRings(...).movedFraction`). */
  keyspaceMoved: number;
  /** Fraction of the crawl's domains whose owner changed. */
  domainsMoved: number;
  movedDomains: Set<string>;
  /**
   * Domains active across the change (see {@link pauseAcross}): moved by this change, and
   * unmoved (the same owner in every view from their last request before the change to
   * their first after it).
   */
  activeMoved: number;
  activeUnmoved: number;
  /**
   * Active domains that this change did not move but a neighbouring one did while they
   * waited (several joins land within a second of each other): their pause is that
   * change's handoff, counted there, not an unmoved domain's.
   */
  activeMovedNearby: number;
  /** Longest pause of an active moved / unmoved domain (ms, see {@link pauseOf}). */
  maxPauseMoved: number;
  maxPauseUnmoved: number;
  /** Unmoved active domains paused longer than the allowed slack: `domain: pause ms`. */
  unmovedPaused: string[];
}

function shares(members: { id: string; weight: number }[]): Map<string, number> {
  const total = members.reduce((sum, m) => sum + m.weight, 0);
  return new Map(members.map((m) => [m.id, m.weight / total]));
}

/** The least fraction of keys any assignment must move between two member lists. */
export function optimumMoved(
  before: { id: string; weight: number }[],
  after: { id: string; weight: number }[],
): number {
  const b = shares(before);
  let gained = 0;
  for (const [id, share] of shares(after)) gained += Math.max(0, share - (b.get(id) ?? 0));
  return gained;
}

/** Requests per host (robots.txt included: it is traffic too), by start time. */
export function requestsByHost(log: readonly RequestLogEntry[]): Map<string, RequestLogEntry[]> {
  const byHost = new Map<string, RequestLogEntry[]>();
  for (const entry of log) {
    let list = byHost.get(entry.host);
    if (!list) {
      list = [];
      byHost.set(entry.host, list);
    }
    list.push(entry);
  }
  for (const list of byHost.values()) list.sort((a, b) => a.startMs - b.startMs);
  return byHost;
}

/** One host's last request before a change and its first after it. */
export interface Gap {
  prev: RequestLogEntry;
  next: RequestLogEntry;
}

/**
 * The requests of one host either side of moment `atMs`, or `undefined` when the host was
 * not being crawled across the change: no request in the `lookBackMs` before, or fewer than
 * two requests in the `lookAheadMs` after (a single late request is a cross-link discovered
 * later, not a crawl that paused).
 */
export function gapAcross(
  requests: readonly RequestLogEntry[],
  atMs: number,
  lookBackMs: number,
  lookAheadMs: number,
): Gap | undefined {
  let prev: RequestLogEntry | undefined;
  let after = 0;
  let next: RequestLogEntry | undefined;
  for (const r of requests) {
    if (r.startMs <= atMs) prev = r;
    else if (r.startMs <= atMs + lookAheadMs) {
      next ??= r;
      after++;
    }
  }
  if (!prev || !next || prev.startMs < atMs - lookBackMs || after < 2) return undefined;
  return { prev, next };
}

/**
 * The pause a change caused across a gap: how long the host waited, after it was due and
 * after the change, for its next request. Due means `minDelayMs` after the previous
 * response ended (the pods' frontier schedules a host's next slot when a lease completes,
 * so that is their normal cadence). The wait is counted from `sinceMs` (the change) when
 * the host was already due before it: a host a busy pod had not got round to yet (the
 * crawl's first seconds on two loaded cores, while new pods start) was late before the
 * change, not paused by it.
 */
export function pauseOf(gap: Gap, minDelayMs: number, sinceMs: number): number {
  const prevEnd = gap.prev.endMs < 0 ? gap.prev.startMs : gap.prev.endMs;
  return Math.max(0, gap.next.startMs - Math.max(prevEnd + minDelayMs, sinceMs));
}

/** Options of {@link changeFigures}. */
export interface ChangeFiguresOptions {
  views: readonly ObservedView[];
  /** Labels by epoch after the change (the test's step names). */
  labels: (before: ObservedView, after: ObservedView) => string;
  ringParams: { vnodes: number; seed: number };
  domains: readonly string[];
  log: readonly RequestLogEntry[];
  minDelayMs: number;
  /** A change for a crash is seen only after the session timeout: look back this far. */
  lookBackMs: number;
  lookAheadMs: number;
  unmovedSlackMs: number;
  /** How late the watcher may see a change (its poll period). */
  watchIntervalMs: number;
}

/** Replays every consecutive pair of observed views on the ring and measures it. */
export async function changeFigures(o: ChangeFiguresOptions): Promise<ChangeFigures[]> {
  await loadHasher();
  const byHost = requestsByHost(o.log);
  const out: ChangeFigures[] = [];
  const rings = o.views.map(
    (v) => new HashRing(v.members, { vnodes: o.ringParams.vnodes, seed: o.ringParams.seed }),
  );
  // Whether the domain's owner changed between any two views in effect from `fromMs` to
  // `toMs` (the view in effect at `fromMs`, then every view seen up to `toMs`).
  const ownerChanged = (domain: string, fromMs: number, toMs: number): boolean => {
    let owner: string | undefined;
    for (let j = 0; j < o.views.length; j++) {
      const next = o.views[j + 1];
      if (next && next.seenAtMs <= fromMs) continue;
      if ((o.views[j] as ObservedView).seenAtMs > toMs) break;
      const now = (rings[j] as HashRing).owner(domain);
      if (owner !== undefined && now !== owner) return true;
      owner = now;
    }
    return false;
  };
  for (let i = 1; i < o.views.length; i++) {
    const before = o.views[i - 1] as ObservedView;
    const after = o.views[i] as ObservedView;
    const diff = diffRings(rings[i - 1] as HashRing, rings[i] as HashRing);
    const movedDomains = new Set(o.domains.filter((d) => diff.moved(d)));
    const figures: ChangeFigures = {
      label: o.labels(before, after),
      epochBefore: before.epoch,
      epochAfter: after.epoch,
      atMs: after.seenAtMs,
      before: before.members.map((m) => m.id),
      after: after.members.map((m) => m.id),
      optimum: optimumMoved(before.members, after.members),
      keyspaceMoved: diff.movedFraction,
      domainsMoved: movedDomains.size / o.domains.length,
      movedDomains,
      activeMoved: 0,
      activeUnmoved: 0,
      activeMovedNearby: 0,
      maxPauseMoved: 0,
      maxPauseUnmoved: 0,
      unmovedPaused: [],
    };
    for (const domain of o.domains) {
      const gap = gapAcross(byHost.get(domain) ?? [], after.seenAtMs, o.lookBackMs, o.lookAheadMs);
      if (!gap) continue;
      // Pods hear of a change by pub/sub, the watcher up to one poll later.
      const pause = pauseOf(gap, o.minDelayMs, after.seenAtMs - o.watchIntervalMs);
      if (movedDomains.has(domain)) {
        figures.activeMoved++;
        figures.maxPauseMoved = Math.max(figures.maxPauseMoved, pause);
      } else if (ownerChanged(domain, gap.prev.startMs, gap.next.startMs)) {
        figures.activeMovedNearby++;
      } else {
        figures.activeUnmoved++;
        figures.maxPauseUnmoved = Math.max(figures.maxPauseUnmoved, pause);
        if (pause > o.unmovedSlackMs) figures.unmovedPaused.push(`${domain}: ${Math.round(pause)}`);
      }
    }
    out.push(figures);
  }
  return out;
}

/** A fixed-width table of the figures, one row per change. */
export function formatTable(rows: readonly ChangeFigures[]): string {
  const head = [
    'change',
    'epoch',
    'members after',
    'optimum',
    'keyspace',
    'ratio',
    'domains',
    'ratio',
    'active mv/unmv',
    'max pause moved',
    'max pause unmoved',
  ];
  const body = rows.map((r) => [
    r.label,
    `${r.epochBefore}→${r.epochAfter}`,
    r.after.join(','),
    r.optimum.toFixed(3),
    r.keyspaceMoved.toFixed(3),
    (r.keyspaceMoved / r.optimum).toFixed(3),
    r.domainsMoved.toFixed(3),
    (r.domainsMoved / r.optimum).toFixed(3),
    `${r.activeMoved}/${r.activeUnmoved}${r.activeMovedNearby > 0 ? ` (+${r.activeMovedNearby})` : ''}`,
    `${Math.round(r.maxPauseMoved)} ms`,
    `${Math.round(r.maxPauseUnmoved)} ms`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-+-'), ...body.map(line)].join('\n');
}
