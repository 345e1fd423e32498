/**
 * Handoff of the crawls other than the default one. The node's membership hands off the
 * default crawl's due index on every ring change (and a departed node's); the other crawls
 * share that ring, so after each change this node moves, in each of them, the domains it no
 * longer owns and the due indexes of the nodes that left, and it moves its own when it
 * leaves. Moves are reindexes (idempotent), so several survivors doing the same is harmless.
 */
import type { MembershipChange } from '@shardline/membership';
import type { NodeContext } from './context.js';

export class CrawlHandoff {
  readonly #ctx: NodeContext;
  // Moves run one after the other, in ring order.
  #chain: Promise<void> = Promise.resolve();

  constructor(ctx: NodeContext) {
    this.#ctx = ctx;
  }

  /** After a ring change. */
  onChange(change: MembershipChange): void {
    if (change.before === undefined) return; // the first view: nothing moved yet
    const pods = [this.#ctx.podId, ...change.left];
    this.#chain = this.#chain.then(() => this.#move(pods));
  }

  /** When this node leaves (its ring then answers without it). */
  async leave(): Promise<void> {
    await this.#chain;
    await this.#move([this.#ctx.podId]);
  }

  async #move(pods: string[]): Promise<void> {
    try {
      for (const frontier of await this.#ctx.crawls.others('handoff')) {
        for (const pod of pods) await frontier.handOff(pod);
      }
    } catch (error) {
      // What was not moved is forwarded by the next claim that meets it (or the next change).
      this.#ctx.counters.fault('handoff.failed', 'handoff of a crawl failed', { err: error });
    }
  }
}
