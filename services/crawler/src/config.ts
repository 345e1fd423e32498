/**
 * The pod's settings from the environment — the only file of the service that reads
 * `process.env`. Every variable is validated; a bad one throws `SHARDLINE_ERR_CRAWLER_CONFIG`
 * naming the variable and its value. The CLI maps its flags onto the same options object.
 */

import { CrawlerError, CrawlerErrorCode } from './errors.js';
import type { CrawlerPodOptions } from './pod-options.js';

/** Pod options that can come from the environment (everything but live objects). */
export type EnvPodOptions = Omit<
  CrawlerPodOptions,
  'redis' | 'subscriber' | 'assignment' | 'logger'
>;

/** What {@link loadConfig} returns. */
export interface CrawlerConfig {
  /** `REDIS_URL`; absent means "start an embedded redis-server" (CLI) or an error (main). */
  redisUrl?: string;
  /**
   * `REDIS_CLUSTER_NODES` (comma-separated `host:port`; empty = unset): open an ioredis
   * `Cluster` on these start-up nodes instead of `REDIS_URL`.
   */
  redisClusterNodes?: { host: string; port: number }[];
  /** `HEALTH_PORT`: serve `/healthz`, `/readyz`, `POST /drain` on 0.0.0.0:port; unset = off. */
  healthPort?: number;
  /** `LOG_LEVEL` (pino level). @default 'info' */
  logLevel: string;
  pod: EnvPodOptions;
}

/** The variables, their option, and their type (also the README table). */
export const ENV_VARIABLES = {
  POD_ID: 'podId',
  POD_WEIGHT: 'podWeight',
  SESSION_TIMEOUT_MS: 'sessionTimeoutMs',
  RING_VNODES: 'ringVnodes',
  RING_SEED: 'ringSeed',
  KEY_PREFIX: 'prefix',
  CONCURRENCY: 'concurrency',
  PER_HOST_CONCURRENCY: 'perHostConcurrency',
  MIN_DELAY_MS: 'minDelayMs',
  MAX_CRAWL_DELAY_MS: 'maxCrawlDelayMs',
  ROBOTS_RETRY_MS: 'robotsRetryMs',
  ROBOTS_MAX_RETRIES: 'robotsMaxRetries',
  ADAPTIVE_DELAY_FACTOR: 'adaptiveDelayFactor',
  MAX_DELAY_MS: 'maxDelayMs',
  USER_AGENT: 'userAgentToken',
  CONTACT_URL: 'contactUrl',
  RESOLVE: 'resolve',
  ALLOW_PRIVATE_ADDRESSES: 'allowPrivateAddresses',
  MAX_DEPTH: 'maxDepth',
  SAME_DOMAIN_ONLY: 'sameDomainOnly',
  ALLOW_DOMAINS: 'allowDomains',
  DENY_PATTERNS: 'denyPatterns',
  MAX_PAGES_PER_DOMAIN: 'maxPagesPerDomain',
  MAX_LINKS_PER_PAGE: 'maxLinksPerPage',
  MAX_BODY_BYTES: 'maxBodyBytes',
  FETCH_TIMEOUT_MS: 'fetchTimeoutMs',
  HEADERS_TIMEOUT_MS: 'headersTimeoutMs',
  BODY_TIMEOUT_MS: 'bodyTimeoutMs',
  CONNECT_TIMEOUT_MS: 'connectTimeoutMs',
  LEASE_TIMEOUT_MS: 'leaseTimeoutMs',
  HEARTBEAT_INTERVAL_MS: 'heartbeatIntervalMs',
  MAX_RETRIES: 'maxRetries',
  BACKOFF_BASE_MS: 'backoffBaseMs',
  BACKOFF_MAX_MS: 'backoffMaxMs',
  ENQUEUE_SITEMAPS: 'enqueueSitemaps',
  RESULTS_STREAM: 'resultsStreamKey',
  RESULTS_MAX_LEN: 'resultsMaxLen',
  RESULTS_JSONL: 'resultsJsonl',
  EXIT_WHEN_IDLE: 'exitWhenIdle',
  STOP_GRACE_MS: 'stopGraceMs',
} as const satisfies Record<string, keyof EnvPodOptions>;

type Kind = 'int' | 'number' | 'bool' | 'string' | 'list' | 'exit';

const KINDS: Record<keyof typeof ENV_VARIABLES, Kind> = {
  POD_ID: 'string',
  POD_WEIGHT: 'number',
  SESSION_TIMEOUT_MS: 'int',
  RING_VNODES: 'int',
  RING_SEED: 'int',
  KEY_PREFIX: 'string',
  CONCURRENCY: 'int',
  PER_HOST_CONCURRENCY: 'int',
  MIN_DELAY_MS: 'int',
  MAX_CRAWL_DELAY_MS: 'int',
  ROBOTS_RETRY_MS: 'int',
  ROBOTS_MAX_RETRIES: 'int',
  ADAPTIVE_DELAY_FACTOR: 'number',
  MAX_DELAY_MS: 'int',
  USER_AGENT: 'string',
  CONTACT_URL: 'string',
  RESOLVE: 'list',
  ALLOW_PRIVATE_ADDRESSES: 'bool',
  MAX_DEPTH: 'int',
  SAME_DOMAIN_ONLY: 'bool',
  ALLOW_DOMAINS: 'list',
  DENY_PATTERNS: 'list',
  MAX_PAGES_PER_DOMAIN: 'int',
  MAX_LINKS_PER_PAGE: 'int',
  MAX_BODY_BYTES: 'int',
  FETCH_TIMEOUT_MS: 'int',
  HEADERS_TIMEOUT_MS: 'int',
  BODY_TIMEOUT_MS: 'int',
  CONNECT_TIMEOUT_MS: 'int',
  LEASE_TIMEOUT_MS: 'int',
  HEARTBEAT_INTERVAL_MS: 'int',
  MAX_RETRIES: 'int',
  BACKOFF_BASE_MS: 'int',
  BACKOFF_MAX_MS: 'int',
  ENQUEUE_SITEMAPS: 'bool',
  RESULTS_STREAM: 'string',
  RESULTS_MAX_LEN: 'int',
  RESULTS_JSONL: 'string',
  EXIT_WHEN_IDLE: 'exit',
  STOP_GRACE_MS: 'int',
};

function bad(name: string, value: string, expected: string): CrawlerError {
  return new CrawlerError(
    CrawlerErrorCode.CONFIG,
    `environment variable ${name} must be ${expected}; got ${JSON.stringify(value)}`,
  );
}

/** Parses one variable's text (exported for the CLI, which reads flags as text too). */
export function parseSetting(name: string, kind: Kind, raw: string): unknown {
  const value = raw.trim();
  switch (kind) {
    case 'int': {
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
        throw bad(name, raw, 'a non-negative integer');
      }
      return Number(value);
    }
    case 'number': {
      const n = Number(value);
      if (value === '' || !Number.isFinite(n) || n < 0) throw bad(name, raw, 'a number ≥ 0');
      return n;
    }
    case 'bool': {
      if (/^(1|true|yes|on)$/i.test(value)) return true;
      if (/^(0|false|no|off)$/i.test(value)) return false;
      throw bad(name, raw, 'true/false (1/0, yes/no, on/off)');
    }
    case 'string': {
      if (value === '') throw bad(name, raw, 'a non-empty string');
      return value;
    }
    case 'list':
      return value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    case 'exit': {
      if (/^\d+$/.test(value)) return { graceMs: Number(value) };
      return parseSetting(name, 'bool', raw);
    }
  }
}

/**
 * Reads the pod's settings from `env`. Unset (or empty) variables are left out, so the pod's
 * defaults apply. `EXIT_WHEN_IDLE` takes a boolean or a grace period in ms.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): CrawlerConfig {
  const pod: Record<string, unknown> = {};
  for (const [name, option] of Object.entries(ENV_VARIABLES)) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') continue;
    pod[option] = parseSetting(name, KINDS[name as keyof typeof ENV_VARIABLES], raw);
  }
  const config: CrawlerConfig = { logLevel: 'info', pod: pod as EnvPodOptions };
  const url = env.REDIS_URL?.trim();
  if (url) {
    if (!/^rediss?:\/\//.test(url)) throw bad('REDIS_URL', url, 'a redis:// or rediss:// URL');
    config.redisUrl = url;
  }
  const nodes = env.REDIS_CLUSTER_NODES?.trim();
  if (nodes) config.redisClusterNodes = parseClusterNodes(nodes, 'REDIS_CLUSTER_NODES');
  const health = env.HEALTH_PORT?.trim();
  if (health) {
    const port = parseSetting('HEALTH_PORT', 'int', health) as number;
    if (port > 65535) throw bad('HEALTH_PORT', health, 'a port number (0-65535)');
    config.healthPort = port;
  }
  const level = env.LOG_LEVEL?.trim();
  if (level) {
    if (!/^(fatal|error|warn|info|debug|trace|silent)$/.test(level)) {
      throw bad('LOG_LEVEL', level, 'one of fatal, error, warn, info, debug, trace, silent');
    }
    config.logLevel = level;
  }
  return config;
}

/**
 * Parses `host:port,host:port…` (IPv6 hosts in brackets: `[::1]:7000`) into ioredis Cluster
 * start-up nodes; `name` is the variable or flag named in the error.
 */
export function parseClusterNodes(raw: string, name: string): { host: string; port: number }[] {
  const nodes = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((entry) => {
      const match = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+):(\d{1,5})$/.exec(entry);
      const port = Number(match?.[2]);
      if (!match || port < 1 || port > 65535) throw bad(name, raw, 'a comma list of host:port');
      return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
    });
  if (nodes.length === 0) throw bad(name, raw, 'a comma list of host:port');
  return nodes;
}
