/**
 * The live progress line of `shardline crawl` (stderr, once a second): pages, rate, queue,
 * errors by code, and the hosts waiting on politeness with the longest wait — so a slow tail
 * (a host's Crawl-delay) explains itself. With nothing queued or in flight it says
 * "idle: nothing queued" (the pod keeps waiting for work unless --exit-when-idle).
 */
import type { CrawlerPod } from '@shardline/crawler';
import type { Logger } from 'pino';
import { type CrawlReport, errorsText } from './crawl-report.js';

/** Due-index entries read per tick to find hosts waiting on politeness. */
const DUE_SAMPLE = 1000;

/** Hosts of the pod's due index whose next visit is in the future, and the longest wait. */
export async function politeness(pod: CrawlerPod): Promise<{ waiting: number; longestMs: number }> {
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
  const polite =
    o.waiting.waiting > 0
      ? `  waiting on politeness ${o.waiting.waiting} hosts (longest ${(o.waiting.longestMs / 1000).toFixed(1)} s)`
      : '';
  return (
    `pages ${stats.fetched}  ${o.rate.toFixed(0)}/s  queued ${o.queued}` +
    `  in flight ${stats.inFlight}  retries ${stats.retried}  dead ${stats.dead}` +
    `  ${o.errors}${polite}  ${elapsed}`
  );
}

/** Prints the progress line on stderr every second; returns what ends it. */
export function startProgress(pod: CrawlerPod, report: CrawlReport, logger: Logger): () => void {
  const startedAt = Date.now();
  const tty = process.stderr.isTTY === true;
  let last = { at: startedAt, fetched: 0 };
  let lastLine = '';
  const timer = setInterval(() => {
    void Promise.all([pod.frontier.stats(), politeness(pod)]).then(
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
        else if (line.replace(/\s+\d+s$/, '') !== lastLine) process.stderr.write(`${line}\n`);
        lastLine = line.replace(/\s+\d+s$/, '');
      },
      (error: unknown) => logger.debug({ err: error }, 'progress: frontier stats failed'),
    );
  }, 1000);
  return () => {
    clearInterval(timer);
    if (tty) process.stderr.write('\n');
  };
}
