/**
 * The settings table is the one source of every pod option: these tests fail when the
 * environment names, the option type, the defaults, the validation or the README table drift
 * from it, or when a name users rely on disappears. (The CLI's flags: `crawl-flags.test.ts`.)
 */
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import type { CrawlerPodOptions, PodLiveOptions } from '../src/pod-options.js';
import { PROCESS_SETTINGS } from '../src/process-settings.js';
import { defaultText, type Setting } from '../src/setting-kinds.js';
import {
  type POD_SETTINGS,
  type PodSettingName,
  type PodSettingOptions,
  podSettingRows,
} from '../src/settings.js';
import { CRAWLER_README, withSettingsTable } from '../src/settings-docs.js';
import { resolvePodSettings } from '../src/settings-resolve.js';

/** The environment variables users have, and the option each sets: a contract. */
const ENV_CONTRACT: Record<string, PodSettingName> = {
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
  ADAPTIVE_DELAY: 'adaptiveDelay',
  MAX_DELAY_MS: 'maxDelayMs',
  PER_IP_DELAY_MS: 'perIpDelayMs',
  PER_IP_CONCURRENCY: 'perIpConcurrency',
  USER_AGENT: 'userAgentToken',
  CONTACT_URL: 'contactUrl',
  RESOLVE: 'resolve',
  ALLOW_PRIVATE_ADDRESSES: 'allowPrivateAddresses',
  MAX_DEPTH: 'maxDepth',
  SAME_DOMAIN_ONLY: 'sameDomainOnly',
  ALLOW_DOMAINS: 'allowDomains',
  DENY_PATTERNS: 'denyPatterns',
  EVAL_SCRIPTS: 'evalScripts',
  KEEP_IDLE_DOMAINS: 'keepIdleDomains',
  PACK_AFTER_DOMAINS: 'packAfterDomains',
  MAX_PAGES_PER_DOMAIN: 'maxPagesPerDomain',
  MAX_PAGES_PER_HOST: 'maxPagesPerHost',
  DOMAIN_BUDGET: 'domainBudget',
  REFETCH_AFTER: 'refetchAfterMs',
  REFETCH_ADAPTIVE: 'refetchAdaptive',
  REFETCH_MIN: 'refetchMinMs',
  REFETCH_MAX: 'refetchMaxMs',
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
  WARC_DIR: 'warcDir',
  NO_WARC: 'noWarc',
  WARC_MAX_BYTES: 'warcMaxBytes',
  HANDLER: 'handler',
  HANDLER_TIMEOUT_MS: 'handlerTimeoutMs',
  ITEMS_STREAM: 'itemsStreamKey',
  ITEMS_MAX_LEN: 'itemsMaxLen',
  ITEMS_JSONL: 'itemsJsonl',
  EXIT_WHEN_IDLE: 'exitWhenIdle',
  STOP_GRACE_MS: 'stopGraceMs',
};

/** The pod's defaults as users know them (`exitWhenIdle` resolves to its grace, off here). */
const DEFAULTS = {
  podWeight: 1,
  sessionTimeoutMs: 10_000,
  ringVnodes: 8192,
  ringSeed: 0,
  prefix: 'sl',
  concurrency: 64,
  perHostConcurrency: 1,
  minDelayMs: 1000,
  maxCrawlDelayMs: 30_000,
  robotsRetryMs: 300_000,
  robotsMaxRetries: 12,
  adaptiveDelayFactor: 0,
  adaptiveDelay: false,
  maxDelayMs: 120_000,
  perIpDelayMs: 0,
  perIpConcurrency: 0,
  userAgentToken: 'shardline',
  contactUrl: undefined,
  crawlId: 'default',
  resolve: [],
  allowPrivateAddresses: false,
  maxDepth: 64,
  sameDomainOnly: false,
  allowDomains: undefined,
  denyPatterns: [],
  evalScripts: false,
  keepIdleDomains: false,
  packAfterDomains: 1000,
  maxPagesPerDomain: 0,
  maxPagesPerHost: 0,
  domainBudget: undefined,
  refetchAfterMs: 0,
  refetchAdaptive: false,
  refetchMinMs: 3_600_000,
  refetchMaxMs: 2_592_000_000,
  maxLinksPerPage: 5000,
  maxBodyBytes: 5_242_880,
  fetchTimeoutMs: 30_000,
  headersTimeoutMs: 15_000,
  bodyTimeoutMs: 15_000,
  connectTimeoutMs: 10_000,
  leaseTimeoutMs: 60_000,
  heartbeatIntervalMs: 20_000,
  maxRetries: 3,
  backoffBaseMs: 1000,
  backoffMaxMs: 300_000,
  enqueueSitemaps: false,
  resultsStreamKey: 'sl:results',
  resultsMaxLen: 1_000_000,
  resultsJsonl: undefined,
  warcDir: undefined,
  noWarc: false,
  warcMaxBytes: 1_073_741_824,
  handler: undefined,
  handlerTimeoutMs: 30_000,
  itemsStreamKey: 'sl:items',
  itemsMaxLen: 1_000_000,
  itemsJsonl: undefined,
  exitWhenIdle: undefined,
  stopGraceMs: 10_000,
  minClaimIntervalMs: 10,
  claimLeadMs: 25,
  maxIdleSleepMs: 1000,
};

/** The option type users wrote against before the table existed. */
interface SettingOptionsContract {
  podId?: string;
  podWeight?: number;
  sessionTimeoutMs?: number;
  ringVnodes?: number;
  ringSeed?: number;
  prefix?: string;
  crawlId?: string;
  concurrency?: number;
  perHostConcurrency?: number;
  minDelayMs?: number;
  maxCrawlDelayMs?: number;
  robotsRetryMs?: number;
  robotsMaxRetries?: number;
  adaptiveDelayFactor?: number;
  adaptiveDelay?: boolean;
  maxDelayMs?: number;
  perIpDelayMs?: number;
  perIpConcurrency?: number;
  userAgentToken?: string;
  contactUrl?: string;
  resolve?: string[];
  allowPrivateAddresses?: boolean;
  maxDepth?: number;
  sameDomainOnly?: boolean;
  allowDomains?: string[];
  denyPatterns?: (string | RegExp)[];
  evalScripts?: boolean;
  keepIdleDomains?: boolean;
  packAfterDomains?: number;
  maxPagesPerDomain?: number;
  maxPagesPerHost?: number;
  domainBudget?: string;
  refetchAfterMs?: number;
  refetchAdaptive?: boolean;
  refetchMinMs?: number;
  refetchMaxMs?: number;
  maxLinksPerPage?: number;
  maxBodyBytes?: number;
  fetchTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  connectTimeoutMs?: number;
  leaseTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  maxRetries?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  enqueueSitemaps?: boolean;
  resultsStreamKey?: string;
  resultsMaxLen?: number;
  resultsJsonl?: string;
  warcDir?: string;
  noWarc?: boolean;
  warcMaxBytes?: number;
  handler?: string;
  handlerTimeoutMs?: number;
  itemsStreamKey?: string;
  itemsMaxLen?: number;
  itemsJsonl?: string;
  exitWhenIdle?: boolean | { graceMs?: number };
  stopGraceMs?: number;
  minClaimIntervalMs?: number;
  claimLeadMs?: number;
  maxIdleSleepMs?: number;
}

/** A text each kind accepts, and the value it stands for. */
const SAMPLES: Record<Setting['kind'], [string, unknown]> = {
  int: ['7', 7],
  duration: ['2h', 7_200_000],
  number: ['2.5', 2.5],
  bool: ['yes', true],
  string: ['x-1', 'x-1'],
  list: ['a, b', ['a', 'b']],
  patterns: ['*.pdf,*.zip', ['*.pdf', '*.zip']],
  exit: ['1500', { graceMs: 1500 }],
};

describe('the settings table', () => {
  it('keeps every environment variable users have, for the same option', () => {
    const byEnv = new Map(podSettingRows().map(([name, s]) => [s.env, name]));
    for (const [env, option] of Object.entries(ENV_CONTRACT)) {
      expect(byEnv.get(env), env).toBe(option);
    }
    const processEnv = Object.values(PROCESS_SETTINGS).map((s) => s.env);
    expect(processEnv).toEqual([
      'REDIS_URL',
      'REDIS_CLUSTER_NODES',
      'REDIS_CONNECT_TIMEOUT_MS',
      'HEALTH_PORT',
      'LOG_LEVEL',
    ]);
  });

  it('spells names one way: unique env and flags, units in the option name', () => {
    const rows = podSettingRows();
    const envs = [
      ...rows.map(([, s]) => s.env),
      ...Object.values(PROCESS_SETTINGS).map((s) => s.env),
    ];
    const flags = [
      ...rows.map(([, s]) => s.flag),
      ...Object.values(PROCESS_SETTINGS).map((s) => s.flag),
    ];
    expect(new Set(envs).size).toBe(envs.length);
    expect(new Set(flags).size).toBe(flags.length);
    for (const [name, s] of rows) {
      expect(s.env, name).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(s.flag, name).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(s.doc, name).toMatch(/^\S.*[^.]$/);
      expect(defaultText(s), name).not.toBe('undefined');
      if (s.env.endsWith('_MS')) expect(name, s.env).toMatch(/Ms$/);
      if (s.env.endsWith('_BYTES')) expect(name, s.env).toMatch(/Bytes$/);
    }
  });

  it('loadConfig reads every variable of the table into its option', () => {
    for (const [name, s] of podSettingRows()) {
      const [text, value] = SAMPLES[s.kind];
      expect(loadConfig({ [s.env]: text }).pod, s.env).toEqual({ [name]: value });
    }
  });

  it('gives the defaults users know, derived ones from the settings before them', () => {
    const { podId, ...rest } = resolvePodSettings({});
    expect(podId.length).toBeGreaterThan(0);
    expect(rest).toEqual(DEFAULTS);
    expect(resolvePodSettings({ leaseTimeoutMs: 900, prefix: 'p' })).toMatchObject({
      heartbeatIntervalMs: 300,
      resultsStreamKey: 'p:results',
    });
    expect(resolvePodSettings({ exitWhenIdle: true }).exitWhenIdle).toBe(2000);
    expect(resolvePodSettings({ exitWhenIdle: { graceMs: 5 } }).exitWhenIdle).toBe(5);
  });

  it('refuses a value out of its bounds, naming option, value and expected type', () => {
    for (const [name, s] of podSettingRows()) {
      const min = s.min;
      if (s.kind !== 'int' || min === undefined) continue;
      const max = s.max ?? Number.MAX_SAFE_INTEGER;
      expect(() => resolvePodSettings({ [name]: min - 1 }), name).toThrow(
        `CrawlerPodOptions.${name} must be an integer in [${min}, ${max}]; got ${min - 1} (number)`,
      );
    }
    expect(() => resolvePodSettings({ podWeight: 0 })).toThrow(
      'CrawlerPodOptions.podWeight must be a finite number > 0; got 0 (number)',
    );
    expect(() => resolvePodSettings({ podId: 'a b' })).toThrow(/podId must be 1-128 characters/);
    // The membership's and the frontier's own bounds, said before either is built.
    expect(() => resolvePodSettings({ podWeight: 1e20 })).toThrow(
      'CrawlerPodOptions.podWeight must be at most 1000; got 100000000000000000000 (number)',
    );
    expect(() => resolvePodSettings({ prefix: 'a b' })).toThrow(
      'CrawlerPodOptions.prefix must be 1-131 characters of [A-Za-z0-9._:-]; got "a b" (string)',
    );
    expect(() => resolvePodSettings({ leaseTimeoutMs: 900, heartbeatIntervalMs: 900 })).toThrow(
      /heartbeatIntervalMs must be an integer in \[1, leaseTimeoutMs = 900\); got 900/,
    );
    expect(() => resolvePodSettings({ resolve: 'a:1' as never })).toThrow(
      /resolve must be an array of strings; got "a:1" \(string\)/,
    );
    // Each override is read when the pod is built, naming the one that is wrong and why.
    expect(() => resolvePodSettings({ resolve: ['a.test:127.0.0.2', 'b.test'] })).toThrow(
      'CrawlerPodOptions.resolve must be host:address, host:port:address, *.suffix:address or host:[ipv6] entries ("b.test": no address after the host)',
    );
    expect(() => resolvePodSettings({ exitWhenIdle: 5 as never })).toThrow(
      /exitWhenIdle must be a boolean or \{ graceMs \}/,
    );
  });

  it('is the table in the crawler README', () => {
    const readme = readFileSync(CRAWLER_README, 'utf8');
    expect(readme, 'run npx tsx services/crawler/src/settings-docs.ts').toBe(
      withSettingsTable(readme),
    );
    for (const [name] of podSettingRows()) expect(readme).toContain(`| \`${name}\` |`);
  });

  it('types CrawlerPodOptions from the table, plus the live objects', () => {
    expectTypeOf<PodSettingOptions>().toEqualTypeOf<SettingOptionsContract>();
    expectTypeOf<keyof CrawlerPodOptions>().toEqualTypeOf<
      keyof typeof POD_SETTINGS | keyof PodLiveOptions
    >();
    expectTypeOf<keyof PodLiveOptions>().toEqualTypeOf<
      'redis' | 'subscriber' | 'assignment' | 'logger' | 'pageHandler' | 'onResult'
    >();
  });
});
