/**
 * Micro-batching: items added within `delayMs` (or until `maxItems`) go to Redis in one call,
 * so a pod at hundreds of pages/s makes a few round trips per flush instead of one per page.
 */

/** Runs one batch; returns one result per item, in order. */
export type BatchRunner<T, R> = (items: T[]) => Promise<R[]>;

/** Collects items and flushes them together; each caller gets its own items' results. */
export class Batcher<T, R> {
  readonly #run: BatchRunner<T, R>;
  readonly #delayMs: number;
  readonly #maxItems: number;
  #items: T[] = [];
  #waiters: {
    from: number;
    to: number;
    resolve: (r: R[]) => void;
    reject: (e: unknown) => void;
  }[] = [];
  #timer: NodeJS.Timeout | undefined;
  // Flushes still running (stop waits for them).
  readonly #running = new Set<Promise<void>>();

  constructor(run: BatchRunner<T, R>, delayMs: number, maxItems: number) {
    this.#run = run;
    this.#delayMs = delayMs;
    this.#maxItems = maxItems;
  }

  /** Adds items to the next batch; resolves with their results once it ran. */
  add(items: readonly T[]): Promise<R[]> {
    if (items.length === 0) return Promise.resolve([]);
    return new Promise<R[]>((resolve, reject) => {
      const from = this.#items.length;
      for (const item of items) this.#items.push(item);
      this.#waiters.push({ from, to: this.#items.length, resolve, reject });
      if (this.#items.length >= this.#maxItems) this.flush();
      else if (!this.#timer) this.#timer = setTimeout(() => this.flush(), this.#delayMs);
    });
  }

  /** Items waiting for the next flush. */
  get pending(): number {
    return this.#items.length;
  }

  /** Sends what is buffered now. */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#items.length === 0) return;
    const items = this.#items;
    const waiters = this.#waiters;
    this.#items = [];
    this.#waiters = [];
    const done = this.#run(items).then(
      (results) => {
        for (const w of waiters) w.resolve(results.slice(w.from, w.to));
      },
      (error: unknown) => {
        for (const w of waiters) w.reject(error);
      },
    );
    this.#running.add(done);
    void done.finally(() => this.#running.delete(done));
  }

  /** Flushes and waits for every batch in flight. */
  async drain(): Promise<void> {
    this.flush();
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }
}
