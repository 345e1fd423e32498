/**
 * Enqueues the URLs leases found, batched across leases (one frontier call per 5 ms or 1000
 * URLs), and wakes the pod's own work loop when the batch gave it due work.
 */
import type { EnqueueItem, EnqueueReport, EnqueueResult } from '@shardline/frontier';
import { Batcher } from '../batcher.js';

/** Most URLs sent to the frontier in one enqueue call (a sitemap lists up to 50,000). */
const MAX_ENQUEUE_CHUNK = 1000;

/** Options of {@link LinkEnqueuer}. */
export interface LinkEnqueuerOptions {
  frontier: { enqueue(items: readonly EnqueueItem[]): Promise<EnqueueReport> };
  /** This pod's id: a batch that woke it calls `onWoken`. */
  pod: string;
  /** Called when an enqueue gave this pod's due index new work (wake the loop). */
  onWoken: () => void;
}

/** The pod's batched enqueue of discovered URLs. */
export class LinkEnqueuer {
  readonly #o: LinkEnqueuerOptions;
  readonly #batcher: Batcher<EnqueueItem, EnqueueResult>;

  constructor(options: LinkEnqueuerOptions) {
    this.#o = options;
    this.#batcher = new Batcher((items) => this.#enqueueNow(items), 5, 1000);
  }

  /** Enqueues `items` with the next batch; one result per item, in order. */
  add(items: readonly EnqueueItem[]): Promise<EnqueueResult[]> {
    return this.#batcher.add(items);
  }

  /** Items waiting for their batch. */
  get pending(): number {
    return this.#batcher.pending;
  }

  /** Resolves once every item added so far has been enqueued. */
  drain(): Promise<void> {
    return this.#batcher.drain();
  }

  async #enqueueNow(items: EnqueueItem[]): Promise<EnqueueResult[]> {
    // maxPagesPerDomain is enforced inside the frontier's enqueue script (atomic per domain).
    const results: EnqueueResult[] = [];
    let woken = false;
    // A sitemap's 50,000 URLs in one script call would stall Redis: chunks.
    for (let i = 0; i < items.length; i += MAX_ENQUEUE_CHUNK) {
      const report = await this.#o.frontier.enqueue(items.slice(i, i + MAX_ENQUEUE_CHUNK));
      if (report.wokenPods.includes(this.#o.pod)) woken = true;
      for (const r of report.results) results.push(r);
    }
    if (woken) this.#o.onWoken();
    return results;
  }
}
