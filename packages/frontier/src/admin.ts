/**
 * Operator controls that live with the domain (they survive restarts and handoffs):
 * pause/resume, per-host politeness overrides, and requeueing dead letters.
 */
import { domainKey } from '@shardline/url';
import { asArray, checkName } from './checks.js';
import { dueMember } from './codec.js';
import type { FrontierContext } from './context.js';
import { Counters } from './counters.js';
import { type DueIndex, IndexBatch } from './due-index.js';
import { FrontierArgumentError } from './errors.js';
import type { FrontierInspector } from './inspector.js';
import { SCRIPT_COMMANDS as C } from './scripts.js';
import type { HostPolicy } from './types.js';

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
    const reply = asArray(result, 'pause');
    const updates = new IndexBatch();
    for (let j = 0; j + 2 < reply.length; j += 3) {
      updates.add(
        owner,
        dueMember(domain, String(reply[j])),
        String(reply[j + 1]),
        String(reply[j + 2]),
      );
    }
    await this.#index.apply(updates);
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
        ],
      }),
      'set-policy',
    );
    const updates = new IndexBatch();
    updates.add(this.#ctx.ownerOf(d), dueMember(d, host), String(reply[0]), String(reply[1]));
    await this.#index.apply(updates);
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
    const updates = new IndexBatch();
    for (let j = 1; j + 2 < r.length; j += 3) {
      updates.add(owner, dueMember(domain, String(r[j])), String(r[j + 1]), String(r[j + 2]));
    }
    const counters = new Counters(keys);
    counters.queued(domain, moved);
    counters.add('dead', -moved);
    counters.dead(domain, -moved);
    await this.#index.apply(updates, counters);
    return moved;
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
