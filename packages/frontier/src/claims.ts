/**
 * Claiming from a pod's own due index: due-take-3.lua takes and holds the due hosts,
 * claim-2.lua visits each (reap expired leases, politeness gate, pop, lease, re-score),
 * index-update-3.lua writes the new scores. Hosts the pod no longer owns are forwarded
 * to their owner in the background.
 */
import { domainKey } from '@shardline/url';
import { asArray, checkName, checkPod } from './checks.js';
import { dueMember, leaseId, parseDueMember, parseScore, unpackEntry } from './codec.js';
import type { FrontierContext } from './context.js';
import { Counters } from './counters.js';
import { type DueIndex, IndexBatch } from './due-index.js';
import { FrontierArgumentError } from './errors.js';
import type { Ownership } from './ownership.js';
import { SCRIPT_COMMANDS as C } from './scripts.js';
import type { ClaimRequest, ClaimResult, Lease } from './types.js';

const MAX_CLAIM = 10_000;
/** Hosts one claim may name (`ClaimRequest.hosts`). */
const MAX_NAMED_HOSTS = 100;
/** Longest claim-ahead lead: an early lease holds its host's slot (and a fetch slot) until then. */
export const MAX_CLAIM_LEAD_MS = 1000;

/** A host of a due index: `<domain>/<host>` decoded. */
type DueRef = { domain: string; host: string };

export class Claims {
  readonly #ctx: FrontierContext;
  readonly #index: DueIndex;
  readonly #ownership: Ownership;
  // Domains a claim found in the wrong pod's due index, being moved to their owner.
  readonly #forwarding = new Map<string, Promise<void>>();

  constructor(ctx: FrontierContext, index: DueIndex, ownership: Ownership) {
    this.#ctx = ctx;
    this.#index = index;
    this.#ownership = ownership;
  }

  /** See `RedisFrontier.claim`. */
  async claim(request: ClaimRequest): Promise<ClaimResult> {
    const pod = checkPod(request?.pod);
    const max = request.max ?? 1;
    if (!Number.isSafeInteger(max) || max < 1 || max > MAX_CLAIM) {
      throw new FrontierArgumentError('max', max, `an integer in 1..${MAX_CLAIM}`);
    }
    const leaseTimeoutMs = request.leaseTimeoutMs ?? this.#ctx.options.leaseTimeoutMs;
    if (!Number.isSafeInteger(leaseTimeoutMs) || leaseTimeoutMs < 0) {
      throw new FrontierArgumentError('leaseTimeoutMs', leaseTimeoutMs, 'a non-negative integer');
    }
    const maxPerHost = request.maxPerHost ?? max;
    if (!Number.isSafeInteger(maxPerHost) || maxPerHost < 1) {
      throw new FrontierArgumentError('maxPerHost', maxPerHost, 'a positive integer');
    }
    const leadMs = request.leadMs ?? 0;
    if (!Number.isSafeInteger(leadMs) || leadMs < 0 || leadMs > MAX_CLAIM_LEAD_MS) {
      throw new FrontierArgumentError('leadMs', leadMs, `an integer in 0..${MAX_CLAIM_LEAD_MS}`);
    }
    const take = request.hosts
      ? await this.#named(pod, request.hosts)
      : await this.#take(pod, max, leadMs, true);
    if (take.hosts.length === 0) {
      return { leases: [], nextDueAtMs: take.earliestMs, nowMs: take.nowMs, reaped: 0 };
    }
    const mine: DueRef[] = [];
    const foreign = new Set<string>();
    for (const m of take.hosts) {
      if (this.#ctx.ownerOf(m.domain) === pod) mine.push(m);
      else foreign.add(m.domain);
    }
    // Hosts this pod no longer owns (a handoff in progress, a stale enqueuer) go to their
    // owner without the claim waiting for them: right after a ring change a claim can
    // find dozens, and its own leases (already written) must not wait for their moves.
    this.#forward(foreign);
    const visit = await this.#visit(pod, mine, max, { leaseTimeoutMs, maxPerHost, leadMs });
    if (visit.leases.length > 0) request.onLeases?.(visit.leases);
    const after = (await this.#index.apply(visit.updates, visit.counters)).get(pod);
    return {
      leases: visit.leases,
      nextDueAtMs: after?.dueMs ?? null,
      // When nextDueAtMs was read (the last round trip): a pod that turns it into a local
      // wake-up time with this is late by half a round trip, not by the whole claim.
      nowMs: after?.nowMs ?? take.nowMs,
      reaped: visit.reaped,
    };
  }

  /** See `RedisFrontier.reap`. */
  async reap(request: { pod: string; max?: number }): Promise<number> {
    const pod = checkPod(request?.pod);
    const take = await this.#take(pod, request.max ?? 100, 0, false);
    if (take.hosts.length === 0) return 0;
    const visit = await this.#visit(pod, take.hosts, 0, {
      leaseTimeoutMs: this.#ctx.options.leaseTimeoutMs,
      maxPerHost: 0,
      leadMs: 0,
    });
    await this.#index.apply(visit.updates, visit.counters);
    return visit.reaped;
  }

  /** See `RedisFrontier.forwarded`. */
  async forwarded(): Promise<void> {
    while (this.#forwarding.size > 0) await Promise.all(this.#forwarding.values());
  }

  /**
   * Reindexes each domain in the background, at most one move per domain at a time. A
   * failed move is reported as a background error; its hosts stay held by due-take and
   * a claim visits them again after `claimHoldMs`.
   */
  #forward(domains: Iterable<string>): void {
    for (const domain of domains) {
      if (this.#forwarding.has(domain)) continue;
      const move = this.#ownership
        .reindex(domain)
        .catch((error: unknown) => this.#ctx.backgroundError('forward', error))
        .finally(() => this.#forwarding.delete(domain));
      this.#forwarding.set(domain, move);
    }
  }

  /**
   * The named hosts whose domain `pod` owns, for a claim that visits them instead of its due
   * index (the claim script re-scores each, as after any visit).
   */
  async #named(
    pod: string,
    hosts: readonly string[],
  ): Promise<{ hosts: DueRef[]; nowMs: number; earliestMs: number | null }> {
    if (!Array.isArray(hosts) || hosts.length > MAX_NAMED_HOSTS) {
      throw new FrontierArgumentError(
        'hosts',
        hosts,
        `an array of at most ${MAX_NAMED_HOSTS} hosts`,
      );
    }
    const refs = hosts.map((host) => ({ domain: domainKey(checkName('host', host)), host }));
    const [seconds, micros] = await this.#ctx.redis.time();
    return {
      hosts: refs.filter((r) => this.#ctx.ownerOf(r.domain) === pod),
      nowMs: Number(seconds) * 1000 + Math.floor(Number(micros) / 1000),
      earliestMs: null,
    };
  }

  /**
   * Runs due-take-3.lua: takes up to `max` hosts of `pod` due within `leadMs` and holds them;
   * `backlog`: with room left, the rest from the pod's backlog of packed domains.
   */
  async #take(
    pod: string,
    max: number,
    leadMs: number,
    backlog: boolean,
  ): Promise<{ hosts: DueRef[]; nowMs: number; earliestMs: number | null }> {
    const { keys, exec, options } = this.#ctx;
    this.#index.register(pod);
    const take = asArray(
      await exec.script({
        command: C['due-take'],
        args: [
          keys.due(pod),
          keys.dueMeta(pod),
          keys.backlog(pod),
          max,
          options.claimHoldMs,
          leadMs,
          backlog ? 1 : 0,
        ],
      }),
      'due-take',
    );
    return {
      hosts: take.slice(2).map((m) => parseDueMember(String(m))),
      nowMs: Number(take[0]),
      earliestMs: parseScore(take[1]),
    };
  }

  /** Runs claim-2.lua on hosts of `pod`'s due index; `max` 0 only reaps. */
  async #visit(
    pod: string,
    hosts: DueRef[],
    max: number,
    limits: { leaseTimeoutMs: number; maxPerHost: number; leadMs: number },
  ) {
    const { keys, exec, options: o } = this.#ctx;
    const seen = await this.#ctx.seenLayout();
    // Spread `max` over the hosts: each gets one, the first ones a share of the rest.
    const extra = Math.max(0, max - hosts.length);
    const calls = hosts.map(({ domain, host }, k) => ({
      command: C.claim,
      args: [
        keys.domain(domain),
        keys.root(domain),
        host,
        pod,
        limits.leaseTimeoutMs,
        max === 0
          ? 0
          : Math.min(
              limits.maxPerHost,
              1 + Math.floor(extra / hosts.length) + (k < extra % hosts.length ? 1 : 0),
            ),
        o.defaultDelayMs,
        o.defaultConcurrency,
        o.reapBatch,
        o.maxRetries,
        o.deadLetterCap,
        o.domainBudget?.pages ?? 0,
        o.domainBudget?.periodMs ?? 0,
        limits.leadMs,
        o.archiveIdleDomains ? keys.archive(domain) : '',
        seen.bucketLoad,
        seen.inlineMax,
      ],
    }));
    const replies = await exec.scripts(calls);
    // Read after every reply arrived: Redis time at this instant is at least each reply's
    // replyAtUs, so replyAtUs + local time elapsed since then never runs ahead of Redis.
    const receivedPerfMs = performance.now();
    const leases: Lease[] = [];
    const updates = new IndexBatch();
    const counters = new Counters(keys);
    let reaped = 0;
    replies.forEach((reply, k) => {
      const r = asArray(reply, 'claim');
      const { domain, host } = hosts[k]!;
      updates.add(pod, dueMember(domain, host), String(r[0]), String(r[1]));
      const claimedAtMs = Number(r[2]);
      const reapedCount = Number(r[3]);
      if (reapedCount > 0) {
        reaped += reapedCount;
        for (const who of String(r[4]).split(',')) {
          const dead = who.endsWith(':dead');
          const holder = dead ? who.slice(0, -5) : who;
          counters.add('repeats', 1, holder);
          counters.add('inFlight', -1, holder);
          if (dead) {
            counters.add('dead', 1);
            counters.dead(domain, 1);
          } else counters.queued(domain, 1);
        }
      }
      const replyAtUs = Number(r[5]);
      const unpacked = String(r[7]);
      if (unpacked !== '') counters.revived(domain, unpacked);
      if (Number(r[6]) === 1) counters.archived(domain);
      for (let j = 8; j + 4 < r.length; j += 5) {
        const e = unpackEntry(String(r[j + 3]));
        const notBeforeMs = Number(r[j + 4]);
        leases.push({
          id: leaseId(domain, String(r[j])),
          url: e.url,
          host,
          domain,
          priority: Number(r[j + 2]),
          depth: e.depth,
          attempt: e.attempt + 1,
          deadlineMs: Number(r[j + 1]),
          claimedAtMs,
          pod,
          meta: e.meta,
          ...(e.refetchAfterMs === undefined ? {} : { refetchAfterMs: e.refetchAfterMs }),
          ...(e.validators === undefined ? {} : { validators: e.validators }),
          ...(notBeforeMs > claimedAtMs
            ? {
                notBeforeMs,
                notBeforePerfMs: receivedPerfMs + (notBeforeMs * 1000 - replyAtUs) / 1000,
              }
            : {}),
        });
        counters.queued(domain, -1);
        counters.add('claimed', 1, pod);
        counters.add('inFlight', 1, pod);
      }
    });
    return { leases, updates, counters, reaped };
  }
}
