export { parseLeaseId } from './codec.js';
export {
  FrontierArgumentError,
  FrontierCapCode,
  FrontierError,
  FrontierErrorCode,
  FrontierOptionsError,
  FrontierRejectCode,
  FrontierReplyError,
  LeaseLostError,
  LeaseNotHeldError,
} from './errors.js';
export { FrontierKeys } from './keys.js';
export { FRONTIER_LUA_INCLUDES, type LoadedScript, luaScripts } from './lua-scripts.js';
export type { FrontierOptions } from './options.js';
export { RedisFrontier } from './redis-frontier.js';
export type {
  CanonicalizeOptions,
  ClaimRequest,
  ClaimResult,
  CompleteResult,
  CounterStats,
  DeadLetter,
  DomainCount,
  DomainPage,
  DomainSort,
  DomainStats,
  EnqueueItem,
  EnqueueReport,
  EnqueueResult,
  EnqueueStatus,
  FailOutcome,
  FailResult,
  FrontierReader,
  FrontierWriter,
  HostPolicy,
  Lease,
  LeaseRef,
  ReleaseOptions,
} from './types.js';
