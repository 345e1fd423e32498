/**
 * Accumulates the non-slot bookkeeping of one operation (global and per-pod counters,
 * the domains-by-depth index) and turns it into plain commands sent after the domain
 * scripts returned. These sums are eventually consistent: a client that dies between a
 * domain script and this step loses its increments; the per-domain counters, kept by
 * the scripts themselves, are exact.
 */
import type { Arg } from './executor.js';
import type { FrontierKeys } from './keys.js';

export class Counters {
  readonly #keys: FrontierKeys;
  readonly #global = new Map<string, number>();
  readonly #pods = new Map<string, Map<string, number>>();
  readonly #depth = new Map<string, number>();

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
    this.#depth.set(domain, (this.#depth.get(domain) ?? 0) + n);
    this.add('queued', n);
  }

  commands(): Arg[][] {
    const out: Arg[][] = [];
    for (const [field, n] of this.#global) out.push(['hincrby', this.#keys.stats(), field, n]);
    for (const [pod, fields] of this.#pods) {
      for (const [field, n] of fields) out.push(['hincrby', this.#keys.podStats(pod), field, n]);
    }
    for (const [domain, n] of this.#depth) out.push(['zincrby', this.#keys.domains(), n, domain]);
    return out;
  }
}
