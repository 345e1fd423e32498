/**
 * Integration suite of Membership with a real RedisFrontier, run on a single
 * redis-server (membership.test.ts) and on a three-master Cluster
 * (membership.cluster.test.ts). Assertions read what Redis holds.
 *
 * The tests live by topic in membership-suite-*.ts; they all register under the one describe
 * here, so each test file starts its backend once (a cluster takes seconds to start).
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { type Client, Fleet } from './harness.js';
import type { FleetArgs } from './membership-suite-context.js';
import { registerFailureTests } from './membership-suite-failures.js';
import { registerRingChangeTests } from './membership-suite-ring-changes.js';
import { registerSweepTests } from './membership-suite-sweep.js';

export interface SuiteBackend {
  connect(): Client;
  stop(): Promise<void>;
}

export function describeMembership(name: string, start: () => Promise<SuiteBackend>): void {
  describe(`Membership on ${name}`, () => {
    let backend: SuiteBackend;
    const fleets: Fleet[] = [];
    const fleet = (...args: FleetArgs) => {
      const f = new Fleet(() => backend.connect(), ...args);
      fleets.push(f);
      return f;
    };

    beforeAll(async () => {
      backend = await start();
    });
    afterAll(async () => {
      for (const f of fleets) await f.close();
      await backend?.stop();
    });

    registerRingChangeTests({ fleet });
    registerFailureTests({ fleet });
    registerSweepTests({ fleet });
  });
}
