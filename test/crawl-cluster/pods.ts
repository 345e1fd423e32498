/**
 * Pods for the cluster crawl test: each in-process pod gets its own ioredis `Cluster` client
 * (as `createRedisClient` builds it for REDIS_CLUSTER_NODES) and its own contact URL, so the
 * test web's log tells the pods apart by User-Agent.
 */
import { CrawlerPod, createRedisClient } from '@shardline/crawler';
import type { Cluster, Redis } from 'ioredis';
import { pino } from 'pino';

/** What every pod of one crawl shares. */
export interface PodSetup {
  /** Cluster start-up nodes. */
  nodes: readonly { host: string; port: number }[];
  /** Every client opened is pushed here (the test closes them in afterAll). */
  clients: (Redis | Cluster)[];
  prefix: string;
  resolve: string[];
  minDelayMs: number;
  maxRetries: number;
  robotsRetryMs: number;
  robotsMaxRetries: number;
}

/** A new Cluster client, tracked for clean-up. */
export function newClusterClient(setup: PodSetup): Redis | Cluster {
  const redis = createRedisClient({ clusterNodes: setup.nodes });
  setup.clients.push(redis);
  return redis;
}

/**
 * A pod on its own Cluster connection with the small timings of crawl.test.ts. It exits when
 * the whole frontier is idle unless `exitWhenIdle: false` (a pod the test stops itself).
 */
export function newClusterPod(
  id: string,
  setup: PodSetup,
  extra: { exitWhenIdle?: boolean } = {},
): CrawlerPod {
  return new CrawlerPod({
    redis: newClusterClient(setup),
    podId: id,
    prefix: setup.prefix,
    concurrency: 64,
    minDelayMs: setup.minDelayMs,
    perHostConcurrency: 1,
    resolve: setup.resolve,
    allowPrivateAddresses: false,
    maxBodyBytes: 1024 * 1024,
    // Far above an event-loop stall of a loaded machine: a robots.txt answered in time must
    // not count as unreachable. Under three CPU hogs a request reached the in-process server
    // ~4 s after its lease began and a 3 s timeout fired before its answer was read (the
    // timers phase runs before the poll that holds the answer). robots-timeout hosts drop
    // the socket at 1.5 s either way, so no host needs this timeout to fire.
    headersTimeoutMs: 15_000,
    maxRetries: setup.maxRetries,
    robotsRetryMs: setup.robotsRetryMs,
    robotsMaxRetries: setup.robotsMaxRetries,
    backoffBaseMs: 200,
    backoffMaxMs: 1000,
    // The server log names the sender of every request through this.
    contactUrl: `https://${id}.example/bot`,
    exitWhenIdle: extra.exitWhenIdle === false ? false : { graceMs: 1000 },
    stopGraceMs: 10_000,
    logger: pino({ level: 'silent' }),
  });
}
