/**
 * Accumulates the non-slot bookkeeping of one operation (global and per-pod counters,
 * the domain indexes by depth, fetches, errors and dead letters) and turns it into one
 * `counters-1.lua` call per key, sent after the domain scripts returned. That script is
 * flagged allow-oom: a Redis that is full still takes the deltas of the domain scripts
 * that ran, so the sums never drift from the exact per-domain values under OOM. They can
 * only lag when a client dies between a domain script and this step (kill -9); the
 * per-domain counters, kept by the scripts themselves, are exact.
 */
import type { Arg, ScriptCall } from './executor.js';
import type { FrontierKeys } from './keys.js';
import { SCRIPT_COMMANDS as C } from './scripts.js';

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
  readonly #gone = new Set<string>();

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

  /**
   * The domain was archived (lua/includes/archive.lua): it leaves the domain indexes, which
   * then hold only domains with live keys, and counts in `archivedDomains`.
   */
  archived(domain: string): void {
    this.#gone.add(domain);
    this.add('archivedDomains', 1);
  }

  /**
   * The domain was unfolded from the archive: back in the indexes with its fetch, error and
   * (a packed domain's) queued counts, the scripts' `"<ok>,<errors>,<queued>"`. Its queued
   * URLs are in the global `queued` already.
   */
  revived(domain: string, counts: string): void {
    const [ok = 0, errors = 0, queued = 0] = counts.split(',').map(Number);
    this.#gone.delete(domain);
    bump(this.#fetched, domain, ok);
    bump(this.#errors, domain, errors);
    bump(this.#depth, domain, queued);
    this.add('archivedDomains', -1);
  }

  /** The counter updates, one script call per key. */
  calls(): ScriptCall[] {
    const k = this.#keys;
    const out: ScriptCall[] = [];
    const call = (key: string, kind: 'h' | 'z' | 'zd', deltas: Map<string, number>) => {
      if (deltas.size === 0) return;
      const args: Arg[] = [key, kind];
      for (const [field, n] of deltas) args.push(field, n);
      out.push({ command: C.counters, args });
    };
    call(k.stats(), 'h', this.#global);
    for (const [pod, fields] of this.#pods) call(k.podStats(pod), 'h', fields);
    call(k.domains(), 'z', this.#depth);
    call(k.domainsByFetched(), 'z', this.#fetched);
    call(k.domainsByErrors(), 'z', this.#errors);
    if (this.#gone.size > 0) {
      const members = [...this.#gone];
      for (const index of [k.domains(), k.domainsByFetched(), k.domainsByErrors()]) {
        out.push({ command: C.counters, args: [index, 'zr', ...members] });
      }
    }
    // Drops domains whose dead letters are all requeued (see the script).
    call(k.deadLetterDomains(), 'zd', this.#dead);
    return out;
  }
}
