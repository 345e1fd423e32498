/**
 * shardline against Crawlee and wget on the same site set (issue 8). For every D in `--hosts`
 * and every contender: a fresh test web (same seed ⇒ same sites) logging every request to
 * JSONL, the contender in its own process(es), its process tree sampled from /proc; then the
 * log is analysed (fetch counts, politeness violations, lost pages) against the ground truth.
 *
 *   node --import tsx bench/compare/compare.ts [--hosts 50,500] [--delay-ms 1000] [--pages 20]
 *     [--contenders shardline-1,shardline-3,crawlee,wget] [--kill] [--repeat 3]
 *     [--timeout-s 600] [--stall-s 120]
 *
 * `--kill`: kill -9 one crawler process once half the budget is fetched and restart it at once
 * (same pod id / same Crawlee storage / `wget --no-clobber`). `--repeat N`: N runs of every
 * row, then a table of medians with the min–max range of each figure.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Command } from 'commander';
import {
  countFetches,
  politenessViolations,
  type RequestLogEntry,
} from '../../test/web/analysis.js';
import { isRobotsPath } from '../../test/web/ground-truth.js';
import { type ContenderName, exited, root, startContender, type WebInfo } from './contenders.js';
import { ProcSampler } from './proc-sampler.js';

const opts = new Command()
  .option('--hosts <list>', 'site set sizes D, comma-separated', '50')
  .option('--delay-ms <ms>', 'per-host delay d', '1000')
  .option('--pages <n>', 'pages per host', '20')
  .option('--contenders <list>', 'contenders', 'shardline-1,shardline-3,crawlee')
  .option('--kill', 'kill -9 one crawler process halfway and restart it')
  .option('--timeout-s <s>', 'give up on one run after this', '600')
  .option(
    '--stall-s <s>',
    'give up on one run once the test web has seen no request this long',
    '120',
  )
  .option('--repeat <n>', 'runs of every row; above 1 also prints medians and ranges', '1')
  .parse()
  .opts<{
    hosts: string;
    delayMs: string;
    pages: string;
    contenders: string;
    kill?: boolean;
    timeoutS: string;
    stallS: string;
    repeat: string;
  }>();
const delayMs = Number(opts.delayMs);
const repeat = Number(opts.repeat);
if (!Number.isInteger(repeat) || repeat < 1)
  throw new Error(`--repeat must be ≥ 1, got ${opts.repeat}`);
const contenders = opts.contenders.split(',') as ContenderName[];

interface Row {
  hosts: number;
  contender: ContenderName;
  /** 1-based run number of this row under `--repeat`. */
  run: number;
  budget: number;
  boundS: number;
  spanS: number;
  processS: number;
  pages: number;
  unique: number;
  duplicates: number;
  lost: number;
  violations: number;
  /** bound / span; none for a run cut short (its span does not cover the crawl). */
  fraction?: number;
  peakRssMb: number;
  cpuS: number;
  storeRssMb?: number;
  storeCpuS?: number;
  rss: [number, number][];
  killedAtPages?: number;
  firstAfterKillS?: number;
  maxHostIdleS?: number;
  /**
   * Hosts that still had pages to fetch at the kill and saw no request after it before the
   * run ended; their idle time is counted up to the end of the run, so `maxHostIdleS` is then
   * a lower bound (printed as `≥`).
   */
  hostsNotResumed?: number;
  /** Why the run was cut short, if it was. */
  cut?: 'timed out' | 'stalled';
  /** What the contender's own state held at the end (Crawlee's persisted queue). */
  note?: string;
  /** Highest 1-minute load average of the machine during the run (other helpers share it). */
  load: number;
}

async function startWeb(
  hosts: number,
  logFile: string,
  dir: string,
): Promise<{ child: ChildProcess; info: WebInfo; truth: Set<string> }> {
  const seedsFile = join(dir, 'seeds.txt');
  const truthFile = join(dir, 'truth.json');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'test/web/main.ts',
      '--hosts',
      String(hosts),
      '--pages',
      opts.pages,
      '--behaviours',
      'none',
      '--log',
      logFile,
      '--seeds-file',
      seedsFile,
      '--ground-truth',
      truthFile,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const ready = await new Promise<{ port: number }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`test web exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
  });
  const truth = new Set(
    (JSON.parse(readFileSync(truthFile, 'utf8')) as { reachableAllowed: string[] })
      .reachableAllowed,
  );
  const seeds = readFileSync(seedsFile, 'utf8').split('\n').filter(Boolean);
  const hostCount = new Set([...truth].map((u) => new URL(u).hostname)).size;
  return {
    child,
    truth,
    info: { port: ready.port, seedsFile, seeds, hosts: hostCount, delayMs, budget: truth.size },
  };
}

/** Size of the growing log file, 0 before it exists. */
function logSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** Page fetches (robots excluded) so far, counted from the growing log file. */
function pagesInLog(file: string): number {
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

async function run(hosts: number, contender: ContenderName, runNo: number): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), `sl-compare-${contender}-`));
  const logFile = join(dir, 'requests.jsonl');
  const web = await startWeb(hosts, logFile, dir);
  const sampler = new ProcSampler(250);
  const startedAt = Date.now();
  const running = await startContender(contender, web.info);
  for (const pid of running.crawlerPids()) sampler.add('crawler', pid);
  sampler.add('store', running.storePid);
  let killAt: number | undefined;
  let killedAtPages: number | undefined;
  let cut: Row['cut'];
  const done = running.done().then(() => 'done' as const);
  const deadline = Date.now() + Number(opts.timeoutS) * 1000;
  const stallMs = Number(opts.stallS) * 1000;
  // A crawler that sits idle with work left (Crawlee after a restart) would otherwise run
  // until the timeout: the log not growing for `--stall-s` ends the run. Counted from the
  // first request, so a slow start-up is not a stall.
  let lastSize = 0;
  let lastGrowth = Date.now();
  let load = loadavg()[0] as number;
  for (;;) {
    const tick = await Promise.race([done, new Promise((r) => setTimeout(r, 250, 'tick'))]);
    load = Math.max(load, loadavg()[0] as number);
    if (tick === 'done') break;
    if (Date.now() > deadline) {
      cut = 'timed out';
      break;
    }
    const size = logSize(logFile);
    if (size !== lastSize) {
      lastSize = size;
      lastGrowth = Date.now();
    } else if (size > 0 && Date.now() - lastGrowth > stallMs) {
      cut = 'stalled';
      break;
    }
    if (opts.kill && killAt === undefined) {
      const pages = pagesInLog(logFile);
      if (pages >= web.info.budget / 2) {
        killedAtPages = pages;
        killAt = performance.timeOrigin + performance.now();
        running.kill();
        running.restart();
        for (const pid of running.crawlerPids()) sampler.add('crawler', pid);
      }
    }
  }
  const endedAt = performance.timeOrigin + performance.now();
  const processS = (Date.now() - startedAt) / 1000;
  sampler.stop();
  await running.cleanup();
  const note = running.inspect?.();
  web.child.kill('SIGTERM');
  await exited(web.child);

  const log = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RequestLogEntry);
  // Everything the figures need is read: the run's log, seeds and the contender's storage go.
  for (const d of [dir, ...running.dirs]) rmSync(d, { recursive: true, force: true });
  const counts = countFetches(log, web.info.port);
  let pages = 0;
  let duplicates = 0;
  for (const n of counts.values()) {
    pages += n;
    duplicates += n - 1;
  }
  const lostUrls = [...web.truth].filter((url) => !counts.has(url));
  const lost = lostUrls.length;
  if (lost > 0)
    console.error(
      `${contender}: ${lost} pages never fetched, e.g. ${lostUrls.slice(0, 3).join(' ')}`,
    );
  const violations = politenessViolations(log, { minGapMs: delayMs, maxConcurrency: 1 }).length;
  const pageLog = log.filter((e) => !isRobotsPath(e.path.split('?')[0] as string));
  const first = Math.min(...log.map((e) => e.startMs));
  const last = Math.max(...log.map((e) => e.endMs));
  const spanS = (last - first) / 1000;
  // The politeness bound: the busiest host needs (its pages − 1) × d after its first page.
  const perHost = new Map<string, number>();
  for (const url of web.truth) {
    const h = new URL(url).hostname;
    perHost.set(h, (perHost.get(h) ?? 0) + 1);
  }
  const boundS = (Math.max(...perHost.values()) - 1) * (delayMs / 1000);
  let firstAfterKillS: number | undefined;
  let maxHostIdleS: number | undefined;
  let hostsNotResumed: number | undefined;
  if (killAt !== undefined) {
    const after = pageLog.filter((e) => e.startMs > killAt);
    firstAfterKillS =
      after.length > 0 ? (Math.min(...after.map((e) => e.startMs)) - killAt) / 1000 : undefined;
    // Per host with work left at the kill (a ground-truth page not yet requested): how long
    // until its next request — or, if none came, until the run ended (a lower bound).
    const fetchedBeforeKill = new Set(
      pageLog
        .filter((e) => e.startMs <= killAt)
        .map((e) => `http://${e.host}:${web.info.port}${e.path}`),
    );
    const pendingHosts = new Set(
      [...web.truth].filter((u) => !fetchedBeforeKill.has(u)).map((u) => new URL(u).hostname),
    );
    const firstByHost = new Map<string, number>();
    for (const e of after) {
      firstByHost.set(e.host, Math.min(firstByHost.get(e.host) ?? Infinity, e.startMs));
    }
    hostsNotResumed = 0;
    const idles: number[] = [];
    for (const host of new Set([...pendingHosts, ...firstByHost.keys()])) {
      const next = firstByHost.get(host);
      if (next === undefined) hostsNotResumed++;
      idles.push(((next ?? endedAt) - killAt) / 1000);
    }
    if (idles.length > 0) maxHostIdleS = Math.max(...idles);
  }
  const crawler = sampler.figures('crawler');
  const store = running.storePid === undefined ? undefined : sampler.figures('store');
  return {
    hosts: web.info.hosts,
    contender,
    run: runNo,
    budget: web.info.budget,
    boundS,
    spanS,
    processS,
    pages,
    unique: counts.size,
    duplicates,
    lost,
    violations,
    ...(cut === undefined && { fraction: boundS / spanS }),
    peakRssMb: crawler.peakRssMb,
    cpuS: crawler.cpuSeconds,
    ...(store && { storeRssMb: store.peakRssMb, storeCpuS: store.cpuSeconds }),
    rss: crawler.rss,
    ...(killedAtPages !== undefined && { killedAtPages }),
    ...(firstAfterKillS !== undefined && { firstAfterKillS }),
    ...(maxHostIdleS !== undefined && { maxHostIdleS }),
    ...(hostsNotResumed !== undefined && { hostsNotResumed }),
    ...(cut !== undefined && { cut }),
    ...(note !== undefined && { note }),
    load,
  };
}

const f = (n: number | undefined, digits = 1): string =>
  n === undefined ? '-' : n.toFixed(digits);

const idle = (r: Row): string =>
  r.maxHostIdleS === undefined ? '-' : `${r.hostsNotResumed ? '≥' : ''}${f(r.maxHostIdleS)}`;

const killHeader = ['killed at', 'first after kill s', 'max host idle s', 'hosts not resumed'];

function printRuns(rows: Row[]): void {
  const header = [
    'D',
    'contender',
    ...(repeat > 1 ? ['run'] : []),
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
    ...(opts.kill ? killHeader : []),
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
        ...(repeat > 1 ? [r.run] : []),
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
        ...(opts.kill
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
      `D=${r.hosts} ${r.contender}${repeat > 1 ? ` run ${r.run}` : ''}: ${series.join(' ')}`,
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
function printSummary(rows: Row[]): void {
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
    ...(opts.kill ? killHeader : []),
  ];
  console.log(`\nMedian (min–max) of ${repeat} runs; × = ratio of medians to shardline-1:`);
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
        ...(opts.kill
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

const rows: Row[] = [];
for (const hosts of opts.hosts.split(',').map(Number)) {
  // Runs interleave the contenders, so a change in the machine's load hits all of them.
  for (let runNo = 1; runNo <= repeat; runNo++) {
    for (const contender of contenders) {
      console.error(
        `running D=${hosts} ${contender}${opts.kill ? ' (kill -9 halfway)' : ''}, run ${runNo}/${repeat} …`,
      );
      const row = await run(hosts, contender, runNo);
      rows.push(row);
      // Each row as soon as it is measured, so a long run that is cut short keeps its figures.
      console.error(JSON.stringify({ ...row, rss: undefined }));
    }
  }
}
console.log(
  `\nd = ${delayMs} ms, ${opts.pages} pages per host, robots obeyed, one request at a time per host; ${cpus().length} × ${cpus()[0]?.model}; node ${process.version}`,
);
printRuns(rows);
if (repeat > 1) printSummary(rows);
