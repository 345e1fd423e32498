/**
 * The tables the comparison prints once every run is measured: one line per run, then under
 * `--repeat` one line per (D, contender) with medians and ranges, so that a single noisy run
 * on a shared machine does not decide a figure.
 */
import { cpus } from 'node:os';
import type { CompareOptions } from './options.js';
import type { Row } from './run.js';

const f = (n: number | undefined, digits = 1): string =>
  n === undefined ? '-' : n.toFixed(digits);

const idle = (r: Row): string =>
  r.maxHostIdleS === undefined ? '-' : `${r.hostsNotResumed ? '≥' : ''}${f(r.maxHostIdleS)}`;

const killHeader = ['killed at', 'first after kill s', 'max host idle s', 'hosts not resumed'];

function printRuns(rows: Row[], options: CompareOptions): void {
  const header = [
    'D',
    'contender',
    ...(options.repeat > 1 ? ['run'] : []),
    'budget',
    'bound s',
    'span s',
    'process s',
    'fraction',
    'pages',
    'dup',
    'lost',
    'viol',
    'peak RSS MB',
    'CPU s',
    'redis RSS/CPU',
    'span ×',
    'CPU ×',
    'RSS ×',
    'load',
    ...(options.kill ? killHeader : []),
  ];
  console.log(`| ${header.join(' | ')} |`);
  console.log(`| ${header.map(() => '---').join(' | ')} |`);
  for (const r of rows) {
    const base =
      rows.find((b) => b.hosts === r.hosts && b.run === r.run && b.contender === 'shardline-1') ??
      r;
    console.log(
      `| ${[
        r.hosts,
        r.contender + (r.cut ? ` (${r.cut})` : ''),
        ...(options.repeat > 1 ? [r.run] : []),
        r.budget,
        f(r.boundS, 0),
        f(r.spanS),
        f(r.processS),
        f(r.fraction, 2),
        r.pages,
        r.duplicates,
        r.lost,
        r.violations,
        f(r.peakRssMb, 0),
        f(r.cpuS),
        r.storeRssMb === undefined ? '-' : `${f(r.storeRssMb, 0)} / ${f(r.storeCpuS)}`,
        f(r.spanS / base.spanS, 2),
        f(r.cpuS / base.cpuS, 2),
        f(r.peakRssMb / base.peakRssMb, 2),
        f(r.load),
        ...(options.kill
          ? [r.killedAtPages ?? '-', f(r.firstAfterKillS), idle(r), r.hostsNotResumed ?? '-']
          : []),
      ].join(' | ')} |`,
    );
  }
  console.log('\nRSS (MB) over time, one value per 5 s:');
  for (const r of rows) {
    const series: number[] = [];
    let next = 0;
    for (const [at, mb] of r.rss) {
      if (at >= next) {
        series.push(Math.round(mb));
        next += 5000;
      }
    }
    console.log(
      `D=${r.hosts} ${r.contender}${options.repeat > 1 ? ` run ${r.run}` : ''}: ${series.join(' ')}`,
    );
  }
  for (const r of rows) {
    if (r.note) console.log(`D=${r.hosts} ${r.contender} run ${r.run}: ${r.note}`);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Median, then (min–max) when the runs differ at the printed precision. */
function spread(values: (number | undefined)[], digits = 1): string {
  const known = values.filter((v): v is number => v !== undefined);
  if (known.length === 0) return '-';
  const lo = f(Math.min(...known), digits);
  const hi = f(Math.max(...known), digits);
  const mid = f(median(known), digits);
  return lo === hi ? mid : `${mid} (${lo}–${hi})`;
}

/** One line per (D, contender): the median of its runs and the range. */
function printSummary(rows: Row[], options: CompareOptions): void {
  const header = [
    'D',
    'contender',
    'runs',
    'budget',
    'bound s',
    'span s',
    'process s',
    'fraction',
    'pages',
    'dup',
    'lost',
    'viol',
    'peak RSS MB',
    'CPU s',
    'redis RSS MB',
    'redis CPU s',
    'span ×',
    'CPU ×',
    'RSS ×',
    'load',
    ...(options.kill ? killHeader : []),
  ];
  console.log(`\nMedian (min–max) of ${options.repeat} runs; × = ratio of medians to shardline-1:`);
  console.log(`| ${header.join(' | ')} |`);
  console.log(`| ${header.map(() => '---').join(' | ')} |`);
  const groups = new Map<string, Row[]>();
  for (const r of rows) {
    const key = `${r.hosts} ${r.contender}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  for (const group of groups.values()) {
    const r = group[0] as Row;
    const base = groups.get(`${r.hosts} shardline-1`) ?? group;
    const ratio = (pick: (x: Row) => number): string =>
      f(median(group.map(pick)) / median(base.map(pick)), 2);
    // Runs cut short, by reason: "stalled: runs 1, 2".
    const cut = (['timed out', 'stalled'] as const)
      .map((why) => [why, group.filter((x) => x.cut === why).map((x) => x.run)] as const)
      .filter(([, runs]) => runs.length > 0)
      .map(([why, runs]) => `${why}: run${runs.length > 1 ? 's' : ''} ${runs.join(', ')}`);
    const col = (pick: (x: Row) => number | undefined, digits = 1): string =>
      spread(group.map(pick), digits);
    console.log(
      `| ${[
        r.hosts,
        r.contender + (cut.length > 0 ? ` (${cut.join('; ')})` : ''),
        group.length,
        r.budget,
        f(r.boundS, 0),
        col((x) => x.spanS),
        col((x) => x.processS),
        col((x) => x.fraction, 2),
        col((x) => x.pages, 0),
        col((x) => x.duplicates, 0),
        col((x) => x.lost, 0),
        col((x) => x.violations, 0),
        col((x) => x.peakRssMb, 0),
        col((x) => x.cpuS),
        col((x) => x.storeRssMb, 0),
        col((x) => x.storeCpuS),
        ratio((x) => x.spanS),
        ratio((x) => x.cpuS),
        ratio((x) => x.peakRssMb),
        col((x) => x.load),
        ...(options.kill
          ? [
              col((x) => x.killedAtPages, 0),
              col((x) => x.firstAfterKillS),
              // A lower bound (a host never resumed) has no meaningful median: list the runs.
              group.some((x) => x.hostsNotResumed)
                ? group.map(idle).join(', ')
                : col((x) => x.maxHostIdleS),
              col((x) => x.hostsNotResumed, 0),
            ]
          : []),
      ].join(' | ')} |`,
    );
  }
}

export function printReport(rows: Row[], options: CompareOptions): void {
  console.log(
    `\nd = ${options.delayMs} ms, ${options.pages} pages per host, robots obeyed, one request at a time per host; ${cpus().length} × ${cpus()[0]?.model}; node ${process.version}`,
  );
  printRuns(rows, options);
  if (options.repeat > 1) printSummary(rows, options);
}
