/**
 * The pod's settings from the environment: every variable of the settings table
 * (`settings.ts`) plus the process settings (Redis, health port, log level). `main.ts` and
 * `shardline crawl` pass `process.env`; nothing else in the service reads the environment.
 * A malformed variable throws `SHARDLINE_ERR_CRAWLER_CONFIG` naming the variable and its value.
 */
import { CrawlerError, CrawlerErrorCode } from './errors.js';
import { PROCESS_SETTINGS } from './process-settings.js';
import { parseIntText, parseSettingText } from './setting-text.js';
import { type PodSettingOptions, podSettingRows } from './settings.js';

/** Pod options that can come from the environment: the settings (everything but live objects). */
export type EnvPodOptions = PodSettingOptions;

/** A Redis Cluster start-up node. */
export interface ClusterNode {
  host: string;
  port: number;
}

/** What {@link loadConfig} returns. */
export interface CrawlerConfig {
  /** `REDIS_URL`; absent means "start an embedded redis-server" (CLI) or an error (main). */
  redisUrl?: string;
  /**
   * `REDIS_CLUSTER_NODES` (comma-separated `host:port`; empty = unset): open an ioredis
   * `Cluster` on these start-up nodes instead of `REDIS_URL`.
   */
  redisClusterNodes?: ClusterNode[];
  /** `HEALTH_PORT`: serve `/healthz`, `/readyz`, `POST /drain` on 0.0.0.0:port; unset = off. */
  healthPort?: number;
  /** `LOG_LEVEL` (pino level). @default 'info' */
  logLevel: string;
  /** `REDIS_CONNECT_TIMEOUT_MS`: how long the first connection may take. @default 10000 */
  redisConnectTimeoutMs: number;
  pod: EnvPodOptions;
}

/** How long the first Redis connection may take by default. */
export const DEFAULT_REDIS_CONNECT_TIMEOUT_MS = 10_000;

const LOG_LEVEL = /^(fatal|error|warn|info|debug|trace|silent)$/;

/** The error of a malformed variable (or, for a name starting with `--`, flag). */
function bad(name: string, value: string, expected: string): CrawlerError {
  const what = name.startsWith('--') ? name : `environment variable ${name}`;
  return new CrawlerError(
    CrawlerErrorCode.CONFIG,
    `${what} must be ${expected}; got ${JSON.stringify(value)}`,
  );
}

/**
 * Reads the pod's settings from `env`. Unset (or empty) variables are left out, so the pod's
 * defaults apply. `EXIT_WHEN_IDLE` takes a boolean or a grace period in ms.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): CrawlerConfig {
  const pod: Record<string, unknown> = {};
  for (const [option, setting] of podSettingRows()) {
    const raw = env[setting.env];
    if (raw === undefined || raw.trim() === '') continue;
    pod[option] = parseSettingText(setting.kind, raw, (expected) =>
      bad(setting.env, raw, expected),
    );
  }
  const config: CrawlerConfig = {
    logLevel: 'info',
    redisConnectTimeoutMs: DEFAULT_REDIS_CONNECT_TIMEOUT_MS,
    pod: pod as EnvPodOptions,
  };
  const { redisUrl, redisClusterNodes, healthPort, logLevel, redisConnectTimeoutMs } =
    PROCESS_SETTINGS;
  const url = env[redisUrl.env]?.trim();
  if (url) {
    if (!/^rediss?:\/\//.test(url)) throw bad(redisUrl.env, url, 'a redis:// or rediss:// URL');
    config.redisUrl = url;
  }
  const nodes = env[redisClusterNodes.env]?.trim();
  if (nodes) config.redisClusterNodes = parseClusterNodes(nodes, redisClusterNodes.env);
  const health = env[healthPort.env]?.trim();
  if (health) {
    const port = parseIntText(health, (expected) => bad(healthPort.env, health, expected));
    if (port > 65535) throw bad(healthPort.env, health, 'a port number (0-65535)');
    config.healthPort = port;
  }
  const connect = env[redisConnectTimeoutMs.env]?.trim();
  if (connect) {
    const ms = parseIntText(connect, (expected) =>
      bad(redisConnectTimeoutMs.env, connect, expected),
    );
    if (ms < 1) throw bad(redisConnectTimeoutMs.env, connect, 'a positive number of ms');
    config.redisConnectTimeoutMs = ms;
  }
  const level = env[logLevel.env]?.trim();
  if (level) {
    if (!LOG_LEVEL.test(level)) {
      throw bad(logLevel.env, level, 'one of fatal, error, warn, info, debug, trace, silent');
    }
    config.logLevel = level;
  }
  return config;
}

/**
 * Parses `host:port,host:port…` (IPv6 hosts in brackets: `[::1]:7000`) into ioredis Cluster
 * start-up nodes; `name` is the variable or flag named in the error. With `defaultPort` a
 * bare `host` is allowed and gets that port (the CLI's read commands take `--redis-cluster
 * host`); without it every node needs its port.
 */
export function parseClusterNodes(
  raw: string,
  name: string,
  options: { defaultPort?: number } = {},
): ClusterNode[] {
  const expected = 'a comma list of host:port';
  const nodes = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((entry) => {
      const match = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+)(?::(\d{1,5}))?$/.exec(entry);
      const port = Number(match?.[2] ?? options.defaultPort);
      if (!match || !(port >= 1 && port <= 65535)) throw bad(name, raw, expected);
      return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
    });
  if (nodes.length === 0) throw bad(name, raw, expected);
  return nodes;
}
