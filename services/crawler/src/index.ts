export type { ArchiveStats } from './archive/pod-archive.js';
export {
  type ClusterNode,
  type CrawlerConfig,
  type EnvPodOptions,
  loadConfig,
  parseClusterNodes,
} from './config.js';
export {
  CONFIG_FILE_ENV,
  CONFIG_FILE_NAMES,
  type ConfigFile,
  configFileKeys,
  findConfigFile,
  readConfigFile,
} from './config-file.js';
export { decodeBody } from './content.js';
export { CrawlerPod } from './crawler-pod.js';
export { DURATION_FORMS, parseBudget, parseDuration } from './duration.js';
export {
  CrawlerError,
  CrawlerErrorCode,
  CrawlOutcomeCode,
  FetchErrorCode,
} from './errors.js';
export type {
  FetchOptions,
  FetchOutcome,
  FetchTimings,
  RawResponseHead,
} from './fetch-types.js';
export { Fetcher, type FetcherOptions } from './fetcher.js';
export { decodeItem, encodeItem, type ItemRecord } from './handlers/items.js';
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
export { PROCESS_SETTINGS, type ProcessSetting } from './process-settings.js';
export { createRedisClient, type RedisTarget } from './redis-client.js';
export {
  type CrawlOutcome,
  type CrawlResult,
  decodeResult,
  encodeResult,
  ResultSink,
  type ResultSinkOptions,
} from './results.js';
export { RedisRobotsCache, type RedisRobotsCacheOptions } from './robots-cache.js';
export {
  type RobotsCacheRecord,
  RobotsLoader,
  type RobotsLoaderOptions,
  type RobotsSharedCache,
} from './robots-loader.js';
export { type RunPodOptions, runPod } from './run-pod.js';
export { type GatePass, SendGate, type SendGateOptions } from './send-gate.js';
export {
  defaultText,
  type Setting,
  type SettingKind,
  type SettingValue,
} from './setting-kinds.js';
export {
  parseIntText,
  parseSettingText,
  type SettingTextError,
  splitList,
} from './setting-text.js';
export {
  POD_SETTINGS,
  type PodSettingName,
  type PodSettingOptions,
  type PodSettings,
  podSettingRows,
} from './settings.js';
export { resolvePodSettings } from './settings-resolve.js';
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
