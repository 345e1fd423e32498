/**
 * The frontier's integration suite, run once against a single redis-server and once
 * against a three-master Redis Cluster (see redis-frontier*.test.ts). Every test uses its
 * own key prefix and several connections; assertions read what Redis holds or what the
 * test itself logged, not the frontier's own counters (except where counters are the
 * subject).
 *
 * The tests live by topic in frontier-suite-*.ts; they all register under the one describe
 * here, so each test file starts its backend once (a cluster takes seconds to start).
 */

import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe } from 'vitest';
import { registerClaimTests } from './frontier-suite-claims.js';
import { frontierSuite } from './frontier-suite-context.js';
import { registerCounterTests } from './frontier-suite-counters.js';
import { registerDueIndexTests } from './frontier-suite-due-index.js';
import { registerEnqueueTests } from './frontier-suite-enqueue.js';
import { registerOutcomeTests } from './frontier-suite-outcomes.js';

export type Client = Redis | Cluster;

export interface SuiteBackend {
  /** A new connection (the suite closes it). */
  connect(): Client;
  stop(): Promise<void>;
}

/**
 * Starts the backend before the enclosing describe's tests and stops it after them, closing
 * every connection handed out; call inside `describe`. Returns the connection factory.
 */
export function suiteConnections(start: () => Promise<SuiteBackend>): () => Client {
  let backend: SuiteBackend;
  const clients: Client[] = [];
  beforeAll(async () => {
    backend = await start();
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await backend?.stop();
  });
  return () => {
    const c = backend.connect();
    clients.push(c);
    return c;
  };
}

export function describeFrontier(name: string, start: () => Promise<SuiteBackend>): void {
  describe(`RedisFrontier on ${name}`, () => {
    const suite = frontierSuite(suiteConnections(start));
    registerEnqueueTests(suite);
    registerClaimTests(suite);
    registerOutcomeTests(suite);
    registerDueIndexTests(suite);
    registerCounterTests(suite);
  });
}
