/**
 * Keeps the frontier's function library (lua-library.ts) loaded on one client's server(s) and
 * says how to send script calls: `functions` (FCALL) once `FUNCTION LOAD` succeeded on every
 * master, `eval` (EVALSHA, the scripts as ioredis commands) when the server refused it —
 * Redis before 7.0, an ACL without FUNCTION, a full server, a Cluster master out of reach. The
 * EVALSHA scripts stay defined on the client either way, so a refusal never stops the
 * frontier; it only costs the per-call helper definitions the library saves.
 */
import { type Cluster, type Redis, ReplyError } from 'ioredis';
import type { ScriptLibrary } from './lua-library.js';

export type ScriptMode = 'functions' | 'eval';

/** How long a refused load keeps the client on EVALSHA before it tries again. */
const RETRY_LOAD_MS = 30_000;

const loaders = new WeakMap<Redis | Cluster, FunctionLoader>();

/**
 * The loader of `library` on `redis`, one per client: every frontier, registry and executor
 * on a client shares it, so the library is loaded once per client, not per instance (an API
 * server builds a registry per request).
 */
export function functionLoader(
  redis: Redis | Cluster,
  library: ScriptLibrary<string>,
): FunctionLoader {
  let loader = loaders.get(redis);
  if (!loader) {
    loader = new FunctionLoader(redis, library);
    loaders.set(redis, loader);
  }
  return loader;
}

export class FunctionLoader {
  readonly #redis: Redis | Cluster;
  readonly #library: ScriptLibrary<string>;
  #mode: ScriptMode | undefined;
  #retryAt = 0;
  #loading: Promise<ScriptMode> | undefined;

  constructor(redis: Redis | Cluster, library: ScriptLibrary<string>) {
    this.#redis = redis;
    this.#library = library;
  }

  /** The mode calls go in now, without loading. */
  get current(): ScriptMode {
    return this.#mode ?? 'eval';
  }

  /**
   * The mode to send in now; loads the library first when it is not known to be there.
   * `onRefused` hears of a refusal when this caller's load met it and the client was not
   * on EVALSHA already (once per episode for the whole client).
   */
  mode(onRefused: (error: Error) => void): ScriptMode | Promise<ScriptMode> {
    if (this.#mode === 'functions') return 'functions';
    if (this.#mode === 'eval' && Date.now() < this.#retryAt) return 'eval';
    this.#loading ??= this.#load(onRefused).finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  /**
   * An FCALL was answered "Function not found": the server lost its functions (restarted
   * without its data, `FUNCTION FLUSH`) or a Cluster master joined after the load.
   */
  lost(): void {
    if (this.#mode === 'functions') this.#mode = undefined;
  }

  async #load(onRefused: (error: Error) => void): Promise<ScriptMode> {
    const redis = this.#redis;
    const nodes: (Redis | Cluster)[] = redis.isCluster
      ? (redis as Cluster).nodes('master')
      : [redis];
    // A Cluster client that has not connected yet knows no masters: EVALSHA for this call.
    if (nodes.length === 0) return 'eval';
    try {
      await Promise.all(
        nodes.map((node) => node.call('FUNCTION', 'LOAD', 'REPLACE', this.#library.code)),
      );
      this.#mode = 'functions';
    } catch (error) {
      // A refusal is reported; a master out of reach is not (the outage shows elsewhere),
      // but calls to the masters that answer must not wait for it: EVALSHA for now either way.
      if (error instanceof ReplyError && this.#mode !== 'eval') onRefused(error as Error);
      this.#mode = 'eval';
      this.#retryAt = Date.now() + RETRY_LOAD_MS;
    }
    return this.#mode;
  }
}

/** An FCALL's reply when the server does not hold the function. */
export function isFunctionMissing(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('ERR Function not found');
}
