/**
 * Per-IP politeness across the cluster. Hosts that resolve to the same address (virtual hosts
 * of one server, a CDN edge) share one gate, whichever pod owns their domains: the gate is a
 * few Redis keys per address (one hash slot), changed only by Lua scripts that take the time from Redis
 * (`lua/ip-gate-*.lua`). A send needs both the host's pass (`SendGate`) and the address's.
 *
 * - Delay: no two sends to the address start closer than `delayMs`, and none starts within
 *   `delayMs` of a response's end. No pass is handed out while an earlier one has not sent
 *   yet; the gap counts from the real send (`sent`: a slow connect or a busy pod cannot shorten
 *   it) and again from the end (`done`: a server that notes arrivals late still sees the whole
 *   gap) — Heritrix's and BUbiNG's IP delays also count from the end of the previous fetch.
 * - Concurrency: at most `concurrency` passes open at once; each open pass expires after
 *   `passLifetimeMs`, so a pod killed mid-request cannot wedge the address.
 * - One waiter per address per pod asks Redis at a time (the others queue locally), so a crowd
 *   of leases behind one busy address costs one poll, not one each.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PREFIX, FRONTIER_LUA_INCLUDES, luaScripts } from '@shardline/frontier';
import type { Cluster, Redis, Result } from 'ioredis';
import { check } from './errors.js';
import type { GatePass, SendGate } from './send-gate.js';

const OWNER = 'IpGateOptions';
/** Longest sleep of a waiter on a full address (or behind a pass not sent yet) before it asks again. */
const FULL_POLL_MS = 50;

const IP_GATE_COMMANDS = {
  'ip-gate-acquire': 'slip2IpGateAcquire',
  'ip-gate-sent': 'slip2IpGateSent',
  'ip-gate-done': 'slip2IpGateDone',
} as const;

type ScriptFn<Context extends { type: 'default' | 'pipeline' }> = (
  ...args: (string | number)[]
) => Result<unknown, Context>;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    slip2IpGateAcquire: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slip2IpGateSent: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slip2IpGateDone: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
  }
}

const scripts = luaScripts(fileURLToPath(new URL('../lua', import.meta.url)), IP_GATE_COMMANDS, {
  includeDirs: [FRONTIER_LUA_INCLUDES],
});

/** Options of {@link IpGate}. */
export interface IpGateOptions {
  /** The cluster's Redis (the frontier's client). */
  redis: Redis | Cluster;
  /** Redis key prefix. @default 'sl' */
  prefix?: string;
  /** This pod's id (in pass tokens). */
  pod: string;
  /** Least gap between send starts at one address (ms). @default 0 */
  delayMs?: number;
  /** Sends open at once per address (0 = no limit). @default 0 */
  concurrency?: number;
  /** How long an open pass counts when it is never closed (its pod died). @default 60000 */
  passLifetimeMs?: number;
  /** A background call (sent, release) failed; the gate goes on. */
  onError?: (error: unknown, operation: 'sent' | 'release') => void;
}

/** Counters of an {@link IpGate}. */
export interface IpGateStats {
  /** Passes that had to wait. */
  waits: number;
  /** Total wait of those (ms). */
  delayedMs: number;
  /** Background calls that failed (see `onError`). */
  errors: number;
}

/** The cluster-wide per-address gate; see the file comment. */
export class IpGate {
  readonly #redis: Redis | Cluster;
  readonly #prefix: string;
  readonly #pod: string;
  readonly #delayMs: number;
  readonly #concurrency: number;
  readonly #lifeMs: number;
  readonly #onError: IpGateOptions['onError'];
  // Per address, the promise the next local waiter waits for (the previous waiter's turn).
  readonly #turns = new Map<string, Promise<void>>();
  #tokens = 0;
  #stats: IpGateStats = { waits: 0, delayedMs: 0, errors: 0 };

  constructor(options: IpGateOptions) {
    this.#redis = options.redis;
    this.#prefix = check.string(OWNER, 'prefix', options.prefix, DEFAULT_PREFIX);
    this.#pod = check.string(OWNER, 'pod', options.pod, '');
    this.#delayMs = check.int(OWNER, 'delayMs', options.delayMs, 0, 0);
    this.#concurrency = check.int(OWNER, 'concurrency', options.concurrency, 0, 0, 1024);
    this.#lifeMs = check.int(OWNER, 'passLifetimeMs', options.passLifetimeMs, 60_000, 1);
    this.#onError = options.onError;
    scripts.define(this.#redis);
  }

  /**
   * Waits until `address` may be sent to, cluster-wide, and takes its pass. Rejects with the
   * signal's reason when `signal` aborts while waiting, and with the Redis error when the gate
   * cannot be asked.
   */
  async acquire(address: string, signal?: AbortSignal): Promise<GatePass> {
    const previous = this.#turns.get(address) ?? Promise.resolve();
    let endTurn!: () => void;
    const turn = new Promise<void>((resolve) => {
      endTurn = resolve;
    });
    const tail = previous.then(() => turn);
    this.#turns.set(address, tail);
    try {
      await abortable(previous, signal);
      return await this.#take(address, signal);
    } finally {
      endTurn();
      if (this.#turns.get(address) === tail) this.#turns.delete(address);
    }
  }

  /** Counters since construction. */
  stats(): IpGateStats {
    return { ...this.#stats };
  }

  async #take(address: string, signal: AbortSignal | undefined): Promise<GatePass> {
    const keys = this.#keys(address);
    const token = `${this.#pod}:${++this.#tokens}`;
    const startedAt = Date.now();
    let waited = false;
    for (;;) {
      signal?.throwIfAborted();
      const reply = (await this.#redis.slip2IpGateAcquire(
        ...keys,
        token,
        this.#delayMs,
        this.#concurrency,
        this.#lifeMs,
      )) as [number, string];
      const status = Number(reply[0]);
      const waitMs = Number(reply[1]);
      if (status === 0) {
        if (waited) {
          this.#stats.waits += 1;
          this.#stats.delayedMs += Date.now() - startedAt;
        }
        return this.#pass(keys, token);
      }
      waited = true;
      // Full or an earlier pass not sent yet: a release or a send elsewhere is not announced.
      const poll = status === 1 || status === 3;
      await sleep(poll ? Math.min(waitMs, FULL_POLL_MS) : Math.max(1, waitMs), undefined, {
        ...(signal ? { signal } : {}),
      });
    }
  }

  #pass(keys: [string, string, string], token: string): GatePass {
    let closed = false;
    const fault = (operation: 'sent' | 'release') => (error: unknown) => {
      this.#stats.errors += 1;
      this.#onError?.(error, operation);
    };
    return {
      sent: () => {
        if (closed) return;
        this.#redis
          .slip2IpGateSent(...keys, token, this.#delayMs, this.#lifeMs)
          .catch(fault('sent'));
      },
      done: () => {
        if (closed) return;
        closed = true;
        this.#redis
          .slip2IpGateDone(...keys, token, this.#delayMs, this.#lifeMs)
          .catch(fault('release'));
      },
    };
  }

  #keys(address: string): [string, string, string] {
    // One hash tag per address: the keys live in one slot, so the scripts run on a Cluster.
    const root = `${this.#prefix}:{ip:${address}}`;
    return [`${root}:g`, `${root}:o`, `${root}:p`];
  }
}

/**
 * The pod's send gate with per-IP politeness: the host's pass first (pod-local, `SendGate`),
 * then the pass of the address the host resolves to (cluster-wide, {@link IpGate}). A host whose
 * address is unknown (it does not resolve: its fetch fails on DNS anyway) passes on the host
 * gate alone.
 */
export class HostAndIpGate {
  readonly #hosts: Pick<SendGate, 'acquire'>;
  readonly #ips: Pick<IpGate, 'acquire'>;
  readonly #addressOf: (host: string) => Promise<string | undefined>;

  constructor(
    hosts: Pick<SendGate, 'acquire'>,
    ips: Pick<IpGate, 'acquire'>,
    addressOf: (host: string) => Promise<string | undefined>,
  ) {
    this.#hosts = hosts;
    this.#ips = ips;
    this.#addressOf = addressOf;
  }

  /** Waits for both passes; see {@link SendGate.acquire}. */
  async acquire(host: string, signal?: AbortSignal): Promise<GatePass> {
    const hostPass = await this.#hosts.acquire(host, signal);
    let ipPass: GatePass;
    try {
      const address = await this.#addressOf(host);
      if (address === undefined) return hostPass;
      ipPass = await this.#ips.acquire(address, signal);
    } catch (error) {
      hostPass.done();
      throw error;
    }
    return {
      sent: (atMs) => {
        hostPass.sent(atMs);
        ipPass.sent(atMs);
      },
      done: (responseMs) => {
        hostPass.done(responseMs);
        ipPass.done();
      },
    };
  }
}

/** `promise`, or the signal's reason as soon as it aborts. */
function abortable(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
