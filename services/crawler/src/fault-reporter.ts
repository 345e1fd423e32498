/**
 * Publishes the pod's background-fault counts (`stats().faults`) to the frontier every few
 * seconds, so that the API's `/metrics`, `/v1/pods` and the dashboard show every kind of fault
 * a pod counts — present and future kinds alike — without more work in the API. Written only
 * when a count changed; a failed write is retried at the next tick (Redis may be down: that is
 * itself reported by the pod's own logs and faults).
 */
import type { RedisFrontier } from '@shardline/frontier';
import type { Logger } from 'pino';

/** How long the last write on stop may take. */
const FINAL_REPORT_MS = 2000;

/** `{ a: 1, b: { c: 2 } }` → `{ a: 1, 'b.c': 2 }`. */
export function flattenFaults(faults: object, prefix = ''): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(faults)) {
    const name = prefix === '' ? key : `${prefix}.${key}`;
    if (typeof value === 'number') out[name] = value;
    else if (typeof value === 'object' && value !== null)
      Object.assign(out, flattenFaults(value, name));
  }
  return out;
}

export interface FaultReporterOptions {
  frontier: Pick<RedisFrontier, 'reportFaults'>;
  pod: string;
  faults: () => object;
  intervalMs: number;
  log: Logger;
}

export class FaultReporter {
  readonly #o: FaultReporterOptions;
  #timer: NodeJS.Timeout | undefined;
  #last = '';

  constructor(options: FaultReporterOptions) {
    this.#o = options;
  }

  start(): void {
    if (this.#timer) return;
    void this.report();
    this.#timer = setInterval(() => void this.report(), this.#o.intervalMs);
    this.#timer.unref();
  }

  /** Writes the counts if they changed since the last write; one more write on stop. */
  async report(): Promise<void> {
    const flat = flattenFaults(this.#o.faults());
    const text = JSON.stringify(flat);
    if (text === this.#last) return;
    try {
      await this.#o.frontier.reportFaults(this.#o.pod, flat);
      this.#last = text;
    } catch (error) {
      this.#o.log.debug({ err: error }, 'fault counts not published; retried at the next tick');
    }
  }

  /**
   * One last write, if the reporter ever started: a pod stopped while it waited for Redis has
   * nothing to publish, and a Redis that stopped answering may not hold the stop longer than
   * {@link FINAL_REPORT_MS} (the write stays queued in the client; the signal's grace is the
   * process's, not this write's).
   */
  /** Stops without the last write. */
  cancel(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async stop(): Promise<void> {
    if (!this.#timer) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      this.report(),
      new Promise<void>((done) => {
        timeout = setTimeout(done, FINAL_REPORT_MS);
      }),
    ]);
    clearTimeout(timeout);
  }
}
