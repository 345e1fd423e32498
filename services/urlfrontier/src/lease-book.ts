/**
 * Which lease a KnownURLItem settles. The node that handed a URL out remembers its lease (the
 * common case: a crawler acks to the node it streams from); any other node — or the same one
 * after a restart — finds it in Redis among the leases out on the URL's host (a host holds at
 * most its concurrency of them).
 */
import type { LeaseRef, RedisFrontier } from '@shardline/frontier';
import type { CanonicalUrl } from '@shardline/url';

export class LeaseBook {
  // `<crawl> <canonical URL>` → lease, for URLs this node handed out and not yet acked. Insertion order
  // is age: past `max` the oldest go (their leases are found in Redis if still out).
  readonly #local = new Map<string, LeaseRef>();
  readonly #max: number;

  constructor(max = 200_000) {
    this.#max = max;
  }

  /** Number of leases remembered locally. */
  get size(): number {
    return this.#local.size;
  }

  remember(crawlId: string, url: string, lease: LeaseRef): void {
    const key = `${crawlId} ${url}`;
    this.#local.delete(key);
    this.#local.set(key, { id: lease.id, pod: lease.pod });
    if (this.#local.size > this.#max) {
      const oldest = this.#local.keys().next().value;
      if (oldest !== undefined) this.#local.delete(oldest);
    }
  }

  /** Takes the remembered lease of a URL (it is settled once). */
  take(crawlId: string, url: string): LeaseRef | undefined {
    const key = `${crawlId} ${url}`;
    const lease = this.#local.get(key);
    if (lease) this.#local.delete(key);
    return lease;
  }

  /** The lease out on `url` as Redis holds it, whoever holds it; `null` when none. */
  async lookup(frontier: RedisFrontier, url: CanonicalUrl): Promise<LeaseRef | null> {
    const held = await frontier.inspector.hostLeases(url.domain, url.host);
    const lease = held.find((l) => l.url === url.url);
    return lease ? { id: lease.id, pod: lease.pod } : null;
  }
}
