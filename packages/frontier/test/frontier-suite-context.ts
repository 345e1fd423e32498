/**
 * What every topic of the frontier's integration suite (frontier-suite-*.ts) builds its tests
 * from: frontiers on the suite's backend, the key names to check what Redis holds, and claim
 * loops. One per backend, made by describeFrontier in frontier-suite.ts.
 */

import { randomUUID } from 'node:crypto';
import { expect, vi } from 'vitest';
import { type FrontierOptions, type Lease, RedisFrontier } from '../src/index.js';
import { FrontierKeys } from '../src/keys.js';
import { LIVE_LAYOUT } from './frontier-fixture.js';
import type { Client } from './frontier-suite.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Deterministic owner: pod-a or pod-b by a cheap hash of the domain. */
export function twoPods(domain: string): string {
  let h = 0;
  for (const c of domain) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h % 2 === 0 ? 'pod-a' : 'pod-b';
}

export type FrontierSuite = ReturnType<typeof frontierSuite>;

/** `connect` hands out connections to the suite's backend (see suiteConnections). */
export function frontierSuite(connect: () => Client) {
  // The key names of each frontier the suite made, to check what Redis holds.
  const keys = new WeakMap<RedisFrontier, FrontierKeys>();
  const keysOf = (f: RedisFrontier) => keys.get(f)!;
  /** A frontier on a fresh connection, with a fresh prefix unless one is given. */
  const make = (options: Partial<FrontierOptions> = {}, prefix?: string, redis?: Client) => {
    const p = prefix ?? `t${randomUUID().slice(0, 8)}`;
    const f = new RedisFrontier({
      redis: redis ?? connect(),
      ownerOf: () => 'pod-a',
      prefix: p,
      defaultDelayMs: 0,
      ...LIVE_LAYOUT,
      ...options,
    });
    keys.set(f, new FrontierKeys(options.prefix ?? p));
    return f;
  };

  /** Claims until `done()`, sleeping until the next due time when idle. */
  async function claimLoop(
    f: RedisFrontier,
    pod: string,
    onLease: (lease: Lease) => Promise<void>,
    done: () => boolean,
    max = 4,
    deadline = Date.now() + 100_000,
  ) {
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`claimer ${pod} timed out`);
      const { leases, nextDueAtMs, nowMs } = await f.claim({ pod, max });
      await Promise.all(leases.map(onLease));
      if (leases.length === 0) {
        const wait = nextDueAtMs === null ? 20 : Math.min(20, Math.max(1, nextDueAtMs - nowMs));
        await sleep(wait);
      }
    }
  }

  /** The next lease `pod` claims, claiming again until a host's gate lets one out. */
  const claimNext = (f: RedisFrontier, timeout = 5000, interval = 10) =>
    vi.waitFor(
      async () => {
        const [lease] = (await f.claim({ pod: 'pod-a' })).leases;
        expect(lease).toBeDefined();
        return lease!;
      },
      { timeout, interval },
    );

  return { connect, make, keysOf, claimLoop, claimNext };
}
