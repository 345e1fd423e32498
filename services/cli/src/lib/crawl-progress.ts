/**
 * The live progress line of `shardline crawl` (stderr, once a second): pages, rate, queue,
 * errors by code, and the hosts not due yet with the longest wait — so a slow tail (a host's
 * Crawl-delay, a failure backoff, a spent budget, a block) explains itself. With nothing queued
 * or in flight it says "idle: nothing queued" (the pod keeps waiting for work unless
 * --exit-when-idle). Off a terminal a line is printed only when it says something new.
 */
import type { CrawlerPod } from '@shardline/crawler';
import type { Logger } from 'pino';
import { type CrawlReport, errorsText } from './crawl-report.js';
import { duration } from './table.js';

/** Due-index entries read per tick to find hosts not due yet. */
const DUE_SAMPLE = 1000;
/** Of those, the hosts (longest waits first) whose leases are read to tell a busy host. */
const CHECKED_HOSTS = 256;

/**
 * Hosts of the pod's due index that wait for a reason the user may want to see (a delay, a
 * backoff, a spent budget, a block), and the longest wait. Not counted: an entry at its pin's
 * end (the frontier's own re-check of a host it just changed: a finished domain's last visit),
 * and a host scored at a lease deadline (it is busy: its leases are out, to its concurrency or
 * with nothing else queued) — a slow page is not a wait of a minute.
 */
export async function notDueYet(pod: CrawlerPod): Promise<{ waiting: number; longestMs: number }> {
  const inspector = pod.frontier.inspector;
  const entries = await inspector.dueEntries(pod.id, { limit: DUE_SAMPLE });
  const now = Date.now();
  const future = entries
    .filter((e) => e.dueAtMs > now && Number.isFinite(e.dueAtMs) && e.dueAtMs !== e.pinnedUntilMs)
    .sort((a, b) => b.dueAtMs - a.dueAtMs);
  const leases = await Promise.all(
    future.slice(0, CHECKED_HOSTS).map((e) => inspector.hostLeases(e.domain, e.host)),
  );
  const timeoutMs = pod.frontier.leaseTimeoutMs;
  let waiting = 0;
  let longestMs = 0;
  future.forEach((entry, i) => {
    const held = leases[i] ?? [];
    // A claim scores a host whose leases hold it back at the earliest lease's deadline (a
    // heartbeat extends the lease, not the score): never before claim time + lease timeout.
    const firstClaimMs = Math.min(...held.map((lease) => lease.claimedAtMs));
    if (held.length > 0 && timeoutMs > 0 && entry.dueAtMs >= firstClaimMs + timeoutMs) return;
    waiting += 1;
    longestMs = Math.max(longestMs, entry.dueAtMs - now);
  });
  return { waiting, longestMs };
}

/** One progress line. */
export function progressLine(o: {
  stats: ReturnType<CrawlerPod['stats']>;
  queued: number;
  elapsedMs: number;
  rate: number;
  errors: string;
  waiting: { waiting: number; longestMs: number };
}): string {
  const { stats } = o;
  const elapsed = `${(o.elapsedMs / 1000).toFixed(0)}s`;
  if (o.queued <= 0 && stats.inFlight === 0) {
    return `idle: nothing queued  pages ${stats.fetched}  ${o.errors}  ${elapsed}`;
  }
  // Not only politeness: a backoff, a spent budget or a block also put a host's turn later.
  const waiting =
    o.waiting.waiting > 0
      ? `  hosts not due yet ${o.waiting.waiting} (longest wait ${duration(o.waiting.longestMs)})`
      : '';
  return (
    `pages ${stats.fetched}  ${o.rate.toFixed(0)}/s  queued ${o.queued}` +
    `  in flight ${stats.inFlight}  retries ${stats.retried}  dead ${stats.dead}` +
    `  ${o.errors}${waiting}  ${elapsed}`
  );
}

/**
 * What a progress line says, less what changes by itself every second (the elapsed time, the
 * longest wait counting down): off a terminal a line is printed only when this changes, so a
 * host waiting a day on its budget does not write a line per second to the log.
 */
export function progressNews(line: string): string {
  return line.replace(/\s+\d+s$/, '').replace(/ \(longest wait [^)]*\)/, '');
}

/** Prints the progress line on stderr every second; returns what ends it. */
export function startProgress(pod: CrawlerPod, report: CrawlReport, logger: Logger): () => void {
  const startedAt = Date.now();
  const tty = process.stderr.isTTY === true;
  let last = { at: startedAt, fetched: 0 };
  let lastNews = '';
  const timer = setInterval(() => {
    void Promise.all([pod.frontier.stats(), notDueYet(pod)]).then(
      ([frontier, waiting]) => {
        const stats = pod.stats();
        const now = Date.now();
        const rate = ((stats.fetched - last.fetched) * 1000) / Math.max(1, now - last.at);
        last = { at: now, fetched: stats.fetched };
        const line = progressLine({
          stats,
          queued: frontier.queued ?? 0,
          elapsedMs: now - startedAt,
          rate,
          errors: errorsText(report),
          waiting,
        });
        // On a TTY the line is redrawn in place; elsewhere only changes are printed.
        if (tty) process.stderr.write(`\r${line}\x1b[K`);
        else if (progressNews(line) !== lastNews) process.stderr.write(`${line}\n`);
        lastNews = progressNews(line);
      },
      (error: unknown) => logger.debug({ err: error }, 'progress: frontier stats failed'),
    );
  }, 1000);
  return () => {
    clearInterval(timer);
    if (tty) process.stderr.write('\n');
  };
}
