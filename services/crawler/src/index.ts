export type { ArchiveStats } from './archive/pod-archive.js';
export { decodeBody } from './content.js';
export { CrawlerPod } from './crawler-pod.js';
export type {
  FetchOptions,
  FetchOutcome,
  FetchTimings,
  RawResponseHead,
} from './fetch-types.js';
export { Fetcher, type FetcherOptions } from './fetcher.js';
export { decodeItem, encodeItem, type ItemRecord } from './handlers/items.js';
export { loadHandler } from './handlers/load-handler.js';
export {
  type EnqueueOptions,
  type HandlerContext,
  Page,
  type PageHandler,
} from './handlers/page-api.js';
export {
  HealthServer,
  type HealthServerOptions,
  isLoopback,
  servePodHealth,
} from './health-server.js';
export { extractLinks, LinkExtractor, LinkScope, type ScopeDecision } from './links.js';
export type { CrawlerPodOptions, PodLiveOptions, PodStats } from './pod-options.js';
export {
  createRedisClient,
  openPodRedis,
  type PodRedis,
  type RedisTarget,
  waitForRedis,
} from './redis-client.js';
export {
  type CrawlOutcome,
  type CrawlResult,
  decodeResult,
  encodeResult,
  ResultSink,
  type ResultSinkOptions,
} from './results.js';
export type { RobotsCacheRecord, RobotsSharedCache } from './robots-cache-record.js';
export { RobotsLoader } from './robots-loader.js';
export type { RobotsLoaderOptions } from './robots-loader-options.js';
export { type RunPodOptions, runPod } from './run-pod.js';
export { type GatePass, SendGate, type SendGateOptions } from './send-gate.js';
// Also `@shardline/crawler/settings`, the CLI's light entry: one list of these exports.
export * from './settings-entry.js';
export {
  isGzip,
  parseSitemap,
  readSitemap,
  SITEMAP_MAX_BYTES,
  SITEMAP_MAX_URLS,
  type SitemapRead,
  type SitemapReadOptions,
} from './sitemap.js';
export { WorkLoop, type WorkLoopOptions } from './work-loop.js';
