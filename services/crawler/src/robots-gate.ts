/**
 * robots.txt requests pass the send gate like pages: the loader's `beforeFetch` takes the
 * host's pass, and `onFetch` reports the request's send time and duration to it. A pass taken
 * before a request is kept (per host, in order) until the loader reports that request.
 */
import type { FetchTimings } from './fetcher.js';
import type { RobotsFetchHop } from './robots-fetch.js';
import type { GatePass, SendGate } from './send-gate.js';

/** The loader hooks that put robots.txt requests through a {@link SendGate}. */
export class RobotsGate {
  readonly #gate: Pick<SendGate, 'acquire'>;
  readonly #signal: AbortSignal;
  // Passes taken for requests the loader has not reported yet, per host, oldest first.
  readonly #passes = new Map<string, GatePass[]>();

  /** `signal`: aborts the waits at the gate (the pod is stopping). */
  constructor(gate: Pick<SendGate, 'acquire'>, signal: AbortSignal) {
    this.#gate = gate;
    this.#signal = signal;
  }

  /** The loader's `beforeFetch`: waits for the host's turn at the gate. */
  readonly beforeFetch = async (origin: string): Promise<void> => {
    const host = new URL(origin).hostname;
    const pass = await this.#gate.acquire(host, this.#signal);
    let list = this.#passes.get(host);
    if (!list) {
      list = [];
      this.#passes.set(host, list);
    }
    list.push(pass);
  };

  /** The loader's `onFetch`: closes the request's pass with its real times. */
  readonly onFetch = (hop: Pick<RobotsFetchHop, 'origin' | 'timings'>): void => {
    const host = new URL(hop.origin).hostname;
    const list = this.#passes.get(host);
    const pass = list?.shift();
    if (list && list.length === 0) this.#passes.delete(host);
    if (pass) close(pass, hop.timings);
  };
}

function close(pass: GatePass, timings: FetchTimings): void {
  if (timings.sentAtMs === undefined) {
    pass.done();
    return;
  }
  // The response head is the last moment the server surely had the request: a server that
  // stamps arrivals late (busy at start-up, when every host's robots.txt is asked at once)
  // still sees the full gap before the first page. One request per host per day.
  pass.sent(timings.headersAtMs ?? timings.endAtMs);
  pass.done(timings.endAtMs - timings.sentAtMs);
}
