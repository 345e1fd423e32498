/**
 * Sends many commands in one go on either client. A plain `Redis` gets one pipeline (one
 * round trip). A `Cluster` cannot pipeline keys of different slots, so each command is
 * sent on its own: ioredis writes them all before any reply arrives (and groups them per
 * node when the client has `enableAutoPipelining`). Commands on one slot keep their
 * order either way, which enqueue relies on for chunks of one domain.
 */
import type { Cluster, Redis } from 'ioredis';
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
    const host = this.#redis as unknown as ScriptHost;
    return host[call.command](...call.args) as Promise<unknown>;
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
    const replies = await pipe.exec();
    return unwrap(replies).slice(first.length);
  }

  /**
   * Script calls plus plain commands whose replies are not needed, in one round trip on
   * a plain Redis (concurrently on a Cluster). Returns the scripts' replies.
   */
  async scriptsAndCommands(calls: ScriptCall[], commands: Arg[][]): Promise<unknown[]> {
    if (this.#cluster) {
      const [replies] = await Promise.all([
        Promise.all(calls.map((c) => this.script(c))),
        this.commands(commands),
      ]);
      return replies;
    }
    if (calls.length === 0 && commands.length === 0) return [];
    const pipe = this.#redis.pipeline(commands.map((c) => c.map(String)));
    const piped = pipe as unknown as ScriptHost;
    for (const c of calls) piped[c.command](...c.args);
    const replies = await pipe.exec();
    return unwrap(replies).slice(commands.length);
  }

  /** Plain commands (`['hincrby', key, field, n]`), no reply needed beyond errors. */
  async commands(commands: Arg[][]): Promise<unknown[]> {
    if (commands.length === 0) return [];
    if (this.#cluster) {
      return Promise.all(
        commands.map(([name, ...args]) => this.#redis.call(String(name), ...args)),
      );
    }
    const replies = await this.#redis.pipeline(commands.map((c) => c.map(String))).exec();
    return unwrap(replies);
  }
}

function unwrap(replies: [Error | null, unknown][] | null): unknown[] {
  if (!replies) throw new Error('pipeline aborted');
  return replies.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}
