/**
 * The URLFrontier v2 service definition (`proto/urlfrontier.proto`, the published API copied
 * field for field) loaded with `@grpc/proto-loader`, and TypeScript shapes of its messages as
 * the loader decodes them: field names as in the .proto (`keepCase`), 64-bit integers as
 * numbers, enums as their names, defaults filled in, the set member of a `oneof` named.
 */
import { fileURLToPath } from 'node:url';
import {
  type GrpcObject,
  loadPackageDefinition,
  type ServiceClientConstructor,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

/** `proto/urlfrontier.proto`, beside `src/` and `dist/` alike. */
export const PROTO_PATH = fileURLToPath(new URL('../proto/urlfrontier.proto', import.meta.url));

/** How messages are decoded; clients in tests and benches load the file the same way. */
export const LOADER_OPTIONS = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
} as const;

/** The `urlfrontier.URLFrontier` service constructor (its `.service` is the definition). */
export function loadUrlFrontierService(): ServiceClientConstructor {
  const pkg = loadPackageDefinition(loadSync(PROTO_PATH, LOADER_OPTIONS));
  return (pkg.urlfrontier as GrpcObject).URLFrontier as ServiceClientConstructor;
}

export interface StringList {
  values: string[];
}

export interface URLInfo {
  url: string;
  key: string;
  metadata: Record<string, StringList>;
  crawlID: string;
}

export interface URLItem {
  discovered?: { info: URLInfo | null } | null;
  known?: { info: URLInfo | null; refetchable_from_date: number } | null;
  /** Which member of the `item` oneof is set. */
  item?: 'discovered' | 'known';
  ID: string;
  creation_date: number;
}

export type AckStatus = 'OK' | 'SKIPPED' | 'FAIL';

export interface AckMessage {
  ID: string;
  status: AckStatus;
}

export interface GetParams {
  max_urls_per_queue: number;
  max_queues: number;
  key: string;
  delay_requestable: number;
  anyCrawlID?: object | null;
  crawlID?: string;
  item?: 'anyCrawlID' | 'crawlID';
}

export interface Stats {
  size: number;
  inProcess: number;
  counts: Record<string, number>;
  numberOfQueues: number;
  crawlID: string;
}

export interface Pagination {
  start: number;
  size: number;
  include_inactive: boolean;
  crawlID: string;
  local: boolean;
}

export interface QueueList {
  values: string[];
  total: number;
  start: number;
  size: number;
  crawlID: string;
}

export interface QueueWithinCrawlParams {
  key: string;
  crawlID: string;
  local: boolean;
}

export interface QueueDelayParams {
  key: string;
  delay_requestable: number;
  crawlID: string;
  local: boolean;
}

export interface BlockQueueParams {
  key: string;
  time: number;
  crawlID: string;
  local: boolean;
}

export interface CrawlLimitParams {
  key: string;
  limit: number;
  crawlID: string;
}

export interface URLStatusRequest {
  url: string;
  key: string;
  crawlID: string;
}

export interface CountUrlParams {
  key: string;
  crawlID: string;
  filter?: string;
  ignoreCase?: boolean;
  local?: boolean;
}

export interface LogLevelParams {
  package: string;
  level: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  local: boolean;
}

export interface DeleteCrawlMessage {
  value: string;
  local: boolean;
}

export interface ListUrlParams {
  start: number;
  size: number;
  key: string;
  crawlID: string;
  local: boolean;
  filter?: string;
  ignoreCase?: boolean;
}
