/**
 * The test web's request log (JSONL, one line per request) is the one record every contender
 * leaves the same way, so it is what a run is measured by: watched while it grows (a stall,
 * the halfway point for `--kill`), then read and analysed against the ground truth.
 */
import { readFileSync, statSync } from 'node:fs';
import {
  countFetches,
  politenessViolations,
  type RequestLogEntry,
} from '../../test/web/analysis.js';
import { isRobotsPath } from '../../test/web/ground-truth.js';

/** Size of the growing log file, 0 before it exists. */
export function logSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** Page fetches (robots excluded) so far, counted from the growing log file. */
export function pagesInLog(file: string): number {
  let size = 0;
  try {
    size = statSync(file).size;
  } catch {
    return 0;
  }
  if (size === 0) return 0;
  let n = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line && !line.includes('"path":"/robots')) n++;
  }
  return n;
}

export function readRequestLog(file: string): RequestLogEntry[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RequestLogEntry);
}

/** What one run's log says, before the process figures are added to make a row. */
export interface LogFigures {
  boundS: number;
  spanS: number;
  pages: number;
  unique: number;
  duplicates: number;
  /** Ground-truth URLs never fetched. */
  lostUrls: string[];
  violations: number;
  firstAfterKillS?: number;
  maxHostIdleS?: number;
  hostsNotResumed?: number;
}

export interface RunContext {
  /** The ground truth's `reachableAllowed` URLs. */
  truth: Set<string>;
  /** The test web's port, part of every URL of the ground truth. */
  port: number;
  delayMs: number;
  /** Under `--kill`: when the crawler process was killed and when the run ended (epoch ms). */
  kill?: { at: number; endedAt: number };
}

export function analyseLog(log: RequestLogEntry[], run: RunContext): LogFigures {
  const counts = countFetches(log, run.port);
  let pages = 0;
  let duplicates = 0;
  for (const n of counts.values()) {
    pages += n;
    duplicates += n - 1;
  }
  const lostUrls = [...run.truth].filter((url) => !counts.has(url));
  const violations = politenessViolations(log, {
    minGapMs: run.delayMs,
    maxConcurrency: 1,
  }).length;
  const first = Math.min(...log.map((e) => e.startMs));
  const last = Math.max(...log.map((e) => e.endMs));
  const spanS = (last - first) / 1000;
  // The politeness bound: the busiest host needs (its pages − 1) × d after its first page.
  const perHost = new Map<string, number>();
  for (const url of run.truth) {
    const h = new URL(url).hostname;
    perHost.set(h, (perHost.get(h) ?? 0) + 1);
  }
  const boundS = (Math.max(...perHost.values()) - 1) * (run.delayMs / 1000);
  return {
    boundS,
    spanS,
    pages,
    unique: counts.size,
    duplicates,
    lostUrls,
    violations,
    ...(run.kill && afterKill(log, run, run.kill)),
  };
}

function afterKill(
  log: RequestLogEntry[],
  run: RunContext,
  kill: { at: number; endedAt: number },
): Pick<LogFigures, 'firstAfterKillS' | 'maxHostIdleS' | 'hostsNotResumed'> {
  const pageLog = log.filter((e) => !isRobotsPath(e.path.split('?')[0] as string));
  const after = pageLog.filter((e) => e.startMs > kill.at);
  const firstAfterKillS =
    after.length > 0 ? (Math.min(...after.map((e) => e.startMs)) - kill.at) / 1000 : undefined;
  // Per host with work left at the kill (a ground-truth page not yet requested): how long
  // until its next request — or, if none came, until the run ended (a lower bound).
  const fetchedBeforeKill = new Set(
    pageLog.filter((e) => e.startMs <= kill.at).map((e) => `http://${e.host}:${run.port}${e.path}`),
  );
  const pendingHosts = new Set(
    [...run.truth].filter((u) => !fetchedBeforeKill.has(u)).map((u) => new URL(u).hostname),
  );
  const firstByHost = new Map<string, number>();
  for (const e of after) {
    firstByHost.set(e.host, Math.min(firstByHost.get(e.host) ?? Infinity, e.startMs));
  }
  let hostsNotResumed = 0;
  const idles: number[] = [];
  for (const host of new Set([...pendingHosts, ...firstByHost.keys()])) {
    const next = firstByHost.get(host);
    if (next === undefined) hostsNotResumed++;
    idles.push(((next ?? kill.endedAt) - kill.at) / 1000);
  }
  return {
    ...(firstAfterKillS !== undefined && { firstAfterKillS }),
    ...(idles.length > 0 && { maxHostIdleS: Math.max(...idles) }),
    hostsNotResumed,
  };
}
