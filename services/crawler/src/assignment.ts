/**
 * Which pod owns a domain. The frontier asks it on every enqueue and claim; the membership
 * layer will provide a ring-backed implementation. Until then a pod runs with
 * {@link StaticAssignment}: it owns everything.
 */

/** Domain ownership as the pod sees it now. */
export interface Assignment {
  /** The pod id that owns `domain` (its due index gets the domain's hosts). */
  ownerOf(domain: string): string;
  /** Called after every change of ownership; returns an unsubscribe function. */
  onChange(listener: () => void): () => void;
}

/** Every domain belongs to one pod (a single-pod crawl). */
export class StaticAssignment implements Assignment {
  readonly #pod: string;

  constructor(pod: string) {
    this.#pod = pod;
  }

  ownerOf(_domain: string): string {
    return this.#pod;
  }

  onChange(_listener: () => void): () => void {
    // Never changes.
    return () => undefined;
  }
}
