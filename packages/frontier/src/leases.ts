/**
 * What a lease holder reports back: heartbeat-2.lua extends leases; free-slot-2.lua frees a
 * lease's host slot while it stays out; complete-2.lua, fail-2.lua and release-2.lua settle
 * one each, with the host pinned in its owner's due
 * index in the same round trip and its new score and the counters written in the next.
 */
import { asArray, checkPod } from './checks.js';
import { dueMember, packFailReason, packValidators, parseLeaseId } from './codec.js';
import type { FrontierContext } from './context.js';
import { Counters } from './counters.js';
import { type DueIndex, IndexBatch } from './due-index.js';
import { FrontierArgumentError, FrontierError, LeaseStatus, leaseStatusError } from './errors.js';
import type { Arg } from './executor.js';
import { MAX_REFETCH_MS } from './options.js';
import { SCRIPT_COMMANDS as C } from './scripts.js';
import type { CompleteResult, FailOutcome, FailResult, LeaseRef, ReleaseOptions } from './types.js';

/** One complete/fail/release: script ARGV after the lease, and its counter updates. */
interface LeaseOp {
  lease: LeaseRef;
  args: Arg[];
  count: (reply: unknown[], counters: Counters) => void;
}

/** Fail reply's outcome when the URL was dead-lettered (fail-2.lua). */
const DEAD = 'dead';

/**
 * The global counter field of a failure's reason: `error:<CODE>` when the reason is an error
 * code or an HTTP status (`http-429`, `http-503`: what the crawler passes), else `error:other`,
 * so the fields stay a small bounded set.
 */
export function errorField(reason: string): string {
  return /^(?:[A-Z][A-Z0-9_]{0,63}|http-[1-9][0-9]{2})$/.test(reason)
    ? `error:${reason}`
    : 'error:other';
}

export class Leases {
  readonly #ctx: FrontierContext;
  readonly #index: DueIndex;

  constructor(ctx: FrontierContext, index: DueIndex) {
    this.#ctx = ctx;
    this.#index = index;
  }

  /** See `RedisFrontier.heartbeatMany`. */
  async heartbeatMany(leases: readonly LeaseRef[]): Promise<(number | FrontierError)[]> {
    if (!Array.isArray(leases)) throw new FrontierArgumentError('leases', leases, 'an array');
    const { keys, exec, options } = this.#ctx;
    const targets = leases.map((lease) => {
      const { domain, host, field } = parseLeaseId(lease?.id);
      return { domain, host, field, pod: checkPod(lease.pod) };
    });
    const replies = await exec.scripts(
      targets.map((t) => ({
        command: C.heartbeat,
        args: [
          keys.hostLeases(t.domain, t.host),
          keys.hostLeaseDeadlines(t.domain, t.host),
          t.field,
          t.pod,
          options.leaseTimeoutMs,
        ],
      })),
    );
    return replies.map((reply, k) => {
      const r = asArray(reply, 'heartbeat');
      return leaseStatusError(Number(r[0]), leases[k]!.id, targets[k]!.pod) ?? Number(r[1]);
    });
  }

  /** See `RedisFrontier.completeMany`. */
  async completeMany(
    items: readonly { lease: LeaseRef; result?: CompleteResult }[],
  ): Promise<(FrontierError | null)[]> {
    const o = this.#ctx.options;
    const ops = items.map(({ lease, result = {} }): LeaseOp => {
      const { bytes = 0, durationMs = 0, links = 0 } = result;
      for (const [name, value] of [
        ['bytes', bytes],
        ['durationMs', durationMs],
        ['links', links],
      ] as const) {
        if (!Number.isSafeInteger(value) || value < 0) {
          throw new FrontierArgumentError(name, value, 'a non-negative integer');
        }
      }
      const sinceSentMs = sinceSentArg(result.sinceSentMs);
      const refetch = result.refetchAfterMs;
      if (
        refetch !== undefined &&
        (!Number.isSafeInteger(refetch) || refetch < 0 || refetch > MAX_REFETCH_MS)
      ) {
        throw new FrontierArgumentError(
          'refetchAfterMs',
          refetch,
          `an integer in 0..${MAX_REFETCH_MS} (0 = never refetched)`,
        );
      }
      if (result.changed !== undefined && typeof result.changed !== 'boolean') {
        throw new FrontierArgumentError('changed', result.changed, 'a boolean');
      }
      return {
        lease,
        args: [
          bytes,
          durationMs,
          links,
          o.adaptiveDelayFactor,
          o.maxDelayMs,
          o.defaultDelayMs,
          o.defaultConcurrency,
          o.refetchAfterMs,
          o.refetchAdaptive ? '1' : '0',
          o.refetchMinMs,
          o.refetchMaxMs,
          result.changed === undefined ? '' : result.changed ? '1' : '0',
          result.validators === undefined ? '' : `=${packValidators(result.validators)}`,
          sinceSentMs,
          refetch === undefined ? '' : refetch,
        ],
        count: (r, counters) => {
          const { domain } = parseLeaseId(lease.id);
          counters.add('fetched', 1, lease.pod);
          counters.add('inFlight', -1, lease.pod);
          counters.add('bytes', bytes);
          counters.fetched(domain, 1);
          // A rescheduled refetch counts as queued until it is claimed again.
          if (Number(r[3]) === 1) counters.queued(domain, 1);
        },
      };
    });
    const replies = await this.#settle('complete', ops, 1);
    return replies.map((r) => (r instanceof FrontierError ? r : null));
  }

  /** See `RedisFrontier.fail`. */
  async fail(lease: LeaseRef, result: FailResult): Promise<FailOutcome> {
    const o = this.#ctx.options;
    const retryAfterMs = result?.retryAfterMs ?? 0;
    if (!Number.isSafeInteger(retryAfterMs) || retryAfterMs < 0) {
      throw new FrontierArgumentError('retryAfterMs', retryAfterMs, 'a non-negative integer');
    }
    if (result.sent !== undefined && typeof result.sent !== 'boolean') {
      throw new FrontierArgumentError('sent', result.sent, 'a boolean');
    }
    const durationMs = result.durationMs ?? 0;
    if (!Number.isSafeInteger(durationMs) || durationMs < 0) {
      throw new FrontierArgumentError('durationMs', durationMs, 'a non-negative integer');
    }
    const reason = String(result.reason ?? 'error');
    if (result.message !== undefined && typeof result.message !== 'string') {
      throw new FrontierArgumentError('message', result.message, 'a string');
    }
    const row = packFailReason(reason, result.message);
    const op: LeaseOp = {
      lease,
      args: [
        result.retryable ? '1' : '0',
        retryAfterMs,
        row,
        result.status ?? 0,
        o.maxRetries,
        o.backoffBaseMs,
        o.backoffMaxMs,
        Math.random(),
        o.deadLetterCap,
        o.defaultDelayMs,
        o.defaultConcurrency,
        result.sent === false ? '0' : '1',
        o.adaptiveDelayFactor,
        o.maxDelayMs,
        durationMs,
      ],
      count: (r, counters) => {
        const { domain } = parseLeaseId(lease.id);
        counters.add('failed', 1, lease.pod);
        counters.add(errorField(reason), 1);
        counters.add('inFlight', -1, lease.pod);
        counters.failed(domain, 1);
        if (String(r[1]) === DEAD) {
          counters.add('dead', 1, lease.pod);
          counters.dead(domain, 1);
        } else {
          counters.add('retried', 1);
          counters.queued(domain, 1);
        }
      },
    };
    const [r] = await this.#settle('fail', [op], 3);
    if (r instanceof FrontierError) throw r;
    return { outcome: String(r![1]) === DEAD ? 'dead' : 'retry', attempt: Number(r![2]) };
  }

  /** See `RedisFrontier.release`. */
  async release(lease: LeaseRef, options: ReleaseOptions = {}): Promise<void> {
    const holdMs = options?.holdMs ?? 0;
    if (!Number.isSafeInteger(holdMs) || holdMs < 0) {
      throw new FrontierArgumentError('holdMs', holdMs, 'a non-negative integer');
    }
    const op: LeaseOp = {
      lease,
      args: [this.#ctx.options.defaultConcurrency, holdMs],
      count: (_r, counters) => {
        counters.add('released', 1, lease.pod);
        counters.add('inFlight', -1, lease.pod);
        counters.queued(parseLeaseId(lease.id).domain, 1);
      },
    };
    const [r] = await this.#settle('release', [op], 1);
    if (r instanceof FrontierError) throw r;
  }

  /** See `RedisFrontier.freeSlot`. */
  async freeSlot(lease: LeaseRef, durationMs: number, sinceSentMs: number): Promise<void> {
    if (!Number.isSafeInteger(durationMs) || durationMs < 0) {
      throw new FrontierArgumentError('durationMs', durationMs, 'a non-negative integer');
    }
    const since = sinceSentArg(sinceSentMs);
    const o = this.#ctx.options;
    const op: LeaseOp = {
      lease,
      args: [
        durationMs,
        o.adaptiveDelayFactor,
        o.maxDelayMs,
        o.defaultDelayMs,
        o.defaultConcurrency,
        since,
      ],
      // The lease is still out: its end counts it.
      count: () => undefined,
    };
    const [r] = await this.#settle('free-slot', [op], 1);
    if (r instanceof FrontierError) throw r;
  }

  /**
   * complete/fail/release of many leases: pin each host in its owner's due index and run
   * the scripts (one round trip on a plain Redis), then apply the new scores and the
   * counters (one more). `seqAt` is where the script's reply holds seq (score follows).
   * Returns per op its reply or its typed error.
   */
  async #settle(
    name: 'complete' | 'fail' | 'release' | 'free-slot',
    ops: LeaseOp[],
    seqAt: number,
  ): Promise<(unknown[] | FrontierError)[]> {
    const { keys, exec } = this.#ctx;
    const targets = ops.map(({ lease }) => {
      const parts = parseLeaseId(lease?.id);
      return { ...parts, pod: checkPod(lease.pod), owner: this.#ctx.ownerOf(parts.domain) };
    });
    const pins = new IndexBatch();
    for (const t of targets) pins.pin(t.owner, dueMember(t.domain, t.host), true);
    const replies = await exec.scripts(
      ops.map((op, k) => {
        const t = targets[k]!;
        return {
          command: C[name],
          args: [keys.domain(t.domain), keys.root(t.domain), t.host, t.field, t.pod, ...op.args],
        };
      }),
      this.#index.calls(pins),
    );
    const updates = new IndexBatch();
    const counters = new Counters(keys);
    const out = replies.map((reply, k) => {
      const r = asArray(reply, name);
      const t = targets[k]!;
      const status = Number(r[0]);
      if (status === LeaseStatus.NotFound) counters.add('late', 1);
      const error = leaseStatusError(status, ops[k]!.lease.id, t.pod);
      if (error) return error;
      const score = String(r[seqAt + 1]);
      // These scripts do not fold an idle domain; 'idle' keeps the claim visit that does,
      // even past a lapsed pin (index-update-3.lua).
      const parked = score === 'park' && this.#ctx.options.archiveIdleDomains ? 'idle' : score;
      updates.add(t.owner, dueMember(t.domain, t.host), String(r[seqAt]), parked);
      ops[k]!.count(r, counters);
      return r;
    });
    await this.#index.apply(updates, counters);
    return out;
  }
}

/**
 * `sinceSentMs` as the scripts take it: ms with the µs fraction, rounded DOWN to the µs (a
 * shorter duration only moves the send time the scripts derive later, never earlier).
 */
function sinceSentArg(value: number | undefined = 0): string {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new FrontierArgumentError('sinceSentMs', value, 'a non-negative finite number (ms)');
  }
  return (Math.floor(value * 1000) / 1000).toFixed(3);
}
