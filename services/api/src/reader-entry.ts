/**
 * `@shardline/api/reader`: what the `shardline` command reads the frontier with (the stats
 * reader, the cluster views and ring, the errors), without the HTTP server, the dashboard and
 * the schemas; `startApi` comes from the package root when a command serves the API.
 */
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
export {
  DOMAIN_SORTS,
  type DomainRow,
  type DomainSampleInfo,
  type DomainSort,
  type PodView,
  StatsReader,
} from './stats-reader.js';
