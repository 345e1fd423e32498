/**
 * Polls the pod registry (read-only, `MembershipReader`) and records every epoch's member
 * list with the moment the test first saw it, so each membership change can be replayed on
 * `@shardline/ring` afterwards.
 */
import { MembershipReader } from '@shardline/membership';
import type { Redis } from 'ioredis';

/** One epoch as seen by the watcher. */
export interface ObservedView {
  epoch: number;
  /** Wall-clock ms when the watcher first saw this epoch. */
  seenAtMs: number;
  members: { id: string; weight: number }[];
}

/** Records registry epochs until stopped; tolerates Redis being down (it retries). */
export class MembershipWatch {
  readonly views: ObservedView[] = [];
  ringParams: { vnodes: number; seed: number } | undefined;
  #reader: MembershipReader;
  #running = true;
  #loop: Promise<void>;

  constructor(redis: Redis, prefix = 'sl', intervalMs = 100) {
    this.#reader = new MembershipReader(redis, prefix);
    this.#loop = this.#run(intervalMs);
  }

  async #run(intervalMs: number): Promise<void> {
    while (this.#running) {
      try {
        await this.poll();
      } catch {
        // Redis restarting: the next poll catches up (epochs are never skipped silently:
        // a missed epoch only merges two changes into one, reported as such).
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }

  /** One read of the registry; records a new epoch. */
  async poll(): Promise<ObservedView | undefined> {
    const epoch = await this.#reader.epoch();
    const last = this.views.at(-1);
    if (last && last.epoch === epoch) return last;
    const members = await this.#reader.members();
    // The member list and the epoch are two reads: re-read the epoch so a view is only
    // recorded under the epoch its list belongs to.
    if ((await this.#reader.epoch()) !== epoch) return undefined;
    this.ringParams ??= await this.#reader.ringParams();
    const view = {
      epoch,
      seenAtMs: Date.now(),
      members: members.map((m) => ({ id: m.id, weight: m.weight })),
    };
    if (members.length > 0) this.views.push(view);
    return view;
  }

  /** The latest member ids (sorted). */
  latestIds(): string[] {
    return (this.views.at(-1)?.members ?? []).map((m) => m.id).sort();
  }

  /** Resolves once the registry's member ids equal `ids` (any order). */
  async waitForMembers(ids: string[], timeoutMs: number): Promise<ObservedView> {
    const want = [...ids].sort().join(',');
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const last = this.views.at(-1);
      if (last && this.latestIds().join(',') === want) return last;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`members ${this.latestIds().join(',')} never became ${want}`);
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
  }
}
