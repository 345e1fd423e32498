import type { RedisFrontier } from '@shardline/frontier';
import type { FastifyRequest } from 'fastify';
import type { Cluster, Redis } from 'ioredis';
import type { ClusterRing } from './cluster-ring.js';
import type { CrawlReaders } from './crawls.js';
import type { ApiMetrics } from './metrics.js';
import type { StatsReader } from './stats-reader.js';

/** What the route modules share. */
export interface RouteContext {
  redis: Redis | Cluster;
  frontier: RedisFrontier;
  cluster: ClusterRing;
  /** The default crawl's reader (the server's frontier and ring). */
  reader: StatsReader;
  /** The reader of any crawl (`?crawl=`); the default crawl's is {@link reader}. */
  readers: CrawlReaders;
  /** The frontier's key prefix (the crawl registry). */
  prefix: string;
  metrics: ApiMetrics;
  /** `onRequest` hook of mutating routes. */
  guard: (request: FastifyRequest) => Promise<void>;
  maxSeedItems: number;
  readyTimeoutMs: number;
  /** The dashboard's files by path (`/`, `/dashboard.js`, …): body and content type. */
  dashboard: Map<string, { body: string; type: string }>;
  /** Reads a host's robots.txt record from the shared cache (domain page); optional. */
  robots: ((origin: string) => Promise<object | undefined>) | undefined;
}

/** OpenAPI security requirement of mutating routes. */
export const BEARER = [{ bearerAuth: [] }];
