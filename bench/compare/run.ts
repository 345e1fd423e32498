/**
 * One row of the comparison: a fresh test web (same seed ⇒ same sites, and a log of its own),
 * one contender against it with its process tree sampled, watched until it ends, times out or
 * stalls (killed and restarted halfway under `--kill`). Everything the run put on disk is gone
 * once it returns, so no row inherits another's state.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type ContenderName, exited, root, startContender, type WebInfo } from './contenders.js';
import type { CompareOptions } from './options.js';
import { ProcSampler } from './proc-sampler.js';
import { analyseLog, logSize, pagesInLog, readRequestLog } from './request-log.js';

export interface Row {
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
  options: CompareOptions,
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
      options.pages,
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
    info: {
      port: ready.port,
      seedsFile,
      seeds,
      hosts: hostCount,
      delayMs: options.delayMs,
      budget: truth.size,
    },
  };
}

export async function runContender(
  hosts: number,
  contender: ContenderName,
  runNo: number,
  options: CompareOptions,
): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), `sl-compare-${contender}-`));
  const logFile = join(dir, 'requests.jsonl');
  const web = await startWeb(hosts, logFile, dir, options);
  const sampler = new ProcSampler(250);
  const startedAt = Date.now();
  const running = await startContender(contender, web.info);
  for (const pid of running.crawlerPids()) sampler.add('crawler', pid);
  sampler.add('store', running.storePid);
  let killAt: number | undefined;
  let killedAtPages: number | undefined;
  let cut: Row['cut'];
  const done = running.done().then(() => 'done' as const);
  const deadline = Date.now() + options.timeoutMs;
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
    } else if (size > 0 && Date.now() - lastGrowth > options.stallMs) {
      cut = 'stalled';
      break;
    }
    if (options.kill && killAt === undefined) {
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

  const log = readRequestLog(logFile);
  // Everything the figures need is read: the run's log, seeds and the contender's storage go.
  for (const d of [dir, ...running.dirs]) rmSync(d, { recursive: true, force: true });
  const figures = analyseLog(log, {
    truth: web.truth,
    port: web.info.port,
    delayMs: options.delayMs,
    ...(killAt !== undefined && { kill: { at: killAt, endedAt } }),
  });
  const lost = figures.lostUrls.length;
  if (lost > 0)
    console.error(
      `${contender}: ${lost} pages never fetched, e.g. ${figures.lostUrls.slice(0, 3).join(' ')}`,
    );
  const { firstAfterKillS, maxHostIdleS, hostsNotResumed } = figures;
  const crawler = sampler.figures('crawler');
  const store = running.storePid === undefined ? undefined : sampler.figures('store');
  return {
    hosts: web.info.hosts,
    contender,
    run: runNo,
    budget: web.info.budget,
    boundS: figures.boundS,
    spanS: figures.spanS,
    processS,
    pages: figures.pages,
    unique: figures.unique,
    duplicates: figures.duplicates,
    lost,
    violations: figures.violations,
    ...(cut === undefined && { fraction: figures.boundS / figures.spanS }),
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
