/**
 * Progress of `shardline seed` on stderr: a cli-progress bar when stderr is a terminal
 * (by bytes when the input is a file of known size, a running count otherwise), plain
 * lines every few seconds when it is not, so logs stay readable. Messages about rejected
 * lines go through here so they never tear the bar.
 */
import type { Writable } from 'node:stream';
import cliProgress from 'cli-progress';

/** Counts shown while seeding. */
export interface SeedCounts {
  lines: number;
  queued: number;
  duplicates: number;
  overCap: number;
  rejected: number;
}

/** Options of {@link createSeedProgress}. */
export interface SeedProgressOptions {
  /** Where progress goes (stderr). */
  stream: Writable & { isTTY?: boolean };
  /** Size of the input in bytes, when known (a file): the bar then shows a percentage. */
  totalBytes?: number;
  /** Period of the plain progress lines when the stream is not a terminal. @default 2000 */
  plainEveryMs?: number;
  /** No progress at all (messages are still written). @default false */
  quiet?: boolean;
}

/** The progress display of one seed run. */
export interface SeedProgress {
  /** New counts (and bytes read, for a file). Cheap: rendering is throttled. */
  update(counts: SeedCounts, bytesRead?: number): void;
  /** Writes one message line (a newline is added) without breaking the bar. */
  message(text: string): void;
  /** Renders the last counts and releases the terminal. */
  stop(): void;
}

function summary(c: SeedCounts): string {
  const n = (v: number) => v.toLocaleString('en-US');
  return `${n(c.lines)} lines | queued ${n(c.queued)} | duplicate ${n(c.duplicates)} | over-cap ${n(c.overCap)} | rejected ${n(c.rejected)}`;
}

/** Picks the bar (terminal) or plain lines (anything else). */
export function createSeedProgress(options: SeedProgressOptions): SeedProgress {
  const { stream } = options;
  if (options.quiet) {
    return {
      update() {},
      message: (text) => stream.write(`${text}\n`),
      stop() {},
    };
  }
  const startedAt = Date.now();
  const rate = (c: SeedCounts) => {
    const seconds = (Date.now() - startedAt) / 1000;
    return seconds < 0.5 ? '-' : Math.round(c.lines / seconds).toLocaleString('en-US');
  };
  if (stream.isTTY) return barProgress(options, rate);
  const every = options.plainEveryMs ?? 2000;
  let last = startedAt;
  let counts: SeedCounts | undefined;
  return {
    update(next) {
      counts = next;
      const now = Date.now();
      if (now - last < every) return;
      last = now;
      stream.write(`seeding: ${summary(next)} | ${rate(next)} lines/s\n`);
    },
    message: (text) => stream.write(`${text}\n`),
    stop() {
      if (counts && Date.now() - startedAt >= every) {
        stream.write(`seeding: ${summary(counts)} | ${rate(counts)} lines/s\n`);
      }
    },
  };
}

function barProgress(options: SeedProgressOptions, rate: (c: SeedCounts) => string): SeedProgress {
  const total = options.totalBytes ?? 0;
  const multi = new cliProgress.MultiBar({
    stream: options.stream,
    hideCursor: true,
    clearOnComplete: false,
    format:
      total > 0
        ? 'seeding [{bar}] {percentage}% | {summary} | {rate} lines/s'
        : 'seeding {summary} | {rate} lines/s',
  });
  const zero: SeedCounts = { lines: 0, queued: 0, duplicates: 0, overCap: 0, rejected: 0 };
  const bar = multi.create(Math.max(total, 1), 0, { summary: summary(zero), rate: '-' });
  let bytes = 0;
  return {
    update(counts, bytesRead) {
      if (bytesRead !== undefined) bytes = bytesRead;
      bar.update(total > 0 ? Math.min(bytes, total) : 0, {
        summary: summary(counts),
        rate: rate(counts),
      });
    },
    message: (text) => multi.log(`${text}\n`),
    stop() {
      if (total > 0) bar.update(total);
      multi.update();
      multi.stop();
    },
  };
}
