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

/** Hosts of the pod's due index whose next visit is in the future, and the longest wait. */
export async function notDueYet(pod: CrawlerPod): Promise<{ waiting: number; longestMs: number }> {
  const now = Date.now();
  const hosts = await pod.frontier.inspector.dueHosts(pod.id, { limit: DUE_SAMPLE });
  let waiting = 0;
  let longestMs = 0;
  for (const host of hosts) {
    if (!(host.dueAtMs > now) || !Number.isFinite(host.dueAtMs)) continue;
    waiting += 1;
    longestMs = Math.max(longestMs, host.dueAtMs - now);
  }
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
