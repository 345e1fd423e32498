/**
 * The frontier's identity: a random id stored once in Redis. A pod learns it at start and
 * checks it while it runs; when the key is gone or holds another id, Redis lost the frontier
 * (restarted without persistence, or flushed) and every queued URL with it. Without this
 * check an emptied Redis looks exactly like a finished crawl.
 */
import { randomUUID } from 'node:crypto';
import type { FrontierContext } from './context.js';
import { FrontierLostError, isOomReply, RedisOomError } from './errors.js';

/** Why a pod found the frontier lost, as recorded in Redis for `stats`, `/metrics` and the dashboard. */
export interface FrontierLostRecord {
  /** Redis-independent wall time (ms) at which the pod found it. */
  atMs: number;
  pod: string;
  /** The identity the pod had been working on. */
  expected: string;
  /** What the identity key held then (`null`: missing). */
  found: string | null;
}

export class FrontierIdentity {
  readonly #ctx: FrontierContext;

  constructor(ctx: FrontierContext) {
    this.#ctx = ctx;
  }

  /**
   * The frontier's identity, created when missing. Reads first: a full Redis (OOM) refuses
   * even a SET NX that would not write, and a frontier that has its identity needs none.
   */
  async claim(): Promise<string> {
    const { redis, keys } = this.#ctx;
    const current = await redis.get(keys.identity());
    if (current !== null) return current;
    await redis.set(keys.identity(), randomUUID(), 'NX').catch((error: unknown) => {
      throw isOomReply(error) ? new RedisOomError(error) : error;
    });
    const id = await redis.get(keys.identity());
    if (id === null) throw new FrontierLostError('(new)', null);
    return id;
  }

  /**
   * Throws {@link FrontierLostError} when the frontier's identity is no longer `expected`,
   * after recording it (see {@link FrontierLostRecord}) so that readers of the emptied Redis
   * see what happened.
   */
  async check(expected: string, pod: string): Promise<void> {
    const { redis, keys } = this.#ctx;
    const found = await redis.get(keys.identity());
    if (found === expected) return;
    const error = new FrontierLostError(expected, found);
    const record: Record<string, string> = {
      at: String(Date.now()),
      pod,
      expected,
      found: found ?? '',
    };
    // Best effort: the loss is thrown either way, and Redis may be full or gone again.
    await redis.hset(keys.lost(), record).catch(() => undefined);
    throw error;
  }
}
