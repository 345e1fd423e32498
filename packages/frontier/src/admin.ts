/**
 * Operator controls that live with the domain (they survive restarts and handoffs):
 * pause/resume, blocks until a time, per-host politeness overrides, and requeueing dead
 * letters.
 */
import { domainKey } from '@shardline/url';
import { asArray, checkName } from './checks.js';
import { dueMember } from './codec.js';
import type { FrontierContext } from './context.js';
import { Counters } from './counters.js';
import { wakeOtherCrawls } from './cross-crawl.js';
import { type DueIndex, IndexBatch } from './due-index.js';
import { FrontierArgumentError } from './errors.js';
import type { FrontierInspector } from './inspector.js';
import { SCRIPT_COMMANDS as C } from './scripts.js';
import type { BlockTarget, HostPolicy } from './types.js';

/** Due-index updates from a reply's `host, seq, score` triples starting at `from`. */
function hostUpdates(owner: string, domain: string, reply: unknown[], from: number): IndexBatch {
  const updates = new IndexBatch();
  for (let j = from; j + 2 < reply.length; j += 3) {
    updates.add(
      owner,
      dueMember(domain, String(reply[j])),
      String(reply[j + 1]),
      String(reply[j + 2]),
    );
  }
  return updates;
}

export class Admin {
  readonly #ctx: FrontierContext;
  readonly #index: DueIndex;
  readonly #inspector: FrontierInspector;

  constructor(ctx: FrontierContext, index: DueIndex, inspector: FrontierInspector) {
    this.#ctx = ctx;
    this.#index = index;
    this.#inspector = inspector;
  }

  /** See `RedisFrontier.pause` / `resume`. Runs pause-3.lua. */
  async setPaused(domain: string, paused: boolean): Promise<void> {
    checkName('domain', domain);
    const { keys, exec, options } = this.#ctx;
    const owner = this.#ctx.ownerOf(domain);
    await this.#ctx.crawl.touch([domain]);
    // Resuming makes hosts due: pin them first, like every change that wakes a host.
    const pins = paused ? new IndexBatch() : await this.#pinHosts(domain, owner);
    const [result] = await exec.scripts(
      [
        {
          command: C.pause,
          args: [
            keys.domain(domain),
            keys.hosts(domain),
            keys.root(domain),
            paused ? '1' : '0',
            options.defaultConcurrency,
          ],
        },
      ],
      this.#index.calls(pins),
    );
    await this.#index.apply(hostUpdates(owner, domain, asArray(result, 'pause'), 0));
  }

  /** See `RedisFrontier.blockUntil`. Runs block-3.lua. */
  async blockUntil(target: BlockTarget, untilMs: number): Promise<void> {
    if (typeof target !== 'object' || target === null) {
      throw new FrontierArgumentError('target', target, 'an object { domain } or { host }');
    }
    if (target.host !== undefined) checkName('host', target.host);
    const domain =
      target.domain ?? (target.host === undefined ? undefined : domainKey(target.host));
    if (domain === undefined) {
      throw new FrontierArgumentError('target', target, 'an object { domain } or { host }');
    }
    checkName('domain', domain);
    if (!Number.isSafeInteger(untilMs) || untilMs < 0) {
      throw new FrontierArgumentError('untilMs', untilMs, 'a non-negative integer (epoch ms)');
    }
    const { keys, exec, options } = this.#ctx;
    const owner = this.#ctx.ownerOf(domain);
    await this.#ctx.crawl.touch([domain]);
    // Lifting or shortening a block makes hosts due: pin them first, like resume.
    const pins = await this.#pinHosts(domain, owner);
    const [result] = await exec.scripts(
      [
        {
          command: C.block,
          args: [
            keys.domain(domain),
            keys.hosts(domain),
            keys.root(domain),
            target.host ?? '',
            untilMs,
            options.defaultConcurrency,
          ],
        },
      ],
      this.#index.calls(pins),
    );
    await this.#index.apply(hostUpdates(owner, domain, asArray(result, 'block'), 0));
    // A block is the host's in every crawl: lifting or shortening it must reach them all.
    await wakeOtherCrawls(this.#ctx, domain);
  }

  /** See `RedisFrontier.setHostPolicy`. Runs set-policy-2.lua. */
  async setHostPolicy(host: string, policy: HostPolicy, domain?: string): Promise<void> {
    checkName('host', host);
    const { keys, exec, options } = this.#ctx;
    const d = domain ?? domainKey(host);
    const field = (name: string, value: number | null | undefined, min: number): string => {
      if (value === undefined) return '';
      if (value === null) return '-';
      if (!Number.isSafeInteger(value) || value < min) {
        throw new FrontierArgumentError(name, value, `an integer ≥ ${min} or null`);
      }
      return String(value);
    };
    await this.#ctx.crawl.touch([d]);
    const reply = asArray(
      await exec.script({
        command: C['set-policy'],
        args: [
          keys.domain(d),
          keys.root(d),
          host,
          field('concurrency', policy.concurrency, 1),
          field('delayMs', policy.delayMs, 0),
          field('crawlDelayMs', policy.crawlDelayMs, 0),
          options.defaultConcurrency,
          field('crawlLimit', policy.crawlLimit, 1),
        ],
      }),
      'set-policy',
    );
    const updates = new IndexBatch();
    updates.add(this.#ctx.ownerOf(d), dueMember(d, host), String(reply[0]), String(reply[1]));
    await this.#index.apply(updates);
    // An operator's delay is the host's in every crawl; a lower one must reach them all. (A
    // robots crawl-delay that drops reaches the others at their next visit.)
    if (policy.delayMs !== undefined) await wakeOtherCrawls(this.#ctx, d);
  }

  /** See `RedisFrontier.requeueDeadLetters`. Runs requeue-dead-2.lua. */
  async requeueDeadLetters(domain: string, max: number): Promise<number> {
    checkName('domain', domain);
    const { keys, exec, options } = this.#ctx;
    const owner = this.#ctx.ownerOf(domain);
    const pins = await this.#pinHosts(domain, owner);
    const [reply] = await exec.scripts(
      [
        {
          command: C['requeue-dead'],
          args: [keys.domain(domain), keys.root(domain), max, options.defaultConcurrency],
        },
      ],
      this.#index.calls(pins),
    );
    const r = asArray(reply, 'requeue-dead');
    const moved = Number(r[0]);
    const updates = hostUpdates(owner, domain, r, 1);
    const counters = new Counters(keys);
    counters.queued(domain, moved);
    counters.add('dead', -moved);
    counters.dead(domain, -moved);
    await this.#index.apply(updates, counters);
    return moved;
  }

  /** See `RedisFrontier.dropHost`. Runs drop-host-2.lua. */
  async dropHost(host: string, domain?: string): Promise<number> {
    checkName('host', host);
    const d = domain ?? domainKey(host);
    checkName('domain', d);
    const { keys, exec, options } = this.#ctx;
    const owner = this.#ctx.ownerOf(d);
    const seen = await this.#ctx.seenLayout();
    const r = asArray(
      await exec.script({
        command: C['drop-host'],
        args: [
          keys.domain(d),
          keys.root(d),
          host,
          options.defaultConcurrency,
          options.archiveIdleDomains ? keys.archive(d) : '',
          seen.bucketLoad,
          seen.inlineMax,
        ],
      }),
      'drop-host',
    );
    const removed = Number(r[0]) + Number(r[1]);
    const updates = new IndexBatch();
    updates.add(owner, dueMember(d, host), String(r[2]), String(r[3]));
    const counters = new Counters(keys);
    // A packed domain was unfolded to drop the host's queue: back in the domain indexes.
    if (String(r[4]) !== '') counters.revived(d, String(r[4]));
    counters.queued(d, -removed);
    counters.add('dropped', removed);
    await this.#index.apply(updates, counters);
    return removed;
  }

  /** Pins of every host of a domain in its owner's index (before a change that wakes them). */
  async #pinHosts(domain: string, owner: string): Promise<IndexBatch> {
    const pins = new IndexBatch();
    for (const host of await this.#inspector.domainHosts(domain)) {
      pins.pin(owner, dueMember(domain, host), false);
    }
    return pins;
  }
}
