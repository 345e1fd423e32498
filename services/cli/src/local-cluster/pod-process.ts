/**
 * One child `shardline crawl` process of the local cluster: spawned with its pod id in
 * `POD_ID`, every output line prefixed with that id, an IPC channel on which it says once it
 * has joined (ready-signal.ts), and stopped the way an orchestrator stops a pod (SIGTERM, a
 * grace period, then SIGKILL).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { READY_IPC_ENV, READY_MESSAGE } from './ready-signal.js';

/** How `shardline crawl` starts its one-line error on stderr before it exits. */
const CLI_ERROR_PREFIX = 'error: ';

/** How a pod process ended. */
export interface PodExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What {@link PodProcess.stop} observed. */
export interface PodStopReport extends PodExit {
  /** From SIGTERM to exit. */
  tookMs: number;
  /** True when the grace period ran out and the pod was sent SIGKILL. */
  killed: boolean;
}

/** Options of {@link PodProcess.spawn}. */
export interface PodProcessOptions {
  id: string;
  /** `node` and its arguments: `[execPath, bin, 'crawl', ...]`. */
  command: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Where prefixed stdout / stderr lines of the pod go. */
  stdout: Writable;
  stderr: Writable;
  /** Width the id is padded to so the prefixes line up. @default id.length */
  prefixWidth?: number;
}

/** Describes an exit the way `status` prints it. */
export function describeExit(exit: PodExit): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
}

/** A running (or finished) pod process. */
export class PodProcess {
  readonly id: string;
  readonly startedAtMs = Date.now();
  /** Resolves once the process has exited and its output is drained. */
  readonly exited: Promise<PodExit>;
  /** Resolves when the pod says it has joined (never, if it exits first). */
  readonly joined: Promise<void>;
  readonly #child: ChildProcess;
  #exit: PodExit | undefined;
  #lastError: string | undefined;

  private constructor(options: PodProcessOptions) {
    this.id = options.id;
    const [file, ...args] = options.command;
    // detached: its own process group, so a Ctrl-C at the supervisor's terminal reaches the
    // supervisor only, which then stops the pods in order instead of all at once.
    this.#child = spawn(file!, args, {
      env: { ...options.env, [READY_IPC_ENV]: '1' },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      detached: true,
    });
    this.joined = new Promise<void>((done) => {
      this.#child.on('message', (message) => {
        if (message === READY_MESSAGE) done();
      });
    });
    const prefix = `${options.id.padEnd(options.prefixWidth ?? options.id.length)} | `;
    const drained = [
      pipeLines(this.#child.stdout!, prefix, options.stdout),
      pipeLines(this.#child.stderr!, prefix, options.stderr, (line) => {
        if (line.startsWith(CLI_ERROR_PREFIX))
          this.#lastError = line.slice(CLI_ERROR_PREFIX.length);
      }),
    ];
    this.exited = new Promise<PodExit>((done) => {
      const finish = (exit: PodExit) => {
        if (this.#exit) return;
        this.#exit = exit;
        void Promise.all(drained).then(() => done(exit));
      };
      this.#child.once('exit', (code, signal) => finish({ code, signal }));
      // A spawn failure (e.g. node missing) counts as a crash with no exit code.
      this.#child.once('error', () => finish({ code: null, signal: null }));
    });
  }

  /** Starts the process. */
  static spawn(options: PodProcessOptions): PodProcess {
    return new PodProcess(options);
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** The last `error: …` line the pod wrote on stderr (the CLI's one-line error), if any. */
  get lastError(): string | undefined {
    return this.#lastError;
  }

  /** True until the process has exited. */
  get running(): boolean {
    return this.#exit === undefined && this.#child.exitCode === null && !this.#child.signalCode;
  }

  /** Sends a signal (ignored once the process is gone). */
  kill(signal: NodeJS.Signals): void {
    if (this.running) this.#child.kill(signal);
  }

  /** SIGTERM, wait up to `graceMs` for the pod's handoff, then SIGKILL. */
  async stop(graceMs: number): Promise<PodStopReport> {
    const from = Date.now();
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      this.kill('SIGKILL');
    }, graceMs);
    this.kill('SIGTERM');
    const exit = await this.exited;
    clearTimeout(timer);
    return { ...exit, tookMs: Date.now() - from, killed };
  }
}

function pipeLines(
  source: Readable,
  prefix: string,
  target: Writable,
  onLine?: (line: string) => void,
): Promise<void> {
  return new Promise((done) => {
    const lines = createInterface({ input: source, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on('line', (line) => {
      onLine?.(line);
      if (!target.destroyed) target.write(`${prefix}${line}\n`);
    });
    lines.once('close', () => done());
  });
}
