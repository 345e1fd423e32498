/**
 * shardline against Crawlee and wget on the same site set (issue 8). For every D in `--hosts`
 * and every contender: a fresh test web (same seed ⇒ same sites) logging every request to
 * JSONL, the contender in its own process(es), its process tree sampled from /proc; then the
 * log is analysed (fetch counts, politeness violations, lost pages) against the ground truth.
 *
 *   node --import tsx bench/compare/compare.ts [--hosts 50,500] [--delay-ms 1000] [--pages 20]
 *     [--contenders shardline-1,shardline-3,crawlee,wget] [--kill]
 *
 * `--kill`: kill -9 one crawler process once half the budget is fetched and restart it at once
 * (same pod id / same Crawlee storage / `wget --no-clobber`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
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
  .parse()
  .opts<{
    hosts: string;
    delayMs: string;
    pages: string;
    contenders: string;
    kill?: boolean;
    timeoutS: string;
  }>();
const delayMs = Number(opts.delayMs);
const contenders = opts.contenders.split(',') as ContenderName[];

interface Row {
  hosts: number;
  contender: ContenderName;
  budget: number;
  boundS: number;
  spanS: number;
  processS: number;
  pages: number;
  unique: number;
  duplicates: number;
  lost: number;
  violations: number;
  fraction: number;
  peakRssMb: number;
  cpuS: number;
  storeRssMb?: number;
  storeCpuS?: number;
  rss: [number, number][];
  killedAtPages?: number;
  firstAfterKillS?: number;
  maxHostIdleS?: number;
  timedOut: boolean;
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

async function run(hosts: number, contender: ContenderName): Promise<Row> {
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
  let timedOut = false;
  const done = running.done().then(() => 'done' as const);
  const deadline = Date.now() + Number(opts.timeoutS) * 1000;
  for (;;) {
    const tick = await Promise.race([done, new Promise((r) => setTimeout(r, 250, 'tick'))]);
    if (tick === 'done') break;
    if (Date.now() > deadline) {
      timedOut = true;
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
  const processS = (Date.now() - startedAt) / 1000;
  sampler.stop();
  await running.cleanup();
  web.child.kill('SIGTERM');
  await exited(web.child);

  const log = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RequestLogEntry);
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
  if (killAt !== undefined) {
    const after = pageLog.filter((e) => e.startMs > killAt);
    firstAfterKillS =
      after.length > 0 ? (Math.min(...after.map((e) => e.startMs)) - killAt) / 1000 : undefined;
    // Per host still being crawled after the kill: how long until its next request.
    const firstByHost = new Map<string, number>();
    for (const e of after) {
      firstByHost.set(e.host, Math.min(firstByHost.get(e.host) ?? Infinity, e.startMs));
    }
    if (firstByHost.size > 0) {
      maxHostIdleS = Math.max(...[...firstByHost.values()].map((t) => (t - killAt) / 1000));
    }
  }
  const crawler = sampler.figures('crawler');
  const store = running.storePid === undefined ? undefined : sampler.figures('store');
  return {
    hosts: web.info.hosts,
    contender,
    budget: web.info.budget,
    boundS,
    spanS,
    processS,
    pages,
    unique: counts.size,
    duplicates,
    lost,
    violations,
    fraction: boundS / spanS,
    peakRssMb: crawler.peakRssMb,
    cpuS: crawler.cpuSeconds,
    ...(store && { storeRssMb: store.peakRssMb, storeCpuS: store.cpuSeconds }),
    rss: crawler.rss,
    ...(killedAtPages !== undefined && { killedAtPages }),
    ...(firstAfterKillS !== undefined && { firstAfterKillS }),
    ...(maxHostIdleS !== undefined && { maxHostIdleS }),
    timedOut,
  };
}

const f = (n: number | undefined, digits = 1): string =>
  n === undefined ? '-' : n.toFixed(digits);

function print(rows: Row[]): void {
  const header = [
    'D',
    'contender',
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
    ...(opts.kill ? ['killed at', 'first after kill s', 'max host idle s'] : []),
  ];
  console.log(`| ${header.join(' | ')} |`);
  console.log(`| ${header.map(() => '---').join(' | ')} |`);
  for (const r of rows) {
    const base = rows.find((b) => b.hosts === r.hosts && b.contender === 'shardline-1') ?? r;
    console.log(
      `| ${[
        r.hosts,
        r.contender + (r.timedOut ? ' (timed out)' : ''),
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
        ...(opts.kill ? [r.killedAtPages ?? '-', f(r.firstAfterKillS), f(r.maxHostIdleS)] : []),
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
    console.log(`D=${r.hosts} ${r.contender}: ${series.join(' ')}`);
  }
}

const rows: Row[] = [];
for (const hosts of opts.hosts.split(',').map(Number)) {
  for (const contender of contenders) {
    console.error(`running D=${hosts} ${contender}${opts.kill ? ' (kill -9 halfway)' : ''} …`);
    const row = await run(hosts, contender);
    rows.push(row);
    // Each row as soon as it is measured, so a long run that is cut short keeps its figures.
    console.error(JSON.stringify({ ...row, rss: undefined }));
  }
}
console.log(
  `\nd = ${delayMs} ms, ${opts.pages} pages per host, robots obeyed, one request at a time per host; ${cpus().length} × ${cpus()[0]?.model}; node ${process.version}`,
);
print(rows);
