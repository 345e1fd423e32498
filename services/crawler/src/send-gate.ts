/**
 * Pod-local politeness guard at the moment requests are SENT. The frontier's claim reserves a
 * start-to-start slot in Redis, but the real send can lag the claim (a queue wait, an event-loop
 * stall, a robots.txt fetch in between). Measured at the server, a lag followed by a prompt send
 * would look like a burst; this gate keeps, per host, the time of the last real send (from the
 * fetcher's `onSent`) and lets the next request go only once `lastSent + delay` has passed and
 * fewer than `concurrency` requests of that host are open. robots.txt fetches pass through it too.
 */
import { check, invalidOption } from './errors.js';

const OWNER = 'SendGateOptions';

/** Options of {@link SendGate}. */
export interface SendGateOptions {
  /** Floor of the start-to-start gap per host (the configured minimum delay). @default 1000 */
  minDelayMs?: number;
  /** Requests open at once per host. @default 1 */
  concurrency?: number;
  /** Adaptive delay = factor × the host's last response time (0 = off). @default 0 */
  adaptiveDelayFactor?: number;
  /** Cap of every per-host delay (crawl-delay and adaptive included). @default 120000 */
  maxDelayMs?: number;
  /** Clock (epoch ms, the fetcher's clock). @default Date.now */
  now?: () => number;
}

interface HostEntry {
  /** Latest known send time (a reservation counts as a send until the real time arrives). */
  lastSentAtMs: number;
  /** Robots crawl-delay (or any other per-host floor) in ms. */
  hostDelayMs: number;
  /** factor × last response time. */
  adaptiveMs: number;
  /** Requests that passed the gate and have not called `done` yet. */
  open: number;
  /** Callers waiting for this host, woken when a request closes or the delay passes. */
  waiters: (() => void)[];
}

/** A passed gate: report the real send time and close it exactly once. */
export interface GatePass {
  /** The request head was written at `atMs` (pass to `Fetcher.fetch`'s `onSent`). */
  sent(atMs: number): void;
  /** The request finished; `responseMs` (send → end) feeds the adaptive delay. */
  done(responseMs?: number): void;
}

/** Per-host send gate; see the file comment. Memory: only hosts still inside their delay. */
export class SendGate {
  readonly #minDelayMs: number;
  readonly #concurrency: number;
  readonly #factor: number;
  readonly #maxDelayMs: number;
  readonly #now: () => number;
  // Entries are dropped once nothing is open or waiting and their delay has passed: such an
  // entry constrains nothing, so RSS follows the hosts active in the last delay window.
  readonly #hosts = new Map<string, HostEntry>();
  #waits = 0;
  #delayedMs = 0;
  #sinceSweep = 0;

  constructor(options: SendGateOptions = {}) {
    this.#minDelayMs = check.int(OWNER, 'minDelayMs', options.minDelayMs, 1000, 0);
    this.#concurrency = check.int(OWNER, 'concurrency', options.concurrency, 1, 1, 1024);
    const factor = options.adaptiveDelayFactor ?? 0;
    if (typeof factor !== 'number' || !Number.isFinite(factor) || factor < 0) {
      throw invalidOption(OWNER, 'adaptiveDelayFactor', factor, 'a finite number ≥ 0');
    }
    this.#factor = factor;
    this.#maxDelayMs = check.int(OWNER, 'maxDelayMs', options.maxDelayMs, 120_000, 0);
    this.#now = check.fn<() => number>(OWNER, 'now', options.now) ?? Date.now;
  }

  /** Sets a host's own delay floor (robots crawl-delay), capped by `maxDelayMs`. */
  setHostDelay(host: string, delayMs: number): void {
    const entry = this.#entry(host);
    entry.hostDelayMs = Math.min(Math.max(0, Math.floor(delayMs)), this.#maxDelayMs);
  }

  /** The start-to-start gap the gate enforces for `host` now. */
  delayOf(host: string): number {
    const entry = this.#hosts.get(host);
    return entry ? this.#delay(entry) : this.#minDelayMs;
  }

  /** Ms until the gap after `host`'s last send has passed (0 when it has; open requests aside). */
  waitMs(host: string): number {
    const entry = this.#hosts.get(host);
    if (!entry) return 0;
    return Math.max(0, entry.lastSentAtMs + this.#delay(entry) - this.#now());
  }

  /**
   * Waits until `host` may be sent to, then reserves the send (the reservation counts as a
   * send at the current time until {@link GatePass.sent} reports the real one). Rejects with
   * the signal's reason when `signal` aborts while waiting.
   */
  async acquire(host: string, signal?: AbortSignal): Promise<GatePass> {
    let waited = false;
    const startedAt = this.#now();
    for (;;) {
      signal?.throwIfAborted();
      const entry = this.#entry(host);
      const now = this.#now();
      const readyAt = entry.lastSentAtMs + this.#delay(entry);
      if (entry.open < this.#concurrency && now >= readyAt) {
        entry.open += 1;
        entry.lastSentAtMs = Math.max(entry.lastSentAtMs, now);
        if (waited) {
          this.#waits += 1;
          this.#delayedMs += now - startedAt;
        }
        return this.#pass(entry);
      }
      waited = true;
      // Full: wait for a close. Otherwise: sleep until the gap has passed (or a close, which
      // re-evaluates; cheap). Both also end on abort.
      await new Promise<void>((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        const wake = () => {
          if (timer) clearTimeout(timer);
          signal?.removeEventListener('abort', wake);
          const i = entry.waiters.indexOf(wake);
          if (i >= 0) entry.waiters.splice(i, 1);
          resolve();
        };
        entry.waiters.push(wake);
        signal?.addEventListener('abort', wake, { once: true });
        if (entry.open < this.#concurrency) timer = setTimeout(wake, Math.max(1, readyAt - now));
      });
    }
  }

  /** Counters: how many acquisitions had to wait, total wait, hosts tracked. */
  stats(): { waits: number; delayedMs: number; hosts: number } {
    return { waits: this.#waits, delayedMs: this.#delayedMs, hosts: this.#hosts.size };
  }

  /** Drops entries that no longer constrain anything (also done every 256 passes). */
  sweep(): void {
    const now = this.#now();
    for (const [host, entry] of this.#hosts) {
      if (
        entry.open === 0 &&
        entry.waiters.length === 0 &&
        now >= entry.lastSentAtMs + this.#delay(entry)
      ) {
        this.#hosts.delete(host);
      }
    }
  }

  #pass(entry: HostEntry): GatePass {
    let closed = false;
    return {
      sent: (atMs) => {
        if (Number.isFinite(atMs)) entry.lastSentAtMs = Math.max(entry.lastSentAtMs, atMs);
      },
      done: (responseMs) => {
        if (closed) return;
        closed = true;
        entry.open -= 1;
        if (this.#factor > 0 && responseMs !== undefined && Number.isFinite(responseMs)) {
          entry.adaptiveMs = Math.min(this.#maxDelayMs, Math.floor(this.#factor * responseMs));
        }
        // Wake every waiter of the host: each re-checks; the first to pass reserves.
        for (const wake of entry.waiters.slice()) wake();
        if (++this.#sinceSweep >= 256) {
          this.#sinceSweep = 0;
          this.sweep();
        }
      },
    };
  }

  #entry(host: string): HostEntry {
    let entry = this.#hosts.get(host);
    if (!entry) {
      entry = { lastSentAtMs: -Infinity, hostDelayMs: 0, adaptiveMs: 0, open: 0, waiters: [] };
      this.#hosts.set(host, entry);
    }
    return entry;
  }

  #delay(entry: HostEntry): number {
    return Math.min(
      this.#maxDelayMs,
      Math.max(this.#minDelayMs, entry.hostDelayMs, entry.adaptiveMs),
    );
  }
}
