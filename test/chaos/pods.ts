/**
 * Crawler pods as real child processes (`shardline crawl`), each identified at the test web
 * by its User-Agent contact URL, so the server log tells which pod sent a request.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SOURCE_NODE_FLAGS } from '../helpers/source-runtime.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'services/cli/bin/shardline.js');

/** Flags shared by every pod of one fleet. */
export interface PodFleetOptions {
  redisUrl: string;
  minDelayMs: number;
  sessionTimeoutMs: number;
  concurrency: number;
  /** Seed file given to the first pod started (`--seeds-file`). */
  seedsFile?: string;
  /** DNS overrides to the test web (`--resolve`, its port form: see the test web). */
  resolve: string[];
  /** Extra environment (e.g. `LEASE_TIMEOUT_MS`). */
  env?: Record<string, string>;
}

/** One incarnation of a pod process. */
export interface PodRun {
  id: string;
  incarnation: number;
  child: ChildProcess;
  startedAtMs: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdoutFile: string;
  stderrFile: string;
}

/** The contact URL that marks pod `id`'s requests in the server log. */
export function contactUrlOf(id: string): string {
  return `http://${id}.pods.invalid/`;
}

/** The pod id in a logged User-Agent, or `undefined`. */
export function podOfUserAgent(userAgent: string): string | undefined {
  return /\(\+http:\/\/([^/]+)\.pods\.invalid\/\)/.exec(userAgent)?.[1];
}

/** Starts, signals and reaps pod processes; `killAll()` is safe to call at any time. */
export class PodFleet {
  readonly dir = mkdtempSync(join(tmpdir(), 'shardline-chaos-'));
  readonly runs: PodRun[] = [];
  #options: PodFleetOptions;
  #seeded = false;
  #streams: WriteStream[] = [];

  constructor(options: PodFleetOptions) {
    this.#options = options;
  }

  /**
   * Spawns `shardline crawl` as pod `id` (a new incarnation if the id ran before). The session
   * timeout is per pod (it travels with its heartbeats), so one incarnation may have its own.
   */
  start(id: string, overrides: { sessionTimeoutMs?: number } = {}): PodRun {
    const o = { ...this.#options, ...overrides };
    const incarnation = this.runs.filter((r) => r.id === id).length + 1;
    const args = [
      ...SOURCE_NODE_FLAGS,
      BIN,
      'crawl',
      '--redis-url',
      o.redisUrl,
      '--pod-id',
      id,
      '--resolve',
      o.resolve.join(','),
      '--min-delay-ms',
      String(o.minDelayMs),
      '--session-timeout-ms',
      String(o.sessionTimeoutMs),
      '--concurrency',
      String(o.concurrency),
      '--per-host-concurrency',
      '1',
      '--contact-url',
      contactUrlOf(id),
      '--log-level',
      'info',
    ];
    if (o.seedsFile && !this.#seeded) {
      args.push('--seeds-file', o.seedsFile);
      this.#seeded = true;
    }
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, ...o.env, POD_ID: id, NODE_NO_WARNINGS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdoutFile = join(this.dir, `${id}.${incarnation}.out`);
    const stderrFile = join(this.dir, `${id}.${incarnation}.err`);
    const out = createWriteStream(stdoutFile);
    const err = createWriteStream(stderrFile);
    this.#streams.push(out, err);
    child.stdout?.pipe(out);
    child.stderr?.pipe(err);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
      child.once('exit', (code, signal) => done({ code, signal }));
    });
    const run = { id, incarnation, child, startedAtMs: Date.now(), exited, stdoutFile, stderrFile };
    this.runs.push(run);
    return run;
  }

  /** The live incarnation of `id`. */
  current(id: string): PodRun {
    const run = this.runs.findLast((r) => r.id === id);
    if (!run || run.child.exitCode !== null || run.child.signalCode !== null) {
      throw new Error(`pod ${id} is not running`);
    }
    return run;
  }

  /** Ids of pods whose process is running. */
  liveIds(): string[] {
    return this.runs
      .filter((r) => r.child.exitCode === null && r.child.signalCode === null)
      .map((r) => r.id);
  }

  /** Sends `signal` to pod `id` and waits for its exit (up to `timeoutMs`). */
  async signal(id: string, signal: NodeJS.Signals, timeoutMs = 30_000): Promise<PodRun> {
    const run = this.current(id);
    run.child.kill(signal);
    const timer = new Promise<never>((_, reject) =>
      setTimeout(
        () => reject(new Error(`pod ${id} did not exit ${timeoutMs} ms after ${signal}`)),
        timeoutMs,
      ).unref(),
    );
    await Promise.race([run.exited, timer]);
    return run;
  }

  /** The final `pod.stats()` line a gracefully stopped pod printed on stdout, if any. */
  exitStats(run: PodRun): Record<string, unknown> | undefined {
    const lines = readFileSync(run.stdoutFile, 'utf8').trim().split('\n');
    for (const line of lines.reverse()) {
      if (!line.startsWith('{')) continue;
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        // a line cut short by a kill
      }
    }
    return undefined;
  }

  /** The last `lines` lines of a run's stderr (pino log), for failure messages. */
  tail(run: PodRun, lines = 20): string {
    return readFileSync(run.stderrFile, 'utf8').trim().split('\n').slice(-lines).join('\n');
  }

  /** SIGKILLs every process still running and closes the log files. */
  async killAll(): Promise<void> {
    const live = this.runs.filter((r) => r.child.exitCode === null && r.child.signalCode === null);
    for (const run of live) run.child.kill('SIGKILL');
    await Promise.all(live.map((r) => r.exited));
    for (const stream of this.#streams) stream.end();
  }
}
