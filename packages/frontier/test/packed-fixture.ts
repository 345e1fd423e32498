/**
 * Setup shared by the packed-domain suites (packed-domains-suite.ts, packed-claims-suite.ts):
 * frontiers that pack from the first domain on (`packAfterDomains: 0`; its default keeps a
 * small crawl's domains live), and the loops their tests claim with.
 */

import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { readArchived } from '../src/domain-reads.js';
import {
  FrontierInspector,
  type FrontierOptions,
  type Lease,
  RedisFrontier,
} from '../src/index.js';
import { FrontierKeys } from '../src/keys.js';
import type { Client } from './frontier-suite.js';

export const PIN_MS = 60;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A due-index / backlog member. */
export const member = (domain: string, host = domain) => `${domain}/${host}`;

/** Every helper of a suite, on its backend's connections. */
export function packedFixture(connect: () => Client) {
  /**
   * A frontier packing from the first domain on, whose owner can be switched (`at.owner`),
   * with its keys and a standalone inspector; `prefix` shares another setup's keys.
   */
  const setup = (options: Partial<FrontierOptions> = {}, prefix?: string) => {
    const p = prefix ?? `p${randomUUID().slice(0, 8)}`;
    const at = { owner: 'pod-a' };
    // The frontier defines its scripts on this connection: tests call them on it directly.
    const redis = connect();
    const frontier = new RedisFrontier({
      redis,
      prefix: p,
      ownerOf: () => at.owner,
      defaultDelayMs: 0,
      pinMs: PIN_MS,
      packAfterDomains: 0,
      ...options,
    });
    const keys = new FrontierKeys(p, options.crawlId);
    const inspector = new FrontierInspector({
      redis: connect(),
      prefix: p,
      ...(options.crawlId ? { crawlId: options.crawlId } : {}),
    });
    return { redis, frontier, keys, inspector, prefix: p, at };
  };

  /** Whether the domain is packed: no counter hash, and its archive field holds queues. */
  const isPacked = async (redis: Client, keys: FrontierKeys, domain: string) => {
    if ((await redis.exists(keys.domain(domain))) === 1) return false;
    const archived = await readArchived(redis, keys, domain);
    return archived !== null && archived.queues.size > 0;
  };

  /**
   * Claims for `pod` until `want` leases came, completing each; sleeps while nothing is due.
   * Returns the leases in the order they were handed out.
   */
  const claimAll = async (
    frontier: RedisFrontier,
    pod: string,
    want: number,
    request: { max?: number; maxPerHost?: number } = {},
  ) => {
    const out: Lease[] = [];
    const deadline = Date.now() + 30_000;
    while (out.length < want) {
      if (Date.now() > deadline) throw new Error(`${pod} claimed ${out.length} of ${want}`);
      const { leases } = await frontier.claim({ pod, max: 100, ...request });
      if (leases.length === 0) {
        await sleep(10);
        continue;
      }
      out.push(...leases);
      const done = await frontier.completeMany(leases.map((lease) => ({ lease })));
      expect(done.every((e) => e === null)).toBe(true);
    }
    return out;
  };

  /**
   * Lets the pins lapse and claims until the pod's due index and backlog are empty (the
   * parking visits, which archive idle domains): nothing more is ever handed out.
   */
  const settleIdle = async (
    frontier: RedisFrontier,
    redis: Client,
    keys: FrontierKeys,
    pod = 'pod-a',
  ) => {
    for (let round = 0; round < 100; round++) {
      await sleep(PIN_MS + 40);
      expect((await frontier.claim({ pod, max: 1000 })).leases).toEqual([]);
      const left = (await redis.zcard(keys.due(pod))) + (await redis.llen(keys.backlog(pod)));
      if (left === 0) return;
    }
    throw new Error(`${pod}'s due index never emptied`);
  };
  return { setup, isPacked, claimAll, settleIdle };
}
