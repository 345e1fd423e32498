/**
 * Accumulates the non-slot bookkeeping of one operation (global and per-pod counters,
 * the domain indexes by depth, fetches, errors and dead letters) and turns it into plain
 * commands sent after the domain scripts returned. These sums are eventually consistent:
 * a client that dies between a domain script and this step loses its increments; the
 * per-domain counters, kept by the scripts themselves, are exact.
 */
import type { Arg } from './executor.js';
import type { FrontierKeys } from './keys.js';

/** Per-domain deltas for one index ZSET. */
type Deltas = Map<string, number>;

function bump(map: Deltas, domain: string, n: number): void {
  if (n !== 0) map.set(domain, (map.get(domain) ?? 0) + n);
}

export class Counters {
  readonly #keys: FrontierKeys;
  readonly #global = new Map<string, number>();
  readonly #pods = new Map<string, Map<string, number>>();
  readonly #depth: Deltas = new Map();
  readonly #fetched: Deltas = new Map();
  readonly #errors: Deltas = new Map();
  readonly #dead: Deltas = new Map();

  constructor(keys: FrontierKeys) {
    this.#keys = keys;
  }

  /** Adds to a global counter and, when `pod` is given, to that pod's. */
  add(field: string, n: number, pod?: string): void {
    if (n === 0) return;
    this.#global.set(field, (this.#global.get(field) ?? 0) + n);
    if (pod !== undefined) {
      let fields = this.#pods.get(pod);
      if (!fields) {
        fields = new Map();
        this.#pods.set(pod, fields);
      }
      fields.set(field, (fields.get(field) ?? 0) + n);
    }
  }

  /** Change of a domain's queued count, for the domains-by-depth index (and global `queued`). */
  queued(domain: string, n: number): void {
    if (n === 0) return;
    bump(this.#depth, domain, n);
    this.add('queued', n);
  }

  /** URLs of a domain fetched (its `ok` counter), for the domains-by-fetched index. */
  fetched(domain: string, n: number): void {
    bump(this.#fetched, domain, n);
  }

  /** Failed attempts of a domain (its `err` counter), for the domains-by-errors index. */
  failed(domain: string, n: number): void {
    bump(this.#errors, domain, n);
  }

  /**
   * Change of a domain's dead letters (its `dead` counter: + when dead-lettered, − when
   * requeued), for the dead-letter domains index and, as errors, the by-errors index.
   */
  dead(domain: string, n: number): void {
    bump(this.#errors, domain, n);
    bump(this.#dead, domain, n);
  }

  commands(): Arg[][] {
    const k = this.#keys;
    const out: Arg[][] = [];
    for (const [field, n] of this.#global) out.push(['hincrby', k.stats(), field, n]);
    for (const [pod, fields] of this.#pods) {
      for (const [field, n] of fields) out.push(['hincrby', k.podStats(pod), field, n]);
    }
    for (const [domain, n] of this.#depth) out.push(['zincrby', k.domains(), n, domain]);
    for (const [domain, n] of this.#fetched) out.push(['zincrby', k.domainsByFetched(), n, domain]);
    for (const [domain, n] of this.#errors) out.push(['zincrby', k.domainsByErrors(), n, domain]);
    for (const [domain, n] of this.#dead) out.push(['zincrby', k.deadLetterDomains(), n, domain]);
    // Drop domains whose dead letters are all requeued. Only exact zeros: a requeue's
    // decrement that lands before the matching increment leaves a transient negative
    // score, which must stay to cancel that increment (reads skip scores ≤ 0).
    if (this.#dead.size > 0) out.push(['zremrangebyscore', k.deadLetterDomains(), 0, 0]);
    return out;
  }
}
