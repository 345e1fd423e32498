export {
  ClusterRing,
  type ClusterRingOptions,
  type ClusterSnapshot,
  type RingArc,
} from './cluster-ring.js';
export {
  type ClusterMember,
  type ClusterState,
  type ClusterView,
  FrontierPodsClusterView,
  type MembershipSource,
  RegistryClusterView,
  type RingParams,
  StaticClusterView,
} from './cluster-view.js';
export { type ApiConfig, loadApiConfig } from './config.js';
export {
  type CrawlDeleteRefusal,
  CrawlDeleteRefusedError,
  deleteCrawlKeys,
  startCrawlDelete,
} from './crawl-delete.js';
export { CrawlReaders, type CrawlSummary, listCrawls, MAX_CRAWLS_LISTED } from './crawls.js';
export {
  ApiConfigError,
  ApiError,
  ApiErrorCode,
  ApiOptionsError,
  type ErrorDetail,
  HttpError,
} from './errors.js';
export type { RedisLocator } from './following-connector.js';
export { type RunningApi, type StartApiExtras, startApi } from './main.js';
export { type ApiServerOptions, createApiServer } from './server.js';
export {
  DOMAIN_SORTS,
  type DomainRow,
  type DomainSampleInfo,
  type DomainSort,
  type PodView,
  StatsReader,
} from './stats-reader.js';
