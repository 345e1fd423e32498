/**
 * Sends many commands in one go on either client. A plain `Redis` gets one pipeline (one
 * round trip). A `Cluster` cannot pipeline keys of different slots, so each command is
 * sent on its own: ioredis writes them all before any reply arrives (and groups them per
 * node when the client has `enableAutoPipelining`). Commands on one slot keep their
 * order either way, which enqueue relies on for chunks of one domain.
 *
 * Redis refusing a write for want of memory surfaces as {@link RedisOomError} from every
 * method, so callers branch on one code whatever the client.
 */
import type { Cluster, Redis } from 'ioredis';
import { isOomReply, RedisOomError } from './errors.js';
import type { ScriptCommand } from './scripts.js';

export type Arg = string | number;

/** A call of one of the frontier's scripts: its command and KEYS followed by ARGV. */
export interface ScriptCall {
  command: ScriptCommand;
  args: Arg[];
}

type ScriptHost = Record<ScriptCommand, (...args: Arg[]) => unknown>;

export class Executor {
  readonly #redis: Redis | Cluster;
  readonly #cluster: boolean;

  constructor(redis: Redis | Cluster) {
    this.#redis = redis;
    this.#cluster = redis.isCluster === true;
  }

  get isCluster(): boolean {
    return this.#cluster;
  }

  /** One script call. */
  script(call: ScriptCall): Promise<unknown> {
    return this.#send(call).catch(rethrow);
  }

  #send(call: ScriptCall): Promise<unknown> {
    const host = this.#redis as unknown as ScriptHost;
    return host[call.command](...call.args) as Promise<unknown>;
  }

  /**
   * Script calls in order, each answered on its own: its reply or its error (a refused
   * write as {@link RedisOomError}). For callers that must know which calls took effect.
   */
  async scriptsSettled(then: ScriptCall[], first: ScriptCall[] = []): Promise<unknown[]> {
    if (then.length === 0 && first.length === 0) return [];
    if (this.#cluster) {
      await Promise.all(first.map((c) => this.script(c)));
      return Promise.all(then.map((c) => this.#send(c).catch(typed)));
    }
    const pipe = this.#redis.pipeline();
    const piped = pipe as unknown as ScriptHost;
    for (const c of [...first, ...then]) piped[c.command](...c.args);
    const replies = await pipe.exec();
    if (!replies) throw new Error('pipeline aborted');
    unwrap(replies.slice(0, first.length));
    return replies.slice(first.length).map(([error, value]) => (error ? typed(error) : value));
  }

  /**
   * Script calls in order. On a plain Redis, `first` and `then` go in one pipeline
   * (first's commands run before then's); on a Cluster, `first` is awaited before
   * `then` is sent, so the order still holds across slots. Returns `then`'s replies.
   */
  async scripts(then: ScriptCall[], first: ScriptCall[] = []): Promise<unknown[]> {
    if (then.length === 0 && first.length === 0) return [];
    if (this.#cluster) {
      await Promise.all(first.map((c) => this.script(c)));
      return Promise.all(then.map((c) => this.script(c)));
    }
    const pipe = this.#redis.pipeline();
    const piped = pipe as unknown as ScriptHost;
    for (const c of [...first, ...then]) piped[c.command](...c.args);
    const replies = await pipe.exec().catch(rethrow);
    return unwrap(replies).slice(first.length);
  }
}

function unwrap(replies: [Error | null, unknown][] | null): unknown[] {
  if (!replies) throw new Error('pipeline aborted');
  return replies.map(([error, value]) => {
    if (error) throw typed(error);
    return value;
  });
}

/** A refused write as {@link RedisOomError}; any other error as it is. */
function typed(error: unknown): unknown {
  return isOomReply(error) ? new RedisOomError(error) : error;
}

function rethrow(error: unknown): never {
  throw typed(error);
}
