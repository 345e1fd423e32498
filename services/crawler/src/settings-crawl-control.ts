/**
 * The rows of the settings table (`settings.ts`) that steer a crawl beyond politeness: caps and
 * budgets per domain and host, and recrawl schedules. Spread into `POD_SETTINGS` after the
 * scope rows; same contract (flag and env names are user-facing). Every control here lives in
 * the domain's Redis state, so it survives restarts and moves with the domain on handoff.
 */
import { DURATION_FORMS, parseBudget } from './duration.js';
import type { Setting } from './setting-kinds.js';

export const CRAWL_CONTROL_SETTINGS = {
  /**
   * Keep every finished domain's own keys (~300 B and up each) instead of folding an idle
   * small one into the shared archive (the frontier's `archiveIdleDomains`, ~70 B): for
   * operators who page through finished domains in the domain listings, which archived
   * domains leave (they stay readable by name).
   */
  keepIdleDomains: {
    env: 'KEEP_IDLE_DOMAINS',
    flag: 'keep-idle-domains',
    kind: 'bool',
    doc: 'keep finished small domains in the domain listings instead of archiving them',
    default: false,
  },
  /**
   * Keep a new small domain packed (the frontier's `packNewDomains`: its queue in one archive
   * field, ~URL + 150 B instead of ~URL + 680 B) until a claim reaches it, once the domain
   * listings hold this many domains: a wide crawl's long tail, which the listings then leave
   * until claimed (readable by name). Off with `keepIdleDomains`.
   */
  packAfterDomains: {
    env: 'PACK_AFTER_DOMAINS',
    flag: 'pack-after-domains',
    kind: 'int',
    doc: 'pack new small domains until claimed once this many domains are listed (0 = always)',
    default: 1000,
  },
  /**
   * Most URLs accepted per domain over the crawl (0 = no cap). Exact across pods: the
   * frontier's enqueue script enforces it (`maxAcceptedPerDomain`).
   */
  maxPagesPerDomain: {
    env: 'MAX_PAGES_PER_DOMAIN',
    flag: 'max-pages-per-domain',
    kind: 'int',
    doc: 'URLs accepted per domain (0 = no cap)',
    default: 0,
  },
  /**
   * A hard cap per host, like `maxPagesPerDomain` per domain: URLs past it are counted
   * over-cap (`SHARDLINE_ERR_FRONTIER_HOST_ACCEPT_CAP`), exact across pods.
   */
  maxPagesPerHost: {
    env: 'MAX_PAGES_PER_HOST',
    flag: 'max-pages-per-host',
    kind: 'int',
    doc: 'URLs accepted per host (0 = no cap)',
    default: 0,
  },
  /**
   * A refilling budget per domain, `<pages>/<period>`: at most that many claims per window;
   * when spent the domain's URLs stay queued and resume when the window ends. The window
   * lives in the domain's Redis state (survives restarts, moves with the domain).
   */
  domainBudget: {
    env: 'DOMAIN_BUDGET',
    flag: 'domain-budget',
    kind: 'string',
    doc: 'pages per period per domain, refilling, e.g. 1000/1d (spent: URLs wait, not dropped)',
    defaultText: 'none',
    arg: 'pages/period',
    refine: (text) =>
      parseBudget(text) === undefined
        ? `<pages>/<period>, like 1000/1d (${DURATION_FORMS})`
        : undefined,
  },
  /**
   * Recrawl: every URL fetched is scheduled again this long after its fetch (a URL's own
   * interval, seed attribute `refetch=1d` or `refetchAfterMs` on enqueue, wins). The
   * schedule and the validators for conditional requests live with the domain in Redis. A
   * crawl with refetches never becomes idle. 0 = fetch once.
   */
  refetchAfterMs: {
    env: 'REFETCH_AFTER',
    flag: 'refetch-after',
    kind: 'duration',
    doc: 'fetch every URL again this long after each fetch (e.g. 7d; 0 = once)',
    default: 0,
    max: 31_536_000_000,
  },
  refetchAdaptive: {
    env: 'REFETCH_ADAPTIVE',
    flag: 'refetch-adaptive',
    kind: 'bool',
    doc: 'halve a refetch interval when the content changed, grow it by half when not',
    default: false,
  },
  refetchMinMs: {
    env: 'REFETCH_MIN',
    flag: 'refetch-min',
    kind: 'duration',
    doc: 'shortest adaptive refetch interval',
    default: 3_600_000,
    defaultText: '1h',
    max: 31_536_000_000,
  },
  refetchMaxMs: {
    env: 'REFETCH_MAX',
    flag: 'refetch-max',
    kind: 'duration',
    doc: 'longest adaptive refetch interval',
    default: 2_592_000_000,
    defaultText: '30d',
    max: 31_536_000_000,
    refine: (max, resolved) =>
      max >= (resolved.refetchMinMs as number) ? undefined : 'at least refetchMinMs',
  },
} satisfies Record<string, Setting>;
