/**
 * Stage 3, send gate: waits until the host may be sent to (its delay since the last real send
 * has passed, below its concurrency) and takes the pass the fetch reports its send time to.
 * A stop while waiting releases the lease.
 */
import type { SendGate } from '../send-gate.js';
import type { LeaseContext } from './lease-context.js';
import type { LeaseStage, Settlement } from './stage.js';

/** Takes the host's send pass for the page request. */
export class SendGateStage implements LeaseStage {
  readonly name = 'send-gate';
  readonly #gate: Pick<SendGate, 'acquire'>;

  constructor(gate: Pick<SendGate, 'acquire'>) {
    this.#gate = gate;
  }

  async run(ctx: LeaseContext): Promise<Settlement | undefined> {
    try {
      ctx.pass = await this.#gate.acquire(ctx.lease.host, ctx.signal);
      return undefined;
    } catch (error) {
      // The gate rejects only when the lease's signal aborts: the pod is stopping.
      if (!ctx.signal.aborted) throw error;
      return { kind: 'release' };
    }
  }
}
