export { MAX_CLAIM_LEAD_MS } from './claims.js';
export { MAX_FAIL_MESSAGE, parseLeaseId } from './codec.js';
export type { BackgroundErrorCounts } from './context.js';
export { CRAWL_ID, crawlKeyPrefix, DEFAULT_CRAWL, isCrawlId } from './crawl-id.js';
export {
  type CrawlDeleteOptions,
  type CrawlDeleteProgress,
  type CrawlInfo,
  CrawlRegistry,
  type CrawlRegistryOptions,
} from './crawls.js';
export {
  CrawlDeletingError,
  FrontierArgumentError,
  FrontierCapCode,
  FrontierError,
  FrontierErrorCode,
  FrontierLostError,
  FrontierOptionsError,
  FrontierRejectCode,
  FrontierReplyError,
  isOomReply,
  LeaseLostError,
  LeaseNotHeldError,
  RedisOomError,
} from './errors.js';
export type { ScriptMode } from './function-loader.js';
export type { FrontierLostRecord } from './identity.js';
export { FrontierInspector } from './inspector.js';
export { listenFailure } from './listen-failure.js';
export { FRONTIER_LUA_INCLUDES, type LoadedScript, luaScripts } from './lua-scripts.js';
export { notRedisReason, redisErrorCause } from './not-redis.js';
export type {
  BackgroundOperation,
  FrontierInspectorOptions,
  FrontierOptions,
} from './options.js';
export {
  DEFAULT_MAX_PRIORITY,
  DEFAULT_PREFIX,
  isKeyPrefix,
  KEY_PREFIX_RULE,
  MAX_REFETCH_MS,
} from './options.js';
export {
  PLAIN_PROBE_AFTER_MS,
  PLAIN_REDIS_HINT,
  pingReply,
  plainRedisAnswers,
  tlsRedisAddress,
  watchForPlainRedis,
} from './plain-redis.js';
export type {
  CounterStats,
  DeadLetter,
  DeadLetterDomainPage,
  DomainCount,
  DomainPage,
  DomainSort,
  DomainStats,
  DueEntry,
  DueHost,
  HeldLease,
  HostState,
  QueuedUrl,
  UrlState,
  UrlStatus,
} from './read-types.js';
export { RedisFrontier } from './redis-frontier.js';
export { type RedisLocation, redisLabel } from './redis-label.js';
export {
  HASH_MAX_LISTPACK_ENTRIES,
  HASH_MAX_LISTPACK_VALUE,
  hashListpackEntriesShortfall,
  hashListpackShortfall,
  SET_MAX_INTSET_ENTRIES,
  type SettingShortfall,
} from './redis-settings.js';
export type {
  BlockTarget,
  CanonicalizeOptions,
  ClaimRequest,
  ClaimResult,
  CompleteResult,
  EnqueueItem,
  EnqueueReport,
  EnqueueResult,
  EnqueueStatus,
  FailOutcome,
  FailResult,
  HostPolicy,
  Lease,
  LeaseRef,
  ReleaseOptions,
  Validators,
} from './types.js';
