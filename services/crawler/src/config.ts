/**
 * The pod's settings from the environment: every variable of the settings table
 * (`settings.ts`) plus the process settings (Redis, health port, log level). `main.ts` and
 * `shardline crawl` pass `process.env`; nothing else in the service reads the environment.
 * A malformed variable throws `SHARDLINE_ERR_CRAWLER_CONFIG` naming the variable and its value.
 */
import { type ConfigFile, configFileError } from './config-file.js';
import { CrawlerError, CrawlerErrorCode } from './errors.js';
import { PROCESS_SETTINGS } from './process-settings.js';
import { parseIntText, parseSettingText } from './setting-text.js';
import { type PodSettingOptions, podSettingRows } from './settings.js';
import { resolvePodSettings } from './settings-resolve.js';

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

/** The error of a malformed variable (or, for a name starting with `--`, flag). */
function bad(name: string, value: string, expected: string): CrawlerError {
  const what = name.startsWith('--') ? name : `environment variable ${name}`;
  return new CrawlerError(
    CrawlerErrorCode.CONFIG,
    `${what} must be ${expected}; got ${JSON.stringify(value)}`,
  );
}

/** Where one layer of settings is read from: the environment or a config file. */
interface Layer {
  /** The text (or, from a file, list) of a setting; `undefined` when unset. */
  get(option: string, env: string): string | string[] | undefined;
  /** The error of a malformed value. */
  bad(option: string, env: string, value: string, expected: string): CrawlerError;
}

function envLayer(env: NodeJS.ProcessEnv): Layer {
  return {
    get: (_option, name) => (env[name]?.trim() ? env[name] : undefined),
    bad: (_option, name, value, expected) => bad(name, value, expected),
  };
}

function fileLayer(file: ConfigFile): Layer {
  return {
    get: (option) => file.values.get(option),
    bad: (option, _env, value, expected) =>
      configFileError(file.path, option, `must be ${expected}; got ${JSON.stringify(value)}`),
  };
}

/**
 * Reads the pod's settings from `env`, over those of the config `file` if given (flags, the
 * caller's, beat both). Unset (or empty) values are left out, so the pod's defaults apply.
 * `EXIT_WHEN_IDLE` takes a boolean or a grace period in ms. A file value is also checked against
 * the pod's bounds here, so its error names the file.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, file?: ConfigFile): CrawlerConfig {
  const fromEnv = readLayer(envLayer(env));
  if (!file) return fromEnv;
  const fromFile = readLayer(fileLayer(file));
  checkBounds(fromFile.pod, file);
  return {
    ...fromFile,
    ...Object.fromEntries(Object.entries(fromEnv).filter(([, value]) => value !== undefined)),
    logLevel: env[PROCESS_SETTINGS.logLevel.env]?.trim() ? fromEnv.logLevel : fromFile.logLevel,
    redisConnectTimeoutMs: env[PROCESS_SETTINGS.redisConnectTimeoutMs.env]?.trim()
      ? fromEnv.redisConnectTimeoutMs
      : fromFile.redisConnectTimeoutMs,
    pod: { ...fromFile.pod, ...fromEnv.pod },
  };
}

/** The pod's own validation of the file's settings, its error turned into the file's. */
function checkBounds(pod: EnvPodOptions, file: ConfigFile): void {
  try {
    resolvePodSettings(pod);
  } catch (error) {
    if (!(error instanceof CrawlerError) || error.code !== CrawlerErrorCode.INVALID_OPTION) {
      throw error;
    }
    const key = Object.keys(pod).find((name) => error.message.includes(`.${name} `));
    throw configFileError(file.path, key, error.message.replace(/^\S+ /, ''));
  }
}

function readLayer(layer: Layer): CrawlerConfig {
  const pod: Record<string, unknown> = {};
  for (const [option, setting] of podSettingRows()) {
    const raw = layer.get(option, setting.env);
    if (raw === undefined) continue;
    const text = Array.isArray(raw) ? raw.join(',') : raw;
    const fail = (expected: string) => layer.bad(option, setting.env, text, expected);
    if (Array.isArray(raw) && (setting.kind === 'list' || setting.kind === 'patterns')) {
      pod[option] = raw.map((item) => item.trim()).filter((item) => item !== '');
    } else {
      pod[option] = parseSettingText(setting.kind, text, fail);
    }
  }
  const config: CrawlerConfig = {
    logLevel: 'info',
    redisConnectTimeoutMs: DEFAULT_REDIS_CONNECT_TIMEOUT_MS,
    pod: pod as EnvPodOptions,
  };
  const processText = (option: keyof typeof PROCESS_SETTINGS) => {
    const raw = layer.get(option, PROCESS_SETTINGS[option].env);
    const text = (Array.isArray(raw) ? raw.join(',') : raw)?.trim();
    const fail = (expected: string) =>
      layer.bad(option, PROCESS_SETTINGS[option].env, text ?? '', expected);
    return { text: text || undefined, fail };
  };
  const url = processText('redisUrl');
  if (url.text) {
    if (!/^rediss?:\/\//.test(url.text)) throw url.fail('a redis:// or rediss:// URL');
    config.redisUrl = url.text;
  }
  const nodes = processText('redisClusterNodes');
  if (nodes.text) {
    try {
      config.redisClusterNodes = parseClusterNodes(nodes.text, 'nodes');
    } catch {
      throw nodes.fail('a comma list of host:port');
    }
  }
  const health = processText('healthPort');
  if (health.text) {
    const port = parseIntText(health.text, health.fail);
    if (port > 65535) throw health.fail('a port number (0-65535)');
    config.healthPort = port;
  }
  const connect = processText('redisConnectTimeoutMs');
  if (connect.text) {
    const ms = parseIntText(connect.text, connect.fail);
    if (ms < 1) throw connect.fail('a positive number of ms');
    config.redisConnectTimeoutMs = ms;
  }
  const level = processText('logLevel');
  if (level.text) {
    const levels = PROCESS_SETTINGS.logLevel.choices;
    if (!levels.includes(level.text)) throw level.fail(`one of ${levels.join(', ')}`);
    config.logLevel = level.text;
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
