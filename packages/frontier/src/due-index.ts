/**
 * Writes to the pods' due indexes (index-update-3.lua) and the pods set. Every host
 * change is a domain script (one slot) followed by an index update in the pod's slot;
 * updates carry the host's `seq` so that only the newest decision lands, and changes that
 * may make a host due pin its entry first (see the script's header and the README).
 */
import { asArray } from './checks.js';
import { parseScore } from './codec.js';
import type { FrontierContext } from './context.js';
import type { Counters } from './counters.js';
import type { Arg, ScriptCall } from './executor.js';
import { SCRIPT_COMMANDS as C } from './scripts.js';

/**
 * Triples per index-update call: a seed batch of 50,000 hosts would otherwise spread 150,000
 * arguments into one call (and overflow the stack). Chunks of one pod's slot run in order.
 */
const TRIPLES_PER_CALL = 1000;

/** Pending index writes, grouped by pod: triples (member, seq, score), seq 0 = pin. */
export class IndexBatch {
  readonly byPod = new Map<string, Arg[]>();

  add(pod: string, member: string, seq: number | string, score: string): void {
    let list = this.byPod.get(pod);
    if (!list) {
      list = [];
      this.byPod.set(pod, list);
    }
    list.push(member, seq, score);
  }

  /**
   * Pins a member before a change that may make its host due. `lower`: also bring an
   * existing score down to the pin's end (lease operations: the host may sit at +inf).
   */
  pin(pod: string, member: string, lower: boolean): void {
    this.add(pod, member, lower ? 0 : -1, '');
  }
}

export class DueIndex {
  readonly #ctx: FrontierContext;
  // Pods this instance already added to the pods set (reclaimPod and reindex read it).
  readonly #registered = new Set<string>();

  constructor(ctx: FrontierContext) {
    this.#ctx = ctx;
  }

  /**
   * Adds a pod to the pods set once per instance. Not awaited on purpose: the set is only
   * read by reclaimPod/reindex. A failed SADD is counted as a background error and
   * forgotten here, so the next call for the pod tries again.
   */
  register(pod: string): void {
    if (this.#registered.has(pod)) return;
    this.#registered.add(pod);
    this.#ctx.redis.sadd(this.#ctx.keys.pods(), pod).catch((error: unknown) => {
      this.#registered.delete(pod);
      this.#ctx.backgroundError('register-pod', error);
    });
  }

  /** The index-update calls of a batch (registering each pod it touches), in chunks. */
  calls(batch: IndexBatch): ScriptCall[] {
    return this.#chunked(batch).map((c) => c.call);
  }

  #chunked(batch: IndexBatch): { pod: string; call: ScriptCall }[] {
    const { keys, options } = this.#ctx;
    const out: { pod: string; call: ScriptCall }[] = [];
    for (const [pod, triples] of batch.byPod) {
      this.register(pod);
      const head: Arg[] = [
        keys.due(pod),
        keys.dueMeta(pod),
        keys.backlog(pod),
        keys.wakeChannel(pod),
        options.pinMs,
      ];
      for (let start = 0; start < triples.length; start += TRIPLES_PER_CALL * 3) {
        const args = head.concat(triples.slice(start, start + TRIPLES_PER_CALL * 3));
        out.push({ pod, call: { command: C['index-update'], args } });
      }
    }
    return out;
  }

  /**
   * Applies index updates (and, in the same round trip, the counters); returns each
   * pod's earliest due time afterwards and the Redis time it was read at.
   */
  async apply(
    batch: IndexBatch,
    counters?: Counters,
  ): Promise<Map<string, { dueMs: number | null; nowMs: number }>> {
    const chunks = this.#chunked(batch);
    const calls = chunks.map((c) => c.call);
    const replies = await this.#ctx.exec.scripts([...calls, ...(counters?.calls() ?? [])]);
    // A pod's chunks run in order: its last chunk's reply is the index after all of them.
    const earliest = new Map<string, { dueMs: number | null; nowMs: number }>();
    chunks.forEach(({ pod }, k) => {
      const r = asArray(replies[k], 'index-update');
      earliest.set(pod, { dueMs: parseScore(r[0]), nowMs: Number(r[1]) });
    });
    return earliest;
  }
}
