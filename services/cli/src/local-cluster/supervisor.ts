/**
 * The local cluster's supervisor: keeps `local-0 … local-<N-1>` running as child
 * `shardline crawl` processes, restarts a crashed pod under the same id (exponential
 * backoff; a crash-looping pod is reported and left down), and scales by starting the next
 * ids or stopping the highest ones gracefully. Scale and down requests run one at a time.
 */
import type { Writable } from 'node:stream';
import { ExitCode } from '../errors.js';
import { type PodState, type PodStatus, podId } from './control-file.js';
import { describeExit, type PodExit, PodProcess, type PodStopReport } from './pod-process.js';

/** Options of {@link Supervisor}. */
export interface SupervisorOptions {
  /** The crawl command without its pod id: `[process.execPath, bin, 'crawl', ...flags]`. */
  command: readonly string[];
  /** Environment of every pod; `POD_ID` is added per pod. */
  env: NodeJS.ProcessEnv;
  /** Arguments added to `command` for the pod of slot `index` (e.g. its own port). @default none */
  podArgs?: (index: number) => string[];
  /** Where the pods' prefixed output and the supervisor's own lines go. */
  stdout: Writable;
  stderr: Writable;
  /** SIGTERM → SIGKILL grace period of a stopping pod. @default 35000 */
  graceMs?: number;
  /** First restart delay after a crash; doubles per crash in a row. @default 500 */
  restartDelayMs?: number;
  /** Cap of the restart delay. @default 30000 */
  maxRestartDelayMs?: number;
  /** Crashes in a row (each sooner than `stableAfterMs` after start) before giving up. @default 5 */
  crashLoopLimit?: number;
  /** A pod that ran this long before crashing starts a fresh crash count. @default 10000 */
  stableAfterMs?: number;
  /** Called after every change of a pod's state or pid (the control file is rewritten). */
  onChange?: () => void;
}

/** One pod stopped by `scale` or `down`. */
export interface StoppedPod extends PodStopReport {
  id: string;
  /** False when the pod was not running (failed, exited, waiting to restart). */
  wasRunning: boolean;
}

/** What a `scale` did. */
export interface ScaleReport {
  started: string[];
  stopped: StoppedPod[];
}

/** Log prefixes are padded to this width (`supervisor`, `local-0`…) so they line up. */
const PREFIX_WIDTH = 'supervisor'.length;

interface Slot {
  readonly id: string;
  readonly index: number;
  state: PodState;
  process?: PodProcess;
  restarts: number;
  /** Crashes in a row, each within `stableAfterMs` of its start. */
  crashes: number;
  lastExit?: string;
  lastError?: string;
  /** The pending restart after a crash. */
  timer?: NodeJS.Timeout;
}

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 0) {
    throw new TypeError(`${name} must be a non-negative integer, got ${String(v)} (${typeof v})`);
  }
  return v;
}

/** Supervises the local cluster's pod processes. */
export class Supervisor {
  readonly graceMs: number;
  readonly #options: SupervisorOptions;
  readonly #restartDelayMs: number;
  readonly #maxRestartDelayMs: number;
  readonly #crashLoopLimit: number;
  readonly #stableAfterMs: number;
  /** Slot index → slot; indices are always 0 … size-1. */
  readonly #slots = new Map<number, Slot>();
  /** Tail of the queue that serializes scale/down. */
  #queue: Promise<unknown> = Promise.resolve();
  #down = false;

  constructor(options: SupervisorOptions) {
    if (!Array.isArray(options.command) || options.command.length === 0) {
      throw new TypeError('command must be a non-empty array of strings');
    }
    this.#options = options;
    this.graceMs = positiveInt('graceMs', options.graceMs, 35_000);
    this.#restartDelayMs = positiveInt('restartDelayMs', options.restartDelayMs, 500);
    this.#maxRestartDelayMs = positiveInt('maxRestartDelayMs', options.maxRestartDelayMs, 30_000);
    this.#crashLoopLimit = positiveInt('crashLoopLimit', options.crashLoopLimit, 5);
    this.#stableAfterMs = positiveInt('stableAfterMs', options.stableAfterMs, 10_000);
  }

  /** Number of pod slots (running or not). */
  get size(): number {
    return this.#slots.size;
  }

  /** Every pod, by index. */
  status(): PodStatus[] {
    return [...this.#slots.values()]
      .sort((a, b) => a.index - b.index)
      .map((slot) => ({
        id: slot.id,
        index: slot.index,
        pid: slot.process?.running ? slot.process.pid : undefined,
        state: slot.state,
        startedAtMs: slot.process?.running ? slot.process.startedAtMs : undefined,
        restarts: slot.restarts,
        lastExit: slot.lastExit,
        ...(slot.lastError === undefined ? {} : { lastError: slot.lastError }),
      }));
  }

  /**
   * Sets the pod count: starts `local-<size>…` (and starts again failed or exited pods below
   * `count`), or stops the highest-numbered pods gracefully and waits for them to exit.
   */
  scale(count: number): Promise<ScaleReport> {
    if (!Number.isInteger(count) || count < 0) {
      return Promise.reject(
        new TypeError(`count must be a non-negative integer, got ${String(count)}`),
      );
    }
    return this.#serial(async () => {
      if (this.#down) throw new Error('the cluster is shutting down');
      const started: string[] = [];
      for (let index = 0; index < count; index++) {
        let slot = this.#slots.get(index);
        if (!slot) {
          slot = { id: podId(index), index, state: 'starting', restarts: 0, crashes: 0 };
          this.#slots.set(index, slot);
        } else if (slot.state !== 'failed' && slot.state !== 'exited') {
          continue;
        }
        slot.crashes = 0;
        this.#launch(slot);
        started.push(slot.id);
      }
      const doomed = [...this.#slots.values()].filter((slot) => slot.index >= count);
      const stopped = await this.#stopSlots(doomed);
      return { started, stopped };
    });
  }

  /** Stops every pod gracefully; no pod is started again afterwards. */
  down(): Promise<StoppedPod[]> {
    return this.#serial(async () => {
      this.#down = true;
      return this.#stopSlots([...this.#slots.values()]);
    });
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    // The caller gets `run`'s failure; the queue only waits for it to end.
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #stopSlots(slots: Slot[]): Promise<StoppedPod[]> {
    const reports = await Promise.all(
      slots.map(async (slot): Promise<StoppedPod> => {
        clearTimeout(slot.timer);
        const child = slot.process;
        slot.state = 'stopping';
        this.#changed();
        if (!child?.running) {
          this.#slots.delete(slot.index);
          return {
            id: slot.id,
            code: null,
            signal: null,
            tookMs: 0,
            killed: false,
            wasRunning: false,
          };
        }
        const report = await child.stop(this.graceMs);
        this.#slots.delete(slot.index);
        this.#log(
          `${slot.id} stopped in ${report.tookMs} ms (${describeExit(report)})` +
            (report.killed ? `: grace period of ${this.graceMs} ms ran out, sent SIGKILL` : ''),
        );
        return { id: slot.id, ...report, wasRunning: true };
      }),
    );
    this.#changed();
    return reports.sort((a, b) => a.id.localeCompare(b.id, 'en', { numeric: true }));
  }

  #launch(slot: Slot): void {
    const child = PodProcess.spawn({
      id: slot.id,
      command: [...this.#options.command, ...(this.#options.podArgs?.(slot.index) ?? [])],
      env: { ...this.#options.env, POD_ID: slot.id },
      stdout: this.#options.stdout,
      stderr: this.#options.stderr,
      prefixWidth: PREFIX_WIDTH,
    });
    slot.process = child;
    // `running` once the pod says it has joined the registry (ready-signal.ts).
    slot.state = 'starting';
    void child.joined.then(() => {
      if (slot.process === child && slot.state === 'starting' && child.running) {
        slot.state = 'running';
        this.#changed();
      }
    });
    this.#changed();
    void child.exited.then((exit) => this.#exited(slot, child, exit));
  }

  #exited(slot: Slot, child: PodProcess, exit: PodExit): void {
    // A stop we asked for, or a process already replaced: nothing to do.
    if (slot.process !== child || slot.state === 'stopping' || this.#down) return;
    clearTimeout(slot.timer);
    slot.lastExit = describeExit(exit);
    slot.lastError = child.lastError;
    if (exit.code === 0) {
      // Finished on its own (e.g. --exit-when-idle): not a crash.
      slot.state = 'exited';
      this.#log(`${slot.id} exited with code 0; not restarting`);
      this.#changed();
      return;
    }
    const ranMs = Date.now() - child.startedAtMs;
    if (exit.code === ExitCode.USAGE) {
      // A bad setting (flag, variable, config file, handler) fails every restart the same way.
      slot.state = 'failed';
      this.#log(
        `${slot.id} refused its settings (${slot.lastExit}, a usage error${slot.lastError ? `: ${slot.lastError}` : ''}); not restarting it`,
      );
      this.#changed();
      return;
    }
    slot.crashes = ranMs >= this.#stableAfterMs ? 1 : slot.crashes + 1;
    if (slot.crashes > this.#crashLoopLimit) {
      slot.state = 'failed';
      this.#log(
        `${slot.id} is crash-looping (${slot.crashes} exits in a row, last ${slot.lastExit} ` +
          `after ${ranMs} ms); not restarting it — see its log lines above`,
      );
      this.#changed();
      return;
    }
    const delayMs = Math.min(
      this.#maxRestartDelayMs,
      this.#restartDelayMs * 2 ** (slot.crashes - 1),
    );
    slot.state = 'restarting';
    this.#log(
      `${slot.id} crashed (${slot.lastExit} after ${ranMs} ms); restarting in ${delayMs} ms`,
    );
    slot.timer = setTimeout(() => {
      if (slot.state !== 'restarting' || this.#down) return;
      slot.restarts++;
      this.#launch(slot);
    }, delayMs);
    this.#changed();
  }

  #log(message: string): void {
    const { stderr } = this.#options;
    if (!stderr.destroyed) stderr.write(`${'supervisor'.padEnd(PREFIX_WIDTH)} | ${message}\n`);
  }

  #changed(): void {
    this.#options.onChange?.();
  }
}
