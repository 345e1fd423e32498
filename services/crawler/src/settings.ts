/**
 * The one table of the pod's settings (the process's own — Redis, health port, log level — are
 * in `process-settings.ts`). Each row gives the option name (the key), its
 * environment variable, its `shardline crawl` flag, its kind, default and bounds, and a
 * one-line doc. Everything else is derived from it: the settings part of
 * `CrawlerPodOptions`, the pod's option validation (`settings-resolve.ts`), `loadConfig`
 * (`config.ts`), the flags of `shardline crawl` and `shardline up`, and the options table of
 * the crawler README (`settings-docs.ts`). A test fails when any of them drifts.
 *
 * The flag and env names are a user contract: rename none of them.
 */
import { hostname } from 'node:os';
// The parser alone, not the resolver: this table is part of the CLI's light entry.
import { overrideProblem } from '@shardline/dns/overrides';
import {
  CRAWL_ID,
  crawlKeyPrefix,
  DEFAULT_CRAWL,
  DEFAULT_PREFIX,
  isCrawlId,
  isKeyPrefix,
  KEY_PREFIX_RULE,
  MAX_CLAIM_LEAD_MS,
} from '@shardline/frontier';
import { MAX_POD_WEIGHT } from '@shardline/membership';
import type { Setting, SettingKind, SettingValue } from './setting-kinds.js';
import { CRAWL_CONTROL_SETTINGS } from './settings-crawl-control.js';
import { FETCH_SETTINGS } from './settings-fetch.js';
import { OUTPUT_SETTINGS } from './settings-output.js';
import { POLITENESS_SETTINGS } from './settings-politeness.js';

const POD_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Every pod setting, in the order of `--help` and the README. */
export const POD_SETTINGS = {
  podId: {
    env: 'POD_ID',
    flag: 'pod-id',
    kind: 'string',
    doc: 'stable pod id',
    default: hostname(),
    defaultText: 'hostname',
    refine: (id) => (POD_ID.test(id) ? undefined : '1-128 characters of [A-Za-z0-9._:-]'),
    arg: 'id',
    perPod: true,
  },
  podWeight: {
    env: 'POD_WEIGHT',
    flag: 'pod-weight',
    kind: 'number',
    doc: 'capacity weight on the ring',
    default: 1,
    minExclusive: true,
    arg: 'w',
    refine: (weight) => (weight <= MAX_POD_WEIGHT ? undefined : `at most ${MAX_POD_WEIGHT}`),
  },
  sessionTimeoutMs: {
    env: 'SESSION_TIMEOUT_MS',
    flag: 'session-timeout-ms',
    kind: 'int',
    doc: 'membership session timeout',
    default: 10_000,
    min: 100,
  },
  ringVnodes: {
    env: 'RING_VNODES',
    flag: 'ring-vnodes',
    kind: 'int',
    doc: 'ring tokens per unit of weight (proposed; the registry keeps the first pod’s)',
    default: 8192,
    min: 1,
    max: 2 ** 20,
  },
  ringSeed: {
    env: 'RING_SEED',
    flag: 'ring-seed',
    kind: 'int',
    doc: 'ring token seed (proposed like the vnodes)',
    default: 0,
  },
  prefix: {
    env: 'KEY_PREFIX',
    flag: 'prefix',
    kind: 'string',
    doc: 'Redis key prefix',
    default: DEFAULT_PREFIX,
    refine: (prefix) => (isKeyPrefix(prefix) ? undefined : KEY_PREFIX_RULE),
  },
  /**
   * The frontier's scripts go as FCALLs of one Redis Function library by default (Redis 7.0+;
   * a server that refuses it gets EVALSHA, logged once). This keeps them on EVALSHA: for a
   * proxy or managed Redis that passes EVALSHA but not FUNCTION, and for A/B measurements.
   */
  evalScripts: {
    env: 'EVAL_SCRIPTS',
    flag: 'eval-scripts',
    kind: 'bool',
    doc: 'send the frontier scripts by EVALSHA instead of loading them as a Redis function library',
    default: false,
  },
  crawlId: {
    env: 'CRAWL_ID',
    flag: 'crawl-id',
    kind: 'string',
    doc: 'the crawl (namespace) this pod serves: own seen-set, queues, counters, ring; politeness is shared',
    default: DEFAULT_CRAWL,
    refine: (id) => (isCrawlId(id) ? undefined : `${CRAWL_ID.source}, e.g. news-2026`),
    arg: 'id',
  },
  concurrency: {
    env: 'CONCURRENCY',
    flag: 'concurrency',
    kind: 'int',
    doc: 'global fetch slots',
    default: 64,
    min: 1,
    max: 100_000,
  },
  ...POLITENESS_SETTINGS,
  userAgentToken: {
    env: 'USER_AGENT',
    flag: 'user-agent',
    kind: 'string',
    doc: 'User-Agent product token',
    default: 'shardline',
    arg: 'token',
  },
  contactUrl: {
    env: 'CONTACT_URL',
    flag: 'contact-url',
    kind: 'string',
    doc: 'contact URL in the User-Agent',
    defaultText: 'none',
    arg: 'url',
  },
  resolve: {
    env: 'RESOLVE',
    flag: 'resolve',
    kind: 'list',
    doc: 'DNS override host:port:addr (that port only) or host:addr or *.suffix:addr (only the ports of the seeds under it), repeatable or comma-separated',
    default: [],
    arg: 'host:addr',
    refine: (specs) => {
      for (const spec of specs) {
        const problem = overrideProblem(spec);
        if (problem !== undefined) {
          return `host:address, host:port:address, *.suffix:address or host:[ipv6] entries (${JSON.stringify(spec)}: ${problem})`;
        }
      }
      return undefined;
    },
  },
  allowPrivateAddresses: {
    env: 'ALLOW_PRIVATE_ADDRESSES',
    flag: 'allow-private-addresses',
    kind: 'bool',
    doc: 'allow private/loopback/link-local/metadata addresses',
    default: false,
  },
  maxDepth: {
    env: 'MAX_DEPTH',
    flag: 'max-depth',
    kind: 'int',
    doc: 'deepest link depth',
    default: 64,
    max: 10_000,
  },
  sameDomainOnly: {
    env: 'SAME_DOMAIN_ONLY',
    flag: 'same-domain-only',
    kind: 'bool',
    doc: 'follow links to the same domain only',
    default: false,
  },
  allowDomains: {
    env: 'ALLOW_DOMAINS',
    flag: 'allow-domains',
    kind: 'list',
    doc: 'follow links only to these domains (and subdomains), comma-separated',
    defaultText: 'all',
    arg: 'domains',
  },
  denyPatterns: {
    env: 'DENY_PATTERNS',
    flag: 'deny-patterns',
    kind: 'patterns',
    doc: 'URL globs never enqueued, comma-separated',
    default: [],
    arg: 'globs',
  },
  ...CRAWL_CONTROL_SETTINGS,
  ...FETCH_SETTINGS,
  leaseTimeoutMs: {
    env: 'LEASE_TIMEOUT_MS',
    flag: 'lease-timeout-ms',
    kind: 'int',
    doc: 'lease timeout, extended while a fetch runs (0 = never expires)',
    default: 60_000,
  },
  heartbeatIntervalMs: {
    env: 'HEARTBEAT_INTERVAL_MS',
    flag: 'heartbeat-interval-ms',
    kind: 'int',
    doc: 'heartbeat sweep period of the leases in flight',
    default: (s) => Math.floor((s.leaseTimeoutMs as number) / 3),
    defaultText: 'lease timeout / 3',
    refine: (ms, s) => {
      const lease = s.leaseTimeoutMs as number;
      return lease > 0 && (ms === 0 || ms >= lease)
        ? `an integer in [1, leaseTimeoutMs = ${lease})`
        : undefined;
    },
  },
  maxRetries: {
    env: 'MAX_RETRIES',
    flag: 'max-retries',
    kind: 'int',
    doc: 'retries of a failing URL before it is dead-lettered',
    default: 3,
    max: 100,
  },
  backoffBaseMs: {
    env: 'BACKOFF_BASE_MS',
    flag: 'backoff-base-ms',
    kind: 'int',
    doc: 'first failure backoff of a host (doubles per failure in a row)',
    default: 1000,
  },
  backoffMaxMs: {
    env: 'BACKOFF_MAX_MS',
    flag: 'backoff-max-ms',
    kind: 'int',
    doc: 'cap of the failure backoff',
    default: 300_000,
  },
  enqueueSitemaps: {
    env: 'ENQUEUE_SITEMAPS',
    flag: 'enqueue-sitemaps',
    kind: 'bool',
    doc: 'enqueue the sitemaps robots.txt lists',
    default: false,
  },
  resultsStreamKey: {
    env: 'RESULTS_STREAM',
    flag: 'results-stream',
    kind: 'string',
    doc: 'results stream key',
    default: (s) => `${crawlKeyPrefix(s.prefix as string, s.crawlId as string)}:results`,
    defaultText: '‹prefix›:results (‹prefix›:c:‹crawl›:results in a crawl)',
    arg: 'key',
  },
  resultsMaxLen: {
    env: 'RESULTS_MAX_LEN',
    flag: 'results-max-len',
    kind: 'int',
    doc: 'approximate bound of the results stream (0 = unbounded)',
    default: 1_000_000,
  },
  resultsJsonl: {
    env: 'RESULTS_JSONL',
    flag: 'results-jsonl',
    kind: 'string',
    doc: 'also append results to this JSONL file',
    defaultText: 'none',
    arg: 'file',
    perPod: true,
  },
  ...OUTPUT_SETTINGS,
  exitWhenIdle: {
    env: 'EXIT_WHEN_IDLE',
    flag: 'exit-when-idle',
    kind: 'exit',
    doc: 'stop once nothing is queued or in flight (for graceMs, default 2000)',
    default: false,
    arg: 'graceMs',
  },
  stopGraceMs: {
    env: 'STOP_GRACE_MS',
    flag: 'stop-grace-ms',
    kind: 'int',
    doc: 'on stop, how long leases in flight may finish before they are released',
    default: 10_000,
  },
  minClaimIntervalMs: {
    env: 'MIN_CLAIM_INTERVAL_MS',
    flag: 'min-claim-interval-ms',
    kind: 'int',
    doc: 'shortest gap between claims that left slots free',
    default: 10,
  },
  claimLeadMs: {
    env: 'CLAIM_LEAD_MS',
    flag: 'claim-lead-ms',
    kind: 'int',
    doc: 'claim a host’s next URL up to this long before its turn, then send at its turn (0 = claim when due)',
    default: 25,
    min: 0,
    max: MAX_CLAIM_LEAD_MS,
  },
  maxIdleSleepMs: {
    env: 'MAX_IDLE_SLEEP_MS',
    flag: 'max-idle-sleep-ms',
    kind: 'int',
    doc: 'longest sleep between claims',
    default: 1000,
    min: 1,
  },
} satisfies Record<string, Setting>;

type PodSettingTable = typeof POD_SETTINGS;

/** A pod option name that is a setting. */
export type PodSettingName = keyof PodSettingTable;

/** The settings part of `CrawlerPodOptions`: every setting optional, typed by its kind. */
export type PodSettingOptions = {
  [K in PodSettingName]?: SettingValue[PodSettingTable[K]['kind']];
};

type Resolved<S> = S extends { kind: 'exit' }
  ? number | undefined
  : S extends { kind: infer K extends SettingKind }
    ? S extends { default: unknown }
      ? SettingValue[K]
      : SettingValue[K] | undefined
    : never;

/**
 * Validated settings with their defaults: `undefined` only where the table has no default;
 * `exitWhenIdle` resolves to its grace period in ms (`undefined` = off).
 */
export type PodSettings = { [K in PodSettingName]: Resolved<PodSettingTable[K]> };

/** The rows as a list, in table order. */
export function podSettingRows(): [PodSettingName, Setting][] {
  return Object.entries(POD_SETTINGS) as [PodSettingName, Setting][];
}
