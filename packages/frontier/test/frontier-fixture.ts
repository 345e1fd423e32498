/**
 * One throwaway redis-server per test file and frontiers on it, each under its own key prefix:
 * registers the file's beforeAll/afterAll (call it inside the `describe`).
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { type FrontierOptions, RedisFrontier } from '../src/index.js';
import { FrontierKeys } from '../src/keys.js';

export interface FrontierFixture {
  /** A new client of the file's server (disconnected after the file). */
  connect(): Redis;
  /** A frontier owned by `pod-a`, default delay 0, on a new client; `prefix` defaults to a fresh one. */
  make(
    options?: Partial<FrontierOptions>,
    prefix?: string,
  ): { frontier: RedisFrontier; keys: FrontierKeys; prefix: string };
}

/**
 * `stem` starts every generated prefix (which file wrote a key, when looking at Redis);
 * `serverArgs` go to the server after the test harness's own (test/helpers/redis.ts);
 * `defaults` go to every frontier before the call's own options.
 */
export function frontierFixture(
  stem: string,
  serverArgs: string[] = [],
  defaults: Partial<FrontierOptions> = {},
): FrontierFixture {
  let server: RedisServer;
  const clients: Redis[] = [];
  beforeAll(async () => {
    server = await startRedis({ args: serverArgs });
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await server?.stop();
  });
  const connect = () => {
    const c = new Redis(server.port, server.host, { maxRetriesPerRequest: 3 });
    clients.push(c);
    return c;
  };
  const make = (
    options: Partial<FrontierOptions> = {},
    prefix = `${stem}${randomUUID().slice(0, 8)}`,
  ) => {
    const frontier = new RedisFrontier({
      redis: connect(),
      ownerOf: () => 'pod-a',
      prefix,
      defaultDelayMs: 0,
      ...defaults,
      ...options,
    });
    return { frontier, keys: new FrontierKeys(prefix, options.crawlId), prefix };
  };
  return { connect, make };
}

/**
 * For suites that read a live domain's keys and due-index entries right after an enqueue:
 * by default a new small domain is packed instead (`packNewDomains`), which
 * packed-domains-suite.ts covers.
 */
export const LIVE_LAYOUT: Partial<FrontierOptions> = { packNewDomains: false };
