/** Analyses of the request log that crawl tests assert on. */
import { isRobotsPath } from './ground-truth.js';

/** One request as the server saw it. */
export interface RequestLogEntry {
  /** Host header without port, lower-cased (e.g. `site3.test`). */
  host: string;
  /** Path and query as requested (e.g. `/p/3?v=1`). */
  path: string;
  method: string;
  /** Arrival time, ms since the epoch with fractions (`performance.timeOrigin + performance.now()`). */
  startMs: number;
  /** When the response finished or the socket closed; -1 while in flight. */
  endMs: number;
  /** Status sent; 0 if the socket was dropped before a response (robots timeout). */
  status: number;
  /** Body bytes written. */
  bytes: number;
  userAgent: string;
  remotePort: number;
}

/** Options of {@link politenessViolations}. */
export interface PolitenessOptions {
  /** Minimum gap between request starts on one host; a function gives a per-host gap (crawl-delay). */
  minGapMs: number | ((host: string) => number);
  /** Maximum requests in flight at once on one host. */
  maxConcurrency: number;
  /** Tolerance for timer and network jitter, applied to gaps and to overlaps. @default 10 */
  slackMs?: number;
  /** Count robots.txt fetches too. @default false */
  includeRobots?: boolean;
}

/** A breach of politeness on one host. */
export interface PolitenessViolation {
  host: string;
  kind: 'gap' | 'concurrency';
  detail: string;
}

/** url (`http://host:port/path?query`) → number of GETs, robots fetches excluded. */
export function countFetches(log: readonly RequestLogEntry[], port: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entry of log) {
    if (entry.method !== 'GET' || isRobotsPath(entry.path.split('?')[0] as string)) continue;
    const url = `http://${entry.host}:${port}${entry.path}`;
    counts.set(url, (counts.get(url) ?? 0) + 1);
  }
  return counts;
}

/**
 * Per host: consecutive request starts closer than the gap (minus slack), and moments where
 * more than `maxConcurrency` [start, end] intervals overlap by more than the slack.
 */
export function politenessViolations(
  log: readonly RequestLogEntry[],
  options: PolitenessOptions,
): PolitenessViolation[] {
  const slack = options.slackMs ?? 10;
  const gapOf =
    typeof options.minGapMs === 'function' ? options.minGapMs : () => options.minGapMs as number;
  const byHost = new Map<string, RequestLogEntry[]>();
  for (const entry of log) {
    if (!options.includeRobots && isRobotsPath(entry.path.split('?')[0] as string)) continue;
    let list = byHost.get(entry.host);
    if (list === undefined) {
      list = [];
      byHost.set(entry.host, list);
    }
    list.push(entry);
  }
  const out: PolitenessViolation[] = [];
  for (const [host, entries] of byHost) {
    const sorted = entries.slice().sort((a, b) => a.startMs - b.startMs);
    const gap = gapOf(host);
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted[i - 1] as RequestLogEntry;
      const cur = sorted[i] as RequestLogEntry;
      const delta = cur.startMs - prev.startMs;
      if (delta < gap - slack) {
        out.push({
          host,
          kind: 'gap',
          detail: `${prev.path} then ${cur.path} started ${delta.toFixed(1)} ms apart (< ${gap} ms)`,
        });
      }
    }
    // Sweep: an interval counts as open from start until end - slack (in flight: forever).
    const open: number[] = [];
    for (const cur of sorted) {
      for (let j = open.length - 1; j >= 0; j--) {
        if ((open[j] as number) <= cur.startMs) open.splice(j, 1);
      }
      open.push(cur.endMs < 0 ? Number.POSITIVE_INFINITY : cur.endMs - slack);
      if (open.length > options.maxConcurrency) {
        out.push({
          host,
          kind: 'concurrency',
          detail: `${open.length} requests in flight when ${cur.path} started (max ${options.maxConcurrency})`,
        });
      }
    }
  }
  return out;
}
