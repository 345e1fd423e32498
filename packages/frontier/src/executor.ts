/**
 * Sends many commands in one go on either client. A plain `Redis` gets one pipeline (one
 * round trip). A `Cluster` cannot pipeline keys of different slots, so each command is
 * sent on its own: ioredis writes them all before any reply arrives (and groups them per
 * node when the client has `enableAutoPipelining`). Commands on one slot keep their
 * order either way, which enqueue relies on for chunks of one domain.
 *
 * Each call goes as an FCALL of the frontier's function library while the server holds it
 * (function-loader.ts), else as the EVALSHA script of the same name.
 *
 * Redis refusing a write for want of memory surfaces as {@link RedisOomError} from every
 * method, so callers branch on one code whatever the client.
 */
import type { ChainableCommander, Cluster, Redis } from 'ioredis';
import { isOomReply, RedisOomError } from './errors.js';
import {
  type FunctionLoader,
  functionLoader,
  isFunctionMissing,
  type ScriptMode,
} from './function-loader.js';
import { frontierLibrary, type ScriptCommand } from './scripts.js';

export type Arg = string | number;

/** A call of one of the frontier's scripts: its command and KEYS followed by ARGV. */
export interface ScriptCall {
  command: ScriptCommand;
  args: Arg[];
}

type ScriptHost = Record<ScriptCommand, (...args: Arg[]) => unknown>;
type Reply = [Error | null, unknown];

export interface ExecutorOptions {
  /** Send as FCALLs of the function library (default); false keeps every call on EVALSHA. */
  functions?: boolean;
  /** Told when the server refuses the library (the calls then go as EVALSHA). */
  onFunctionsRefused?: (error: Error) => void;
}

export class Executor {
  readonly #redis: Redis | Cluster;
  readonly #cluster: boolean;
  readonly #loader: FunctionLoader | undefined;
  readonly #onFunctionsRefused: (error: Error) => void;

  constructor(redis: Redis | Cluster, options: ExecutorOptions = {}) {
    this.#redis = redis;
    this.#cluster = redis.isCluster === true;
    if (options.functions !== false) this.#loader = functionLoader(redis, frontierLibrary());
    this.#onFunctionsRefused = options.onFunctionsRefused ?? (() => {});
  }

  /** How calls go now: `functions` once the library is loaded, `eval` before or without it. */
  get scriptMode(): ScriptMode {
    return this.#loader?.current ?? 'eval';
  }

  get isCluster(): boolean {
    return this.#cluster;
  }

  /** One script call. */
  script(call: ScriptCall): Promise<unknown> {
    return this.#send(call).catch(rethrow);
  }

  // Once the mode is known, a call is written to the client synchronously, as before the
  // library: calls and commands issued in one tick keep their order on the connection.
  #send(call: ScriptCall, retried = false): Promise<unknown> {
    return this.#inMode((mode) => {
      if (mode === 'eval') {
        const host = this.#redis as unknown as ScriptHost;
        return host[call.command](...call.args) as Promise<unknown>;
      }
      const [command, ...args] = fcall(call);
      return this.#redis.call(command, ...args).catch((error) => {
        if (retried || !isFunctionMissing(error)) throw error;
        this.#loader?.lost();
        return this.#send(call, true);
      });
    });
  }

  /** Runs `send` in the current mode: at once when it is known, after the load otherwise. */
  #inMode<T>(send: (mode: ScriptMode) => Promise<T>): Promise<T> {
    const mode = this.#loader ? this.#loader.mode(this.#onFunctionsRefused) : 'eval';
    return typeof mode === 'string' ? send(mode) : mode.then(send);
  }

  /** One pipeline of `calls` (plain Redis only), each reply or error in order. */
  #pipeline(calls: ScriptCall[], retried = false): Promise<Reply[]> {
    return this.#inMode((mode) => this.#pipelineIn(mode, calls, retried));
  }

  async #pipelineIn(mode: ScriptMode, calls: ScriptCall[], retried: boolean): Promise<Reply[]> {
    const pipe = this.#redis.pipeline();
    for (const c of calls) queue(pipe, c, mode);
    const replies = (await pipe.exec()) as Reply[] | null;
    if (!replies) throw new Error('pipeline aborted');
    const missing = replies.flatMap(([error], i) => (isFunctionMissing(error) ? [i] : []));
    if (retried || missing.length === 0) return replies;
    // The calls refused as missing did nothing: sent again, in order, once loaded again.
    this.#loader?.lost();
    const again = await this.#pipeline(
      missing.map((i) => calls[i] as ScriptCall),
      true,
    );
    missing.forEach((i, j) => {
      replies[i] = again[j] as Reply;
    });
    return replies;
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
    const replies = await this.#pipeline([...first, ...then]).catch(rethrow);
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
    const replies = await this.#pipeline([...first, ...then]).catch(rethrow);
    return unwrap(replies).slice(first.length);
  }
}

function queue(pipe: ChainableCommander, call: ScriptCall, mode: ScriptMode): void {
  if (mode === 'eval') {
    (pipe as unknown as ScriptHost)[call.command](...call.args);
    return;
  }
  const [command, ...args] = fcall(call);
  pipe.call(command, ...args);
}

/** `call` as an FCALL of its function in the library. */
function fcall(call: ScriptCall): [string, ...Arg[]] {
  const fn = frontierLibrary().functions.get(call.command)!;
  return ['FCALL', fn.name, fn.numberOfKeys, ...call.args];
}

function unwrap(replies: Reply[]): unknown[] {
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
