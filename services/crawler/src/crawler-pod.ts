/**
 * The crawler pod: one process that claims URLs from its due index and crawls them. Per lease:
 * DNS address policy → robots.txt (memory, Redis, fetch; through the send gate) → send gate →
 * one fetch (redirects not followed) → links resolved, scoped, robots-filtered and enqueued in
 * batches → complete / fail / release → one result record. See the README for the rules.
 */
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { DnsCache, DnsError, DnsErrorCode } from '@shardline/dns';
import {
  type EnqueueItem,
  type EnqueueReport,
  type EnqueueResult,
  type FrontierError,
  type Lease,
  RedisFrontier,
} from '@shardline/frontier';
import { Membership, type MembershipEvents, type StopOptions } from '@shardline/membership';
import type { RobotsTxt } from '@shardline/robots';
import { createCanonicalizer } from '@shardline/url';
import type { Cluster, Redis } from 'ioredis';
import { type Logger, pino } from 'pino';
import { Batcher } from './batcher.js';
import { decodeBody } from './content.js';
import { CrawlOutcomeCode, check, FetchErrorCode, invalidOption } from './errors.js';
import { Fetcher, type FetchOutcome } from './fetcher.js';
import { LinkExtractor, LinkScope } from './links.js';
import type { CrawlerPodOptions, PodStats } from './pod-options.js';
import { type CrawlOutcome, type CrawlResult, ResultSink } from './results.js';
import { RedisRobotsCache } from './robots-cache.js';
import { RobotsLoader, type RobotsLoadResult } from './robots-loader.js';
import { SendGate } from './send-gate.js';
import { readSitemap, SITEMAP_MAX_BYTES, SITEMAP_MAX_URLS } from './sitemap.js';
import { WorkLoop } from './work-loop.js';

const OWNER = 'CrawlerPodOptions';
/** Lease meta of a sitemap: `sitemap` (listed by robots.txt) or `sitemap:<n>` (n indexes deep). */
const SITEMAP_META = 'sitemap';
/** Deepest sitemap followed through indexes (the protocol allows 1: indexes must not nest). */
const MAX_SITEMAP_LEVEL = 2;
/** Most sitemaps followed from one index, and from one robots.txt. */
const MAX_SITEMAPS_PER_INDEX = 1000;
const MAX_SITEMAPS_PER_ROBOTS = 100;
/** Most URLs sent to the frontier in one enqueue call (a sitemap lists up to 50,000). */
const MAX_ENQUEUE_CHUNK = 1000;
/**
 * Shortest hold of a host waiting for its robots.txt retry: a pod whose clock runs ahead of
 * Redis would otherwise claim the host again just before its robots answer expires here.
 */
const ROBOTS_MIN_HOLD_MS = 1000;
/**
 * A page that must wait at least this long after its host's robots.txt request gives its
 * fetch slot back for the wait (the host is held in the frontier until then): a slot idle for
 * a whole delay per new host would cap how fast a pod takes up new hosts.
 */
const SLOT_RELEASE_MIN_WAIT_MS = 250;
/** How long unchanged "busy" global counters wait before an idle pod checks them exactly. */
const FROZEN_COUNTERS_MS = 5000;

/**
 * Every robots.txt request in flight (and every robots send waiting at the gate) listens to the
 * pod's one closing signal and stops listening when it ends: hundreds at once at the start of a
 * crawl, none left behind, so Node's "possible leak" warning past 10 listeners does not apply.
 */
function unlimitedListeners(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}

/** Index nesting level of a sitemap lease, or undefined when the lease is no sitemap. */
function sitemapLevel(meta: string): number | undefined {
  if (meta === SITEMAP_META) return 0;
  if (meta === 'sitemap-index') return 1; // written by earlier versions
  if (!meta.startsWith(`${SITEMAP_META}:`)) return undefined;
  const level = Number(meta.slice(SITEMAP_META.length + 1));
  return Number.isInteger(level) && level >= 0 ? level : undefined;
}

/** Fetch error codes worth another attempt (the host may recover). */
const RETRYABLE_FETCH = new Set<string>([
  FetchErrorCode.TIMEOUT,
  FetchErrorCode.HEADERS_TIMEOUT,
  FetchErrorCode.BODY_TIMEOUT,
  FetchErrorCode.CONNECT_TIMEOUT,
  FetchErrorCode.CONNECT,
  FetchErrorCode.DNS,
  FetchErrorCode.UNKNOWN,
]);

/**
 * Fetch error codes raised before any packet reached the host (name resolution, address
 * policy, a URL that cannot be requested): such failures must not back the host off.
 */
const UNSENT_FETCH = new Set<string>([
  FetchErrorCode.DNS,
  FetchErrorCode.DNS_REFUSED,
  FetchErrorCode.INVALID_URL,
]);

type MembershipEvent<K extends keyof MembershipEvents> = (...args: MembershipEvents[K]) => void;

type Base = Pick<
  CrawlResult,
  'url' | 'host' | 'domain' | 'depth' | 'attempt' | 'pod' | 'startedAtMs'
>;

/** A crawler pod. `start()` → crawl → `stop()` (or `exitWhenIdle`). */
export class CrawlerPod {
  /** This pod's id. */
  readonly id: string;
  readonly weight: number;
  /** The frontier (for seeding and stats). */
  readonly frontier: RedisFrontier;
  /** The results stream key. */
  readonly resultsStreamKey: string;
  /** The pod registry membership (`undefined` with a fixed `assignment`). */
  readonly membership: Membership | undefined;
  readonly #log: Logger;
  readonly #dns: DnsCache;
  readonly #fetcher: Fetcher;
  readonly #robots: RobotsLoader;
  readonly #extractor: LinkExtractor;
  readonly #scope: LinkScope;
  readonly #gate: SendGate;
  readonly #results: ResultSink;
  readonly #loop: WorkLoop;
  readonly #enqueue: Batcher<EnqueueItem, EnqueueResult>;
  readonly #complete: Batcher<
    { lease: Lease; result: { status: number; bytes: number; durationMs: number; links: number } },
    FrontierError | null
  >;
  readonly #ownSubscriber: Redis | Cluster | undefined;
  readonly #token: string;
  readonly #maxCrawlDelayMs: number;
  readonly #robotsMaxRetries: number;
  readonly #maxPagesPerDomain: number;
  readonly #maxLinksPerPage: number;
  readonly #enqueueSitemaps: boolean;
  readonly #exitGraceMs: number | undefined;
  readonly #stopGraceMs: number;
  readonly #unsubscribeAssignment: () => void;
  // membership.start(), once: seed() may join before start() does.
  #joined: Promise<void> | undefined;
  #loopRunning = false;
  #draining = false;
  #finished = false;
  // Leases whose settle (complete/fail/release) threw: they may still be held in Redis.
  #unsettled = 0;
  #idleSinceMs: number | undefined;
  #idleClaimed = -1;
  // Global sums that said "busy": since when unchanged, and whether an exact check found
  // nothing queued or in flight while they stayed so (see #shouldExit).
  #frozen: { key: string; sinceMs: number; settled: boolean } | undefined;
  #started = false;
  #stopped: Promise<void> | undefined;
  readonly #stats: Omit<
    PodStats,
    'pod' | 'inFlight' | 'claims' | 'emptyClaims' | 'wakes' | 'gate' | 'results'
  > = {
    fetched: 0,
    retried: 0,
    dead: 0,
    released: 0,
    lost: 0,
    robotsDisallowed: 0,
    robotsDeferred: 0,
    gapReleases: 0,
    robotsFilteredLinks: 0,
    robotsLoads: { memory: 0, 'shared-cache': 0, fetch: 0 },
    redirects: 0,
    bytes: 0,
    linksQueued: 0,
    errors: {},
    bounds: {},
  };

  constructor(options: CrawlerPodOptions) {
    if (typeof options !== 'object' || options === null) {
      throw invalidOption('CrawlerPod', 'options', options, 'an object');
    }
    const redis = options.redis as unknown;
    if (typeof redis !== 'object' || redis === null || typeof (redis as Redis).get !== 'function') {
      throw invalidOption(OWNER, 'redis', redis, 'an ioredis client');
    }
    this.id = check.string(OWNER, 'podId', options.podId, hostname());
    if (!/^[A-Za-z0-9._:-]{1,128}$/.test(this.id)) {
      throw invalidOption(OWNER, 'podId', this.id, '1-128 characters of [A-Za-z0-9._:-]');
    }
    const weight = options.podWeight ?? 1;
    if (typeof weight !== 'number' || !(weight > 0) || !Number.isFinite(weight)) {
      throw invalidOption(OWNER, 'podWeight', weight, 'a finite number > 0');
    }
    this.weight = weight;
    this.#log = options.logger ?? pino({ level: 'warn' });
    const prefix = check.string(OWNER, 'prefix', options.prefix, 'sl');
    const concurrency = check.int(OWNER, 'concurrency', options.concurrency, 64, 1, 100_000);
    const perHost = check.int(OWNER, 'perHostConcurrency', options.perHostConcurrency, 1, 1, 1024);
    const minDelayMs = check.int(OWNER, 'minDelayMs', options.minDelayMs, 1000, 0);
    const maxDelayMs = check.int(OWNER, 'maxDelayMs', options.maxDelayMs, 120_000, 0);
    this.#maxCrawlDelayMs = check.int(OWNER, 'maxCrawlDelayMs', options.maxCrawlDelayMs, 30_000, 0);
    const robotsRetryMs = check.int(
      OWNER,
      'robotsRetryMs',
      options.robotsRetryMs,
      300_000,
      1,
      86_400_000,
    );
    this.#robotsMaxRetries = check.int(
      OWNER,
      'robotsMaxRetries',
      options.robotsMaxRetries,
      12,
      0,
      10_000,
    );
    const factor = options.adaptiveDelayFactor ?? 0;
    if (typeof factor !== 'number' || !Number.isFinite(factor) || factor < 0) {
      throw invalidOption(OWNER, 'adaptiveDelayFactor', factor, 'a finite number ≥ 0');
    }
    this.#token = check.string(OWNER, 'userAgentToken', options.userAgentToken, 'shardline');
    const maxDepth = check.int(OWNER, 'maxDepth', options.maxDepth, 64, 0, 10_000);
    const leaseTimeoutMs = check.int(OWNER, 'leaseTimeoutMs', options.leaseTimeoutMs, 60_000, 0);
    const heartbeatIntervalMs = check.int(
      OWNER,
      'heartbeatIntervalMs',
      options.heartbeatIntervalMs,
      Math.floor(leaseTimeoutMs / 3),
      0,
    );
    if (
      leaseTimeoutMs > 0 &&
      (heartbeatIntervalMs === 0 || heartbeatIntervalMs >= leaseTimeoutMs)
    ) {
      throw invalidOption(
        OWNER,
        'heartbeatIntervalMs',
        heartbeatIntervalMs,
        `an integer in [1, leaseTimeoutMs = ${leaseTimeoutMs})`,
      );
    }
    this.#maxPagesPerDomain = check.int(
      OWNER,
      'maxPagesPerDomain',
      options.maxPagesPerDomain,
      0,
      0,
    );
    this.#maxLinksPerPage = check.int(OWNER, 'maxLinksPerPage', options.maxLinksPerPage, 5000, 1);
    this.#enqueueSitemaps = check.bool(OWNER, 'enqueueSitemaps', options.enqueueSitemaps, false);
    const exit = options.exitWhenIdle ?? false;
    if (exit === true) this.#exitGraceMs = 2000;
    else if (typeof exit === 'object' && exit !== null) {
      this.#exitGraceMs = check.int(OWNER, 'exitWhenIdle.graceMs', exit.graceMs, 2000, 0);
    } else if (exit !== false) {
      throw invalidOption(OWNER, 'exitWhenIdle', exit, 'a boolean or { graceMs }');
    }
    this.#stopGraceMs = check.int(OWNER, 'stopGraceMs', options.stopGraceMs, 10_000, 0);

    const sessionTimeoutMs = check.int(
      OWNER,
      'sessionTimeoutMs',
      options.sessionTimeoutMs,
      10_000,
      100,
    );
    const ringVnodes = check.int(OWNER, 'ringVnodes', options.ringVnodes, 8192, 1, 2 ** 20);
    const ringSeed = check.int(OWNER, 'ringSeed', options.ringSeed, 0, 0);
    const canonicalizer = createCanonicalizer();
    // The frontier asks for owners lazily, so frontier and membership can refer to each other.
    let ownerOf: (domain: string) => string;
    this.frontier = new RedisFrontier({
      redis: options.redis,
      ownerOf: (domain) => ownerOf(domain),
      prefix,
      leaseTimeoutMs,
      maxRetries: check.int(OWNER, 'maxRetries', options.maxRetries, 3, 0, 100),
      maxDepth,
      maxAcceptedPerDomain: this.#maxPagesPerDomain,
      defaultDelayMs: minDelayMs,
      defaultConcurrency: perHost,
      adaptiveDelayFactor: factor,
      maxDelayMs,
      backoffBaseMs: check.int(OWNER, 'backoffBaseMs', options.backoffBaseMs, 1000, 0),
      backoffMaxMs: check.int(OWNER, 'backoffMaxMs', options.backoffMaxMs, 300_000, 0),
    });
    this.#dns = new DnsCache({
      overrides: options.resolve ?? [],
      allowPrivateAddresses: check.bool(
        OWNER,
        'allowPrivateAddresses',
        options.allowPrivateAddresses,
        false,
      ),
    });
    const fetcherOptions: ConstructorParameters<typeof Fetcher>[0] = {
      productToken: this.#token,
      dns: this.#dns,
      connectionsPerOrigin: perHost,
    };
    if (options.contactUrl !== undefined) fetcherOptions.contactUrl = options.contactUrl;
    if (options.maxBodyBytes !== undefined) fetcherOptions.maxBodyBytes = options.maxBodyBytes;
    if (options.fetchTimeoutMs !== undefined) fetcherOptions.maxFetchMs = options.fetchTimeoutMs;
    if (options.headersTimeoutMs !== undefined)
      fetcherOptions.headersTimeoutMs = options.headersTimeoutMs;
    if (options.bodyTimeoutMs !== undefined) fetcherOptions.bodyTimeoutMs = options.bodyTimeoutMs;
    if (options.connectTimeoutMs !== undefined)
      fetcherOptions.connectTimeoutMs = options.connectTimeoutMs;
    this.#fetcher = new Fetcher(fetcherOptions);
    this.#gate = new SendGate({
      minDelayMs,
      concurrency: perHost,
      adaptiveDelayFactor: factor,
      maxDelayMs,
    });
    this.#robots = new RobotsLoader({
      fetcher: this.#fetcher,
      sharedCache: new RedisRobotsCache({ redis: options.redis, prefix }),
      beforeFetch: (origin) => this.#robotsBeforeFetch(origin),
      onFetch: (hop) => this.#robotsAfterFetch(hop.origin, hop.timings),
      unreachableRetryMs: robotsRetryMs,
      signal: this.#closing.signal,
    });
    this.#extractor = new LinkExtractor({
      userAgentToken: this.#token,
      maxLinksPerPage: this.#maxLinksPerPage,
      canonicalizer,
    });
    const scope: ConstructorParameters<typeof LinkScope>[0] = {
      sameDomainOnly: check.bool(OWNER, 'sameDomainOnly', options.sameDomainOnly, false),
      maxDepth,
    };
    if (options.allowDomains !== undefined) scope.allowDomains = options.allowDomains;
    if (options.denyPatterns !== undefined) scope.denyPatterns = options.denyPatterns;
    this.#scope = new LinkScope(scope);
    this.resultsStreamKey = check.string(
      OWNER,
      'resultsStreamKey',
      options.resultsStreamKey,
      `${prefix}:results`,
    );
    const sink: ConstructorParameters<typeof ResultSink>[0] = {
      redis: options.redis,
      streamKey: this.resultsStreamKey,
      maxLen: check.int(OWNER, 'resultsMaxLen', options.resultsMaxLen, 1_000_000, 0),
    };
    if (options.resultsJsonl !== undefined) sink.jsonlPath = options.resultsJsonl;
    this.#results = new ResultSink(sink);
    this.#enqueue = new Batcher((items) => this.#enqueueNow(items), 5, 1000);
    this.#complete = new Batcher((items) => this.frontier.completeMany(items), 3, 200);

    let subscriber = options.subscriber;
    if (!subscriber && typeof (options.redis as Redis).duplicate === 'function') {
      // No ready check: its INFO is refused once the connection is in subscriber mode. A
      // Cluster's duplicate() takes start-up nodes first: call it bare.
      const duplicate = options.redis.isCluster
        ? (options.redis as Cluster).duplicate()
        : (options.redis as Redis).duplicate({ enableReadyCheck: false });
      duplicate.on('error', (error) => this.#log.warn({ err: error }, 'wake subscriber error'));
      this.#ownSubscriber = duplicate;
      subscriber = duplicate;
    }
    const loopOptions: ConstructorParameters<typeof WorkLoop>[0] = {
      frontier: this.frontier,
      pod: this.id,
      concurrency,
      handle: (lease, signal) => this.#handle(lease, signal),
      minClaimIntervalMs: check.int(OWNER, 'minClaimIntervalMs', options.minClaimIntervalMs, 10, 0),
      maxIdleSleepMs: check.int(OWNER, 'maxIdleSleepMs', options.maxIdleSleepMs, 1000, 1),
      heartbeatIntervalMs: leaseTimeoutMs > 0 ? heartbeatIntervalMs : 0,
      onError: (error, where) => this.#log.warn({ err: error, where }, 'work loop error'),
      onLeaseLost: (lease) => this.#log.warn({ url: lease.url }, 'lease lost while fetching'),
    };
    if (subscriber) {
      loopOptions.wake = { channel: this.frontier.wakeChannel(this.id), subscriber };
    }
    if (this.#exitGraceMs !== undefined) loopOptions.shouldExit = () => this.#shouldExit();
    if (options.assignment) {
      const assignment = options.assignment;
      ownerOf = (domain) => assignment.ownerOf(domain);
      this.membership = undefined;
      this.#unsubscribeAssignment = assignment.onChange(() => this.#loop.poke());
    } else {
      const membership = new Membership({
        redis: options.redis,
        podId: this.id,
        prefix,
        frontier: this.frontier,
        weight,
        sessionTimeoutMs,
        vnodes: ringVnodes,
        seed: ringSeed,
      });
      this.membership = membership;
      ownerOf = membership.ownerOf;
      loopOptions.canClaim = () => membership.ready;
      this.#unsubscribeAssignment = this.#watch(membership);
    }
    this.#loop = new WorkLoop(loopOptions);
  }

  /** Logs the membership's events; a change or handoff wakes the loop (new due entries). */
  #watch(membership: Membership): () => void {
    const log = this.#log;
    const listeners = {
      change: (c: Parameters<MembershipEvent<'change'>>[0]) => {
        log.info(
          {
            epoch: c.epoch,
            joined: c.joined,
            left: c.left,
            movedFraction: c.movedFraction,
          },
          'membership change',
        );
        this.#loop.poke();
      },
      handoff: (h: Parameters<MembershipEvent<'handoff'>>[0]) => {
        log.info(h, 'membership handoff');
        this.#loop.poke();
      },
      reclaimed: (r: Parameters<MembershipEvent<'reclaimed'>>[0]) => {
        log.info(r, 'membership reclaimed a removed pod');
        this.#loop.poke();
      },
      swept: (r: Parameters<MembershipEvent<'swept'>>[0]) => {
        if (r.stranded.length > 0) log.info(r, 'membership sweep moved stranded domains');
      },
      restarted: () => log.info({ pod: this.id }, 'membership: restarted inside the session'),
      'session-lost': () =>
        log.warn({ pod: this.id }, 'membership: session had expired (stalled); joined again'),
      error: (error: Error) => log.warn({ err: error }, 'membership error (retried)'),
    };
    for (const [event, listener] of Object.entries(listeners)) {
      membership.on(event as 'error', listener as (e: Error) => void);
    }
    return () => {
      for (const [event, listener] of Object.entries(listeners)) {
        membership.off(event as 'error', listener as (e: Error) => void);
      }
    };
  }

  /** The User-Agent header value the pod sends. */
  get userAgent(): string {
    return this.#fetcher.userAgent;
  }

  /**
   * Queues seed URLs (depth 0 unless given). With membership the pod joins first (owners come
   * from the ring), without claiming until {@link start}.
   */
  async seed(urls: readonly EnqueueItem[]): Promise<EnqueueReport> {
    await this.#join();
    const report = await this.frontier.enqueue(urls);
    if (report.wokenPods.includes(this.id)) this.#loop.poke();
    return report;
  }

  #join(): Promise<void> {
    this.#joined ??= (async () => {
      if (!this.membership) return;
      // start() requeues a previous incarnation's leases itself and waits for a survivor
      // still reclaiming this id: the pod must not claim before it resolves.
      await this.membership.start();
      this.#log.info(
        { pod: this.id, epoch: this.membership.epoch, members: this.membership.members() },
        'membership joined',
      );
    })();
    return this.#joined;
  }

  /**
   * Joins the membership (when not yet joined by {@link seed}), then starts the work loop
   * (subscribes to the wake channel first). The loop claims only while the membership is
   * ready.
   */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    this.#log.info(
      { pod: this.id, userAgent: this.userAgent, results: this.resultsStreamKey },
      'pod starting',
    );
    await this.#join();
    if (this.#stopped) return; // stop() came while joining
    await this.#loop.start();
    this.#loopRunning = true;
    void this.#loop.done.then(() => this.stop());
  }

  /**
   * Whether the pod takes work now: joined, on its ring, loop running, not draining. The
   * readiness probe adds a Redis PING (see the health server).
   */
  get ready(): boolean {
    if (!this.#loopRunning || this.#draining || this.#stopped) return false;
    return this.membership?.ready ?? true;
  }

  /** False once the pod has stopped completely (the liveness probe). */
  get live(): boolean {
    return !this.#finished;
  }

  /**
   * Resolves when the pod has stopped: after {@link stop}, or by itself with `exitWhenIdle`.
   * Every lease is settled and every result written by then.
   */
  get done(): Promise<void> {
    return this.#loop.done.then(() => this.#stopped);
  }

  /**
   * Stops; idempotent. Graceful (SIGTERM, `/drain`, `exitWhenIdle`): no more claims; leases in
   * flight get `stopGraceMs` to finish, then are aborted and released — all while the
   * membership keeps heartbeating; then the membership stops gracefully (leaves, bumping the
   * epoch, hands the due index off, waits for its reclaims). Results are flushed; the fetcher
   * and the pod's own connections close. The Redis client passed in stays open.
   * `graceful: false` (fatal error): leases in flight are aborted and released at once and the
   * membership only stops heartbeating — the other pods treat the pod as crashed.
   */
  stop(options: { graceful?: boolean } = {}): Promise<void> {
    const graceful = options.graceful ?? true;
    this.#stopped ??= (async () => {
      this.#draining = true;
      await this.#loop.stop(graceful ? this.#stopGraceMs : 0);
      // Robots loads the released leases no longer wait for: abort them, cache nothing.
      this.#closing.abort();
      // Foreign hosts the last claims found are still being moved to their owners.
      await this.frontier.forwarded();
      await this.#enqueue.drain();
      await this.#complete.drain();
      this.#unsubscribeAssignment();
      const member = this.membership;
      if (member && this.#joined) {
        await this.#joined.catch(() => undefined);
        // Every lease is settled by now (finished or released). A lease whose settle failed
        // may still be held: then pass no callback, so survivors requeue this pod's leases.
        const stopOptions: StopOptions = { graceful };
        if (graceful && this.#unsettled === 0) stopOptions.releaseLeases = async () => undefined;
        try {
          await member.stop(stopOptions);
          this.#log.info({ pod: this.id, graceful }, 'membership left');
        } catch (error) {
          this.#log.error({ err: error }, 'membership stop failed (others treat it as a crash)');
        }
      }
      await this.#results.close();
      await this.#fetcher.close().catch(() => undefined);
      if (this.#ownSubscriber) await this.#ownSubscriber.quit().catch(() => undefined);
      this.#finished = true;
      this.#log.info(this.stats(), 'pod stopped');
    })();
    return this.#stopped;
  }

  /** Counters since start. */
  stats(): PodStats {
    const loop = this.#loop.stats();
    const results = this.#results.stats();
    return {
      pod: this.id,
      ...this.#stats,
      robotsLoads: { ...this.#stats.robotsLoads },
      errors: { ...this.#stats.errors },
      bounds: { ...this.#stats.bounds },
      inFlight: loop.inFlight,
      claims: loop.claims,
      emptyClaims: loop.emptyClaims,
      wakes: loop.wakes,
      gate: this.#gate.stats(),
      results: { written: results.written, errors: results.errors },
    };
  }

  // ───────────────────────────── one lease ─────────────────────────────

  async #handle(lease: Lease, signal: AbortSignal): Promise<void> {
    const base: Base = {
      url: lease.url,
      host: lease.host,
      domain: lease.domain,
      depth: lease.depth,
      attempt: lease.attempt,
      pod: this.id,
      startedAtMs: Date.now(),
    };
    try {
      await this.#crawl(lease, signal, base);
    } catch (error) {
      // A Redis failure while settling: the lease expires and is retried elsewhere.
      this.#unsettled += 1;
      this.#log.error({ err: error, url: lease.url }, 'lease handling failed');
    }
  }

  async #crawl(lease: Lease, signal: AbortSignal, base: Base): Promise<void> {
    // 1. Address policy first: no robots.txt request to a refused address either.
    try {
      await this.#dns.resolve(lease.host);
    } catch (error) {
      if (!(error instanceof DnsError)) throw error;
      const refused =
        error.code === DnsErrorCode.REFUSED_ADDRESS || error.code === DnsErrorCode.INVALID_HOSTNAME;
      const code = refused ? FetchErrorCode.DNS_REFUSED : FetchErrorCode.DNS;
      await this.#fail(lease, base, undefined, {
        retryable: !refused,
        code,
        message: error.message,
        sent: false,
      });
      return;
    }

    // 2. robots.txt (fetched through the send gate, cached in memory and Redis).
    let robots: RobotsLoadResult;
    try {
      robots = await this.#robots.load(lease.url, { signal });
    } catch (error) {
      if (signal.aborted) return this.#release(lease, base);
      await this.#fail(lease, base, undefined, {
        retryable: true,
        code: 'robots-error',
        message: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    this.#stats.robotsLoads[robots.from] += 1;
    const rules = robots.robots;
    const crawlDelayMs = Math.min(rules.crawlDelayMs(this.#token) ?? 0, this.#maxCrawlDelayMs);
    if (robots.from !== 'memory') {
      // Before this lease completes: complete() computes the host's next slot with it.
      await this.frontier.setHostPolicy(
        lease.host,
        { crawlDelayMs: crawlDelayMs > 0 ? crawlDelayMs : null },
        lease.domain,
      );
    }
    this.#gate.setHostDelay(lease.host, crawlDelayMs);
    if (robots.from === 'fetch' && rules.isAllowed(lease.url, this.#token)) {
      const waitMs = this.#gate.waitMs(lease.host);
      if (waitMs >= SLOT_RELEASE_MIN_WAIT_MS) {
        // The sitemaps robots.txt lists go out with the answer that found them (the lease
        // that comes back reads robots.txt from memory).
        const listed = this.#robotsSitemaps(lease, rules, robots, []);
        if (listed.length > 0) await this.#enqueueLinks(listed);
        return this.#releaseForGap(lease, waitMs);
      }
    }
    if (!rules.isAllowed(lease.url, this.#token)) {
      const unreachable = robots.unreachable > 0;
      if (unreachable && robots.unreachable <= this.#robotsMaxRetries) {
        // RFC 9309 §2.3.1.4: disallowed *until retried* — the URL waits for the retry.
        return this.#deferForRobots(lease, base, robots);
      }
      this.#stats.robotsDisallowed += 1;
      await this.#fail(lease, base, undefined, {
        retryable: false,
        code: unreachable
          ? CrawlOutcomeCode.ROBOTS_UNREACHABLE
          : CrawlOutcomeCode.ROBOTS_DISALLOWED,
        message: unreachable
          ? `robots.txt unreachable ${robots.unreachable} times in a row (${rules.reason ?? 'error'})`
          : 'robots.txt',
        sent: false,
      });
      return;
    }

    // 3. The send gate, then one fetch.
    let pass: Awaited<ReturnType<SendGate['acquire']>>;
    try {
      pass = await this.#gate.acquire(lease.host, signal);
    } catch {
      return this.#release(lease, base);
    }
    const level = sitemapLevel(lease.meta);
    const sitemap = level !== undefined;
    let outcome: FetchOutcome;
    try {
      outcome = await this.#fetcher.fetch(lease.url, {
        signal,
        onSent: pass.sent,
        keepBody: sitemap ? 'always' : 'html',
        // The protocol's 50 MiB; a gzip body is inflated later under the same cap.
        ...(sitemap ? { maxBodyBytes: SITEMAP_MAX_BYTES } : {}),
      });
    } catch (error) {
      // Only a closed fetcher rejects (the pod is stopping).
      pass.done();
      if (signal.aborted) return this.#release(lease, base);
      throw error;
    }
    const t = outcome.timings;
    pass.done(t.sentAtMs === undefined ? undefined : t.endAtMs - t.sentAtMs);

    // 4. Classify.
    if (outcome.error?.code === FetchErrorCode.ABORTED) {
      return this.#release(lease, base, outcome);
    }
    if (outcome.error) {
      await this.#fail(lease, base, outcome, {
        retryable: RETRYABLE_FETCH.has(outcome.error.code),
        code: outcome.error.code,
        message: outcome.error.message,
        sent: !UNSENT_FETCH.has(outcome.error.code),
      });
      return;
    }
    if (outcome.status === 429 || outcome.status >= 500) {
      await this.#fail(lease, base, outcome, {
        retryable: true,
        code: `http-${outcome.status}`,
        message: `HTTP ${outcome.status}`,
      });
      return;
    }
    const bounds: string[] = [];
    if (outcome.truncated && outcome.body) bounds.push('body-cap');
    let sitemapError: string | undefined;
    let links: EnqueueItem[] = [];
    if (outcome.status >= 300 && outcome.status < 400 && outcome.redirectTo) {
      // Not followed inline: the target goes through the frontier (robots, dedup, politeness).
      this.#stats.redirects += 1;
      const targets = this.#scoped([outcome.redirectTo], lease, rules, bounds);
      // A moved sitemap is still a sitemap.
      if (sitemap) for (const item of targets) item.meta = lease.meta;
      links = targets;
    } else if (outcome.status >= 200 && outcome.status < 300 && outcome.body) {
      if (sitemap) {
        const read = await this.#sitemapLinks(outcome, lease, level, rules, bounds);
        links = read.links;
        sitemapError = read.error;
      } else links = this.#pageLinks(outcome, lease, rules, bounds);
    }
    links.push(...this.#robotsSitemaps(lease, rules, robots, bounds));
    let linksQueued = 0;
    if (links.length > 0) {
      // Links first, then the ack: a crash in between re-fetches the page, never loses links.
      const results = await this.#enqueueLinks(links);
      for (const r of results) if (r.status === 'queued') linksQueued += 1;
      for (const r of results) {
        if (r.status === 'over-cap') bounds.push('queue-cap');
        else if (r.code === 'SHARDLINE_ERR_URL_TOO_LONG') bounds.push('url-length');
        else if (r.code === 'SHARDLINE_ERR_FRONTIER_DEPTH') bounds.push('depth');
      }
    }
    const durationMs = durationOf(outcome);
    const [error] = await this.#complete.add([
      {
        lease,
        result: { status: outcome.status, bytes: outcome.bytes, durationMs, links: links.length },
      },
    ]);
    this.#stats.bytes += outcome.bytes;
    this.#stats.linksQueued += linksQueued;
    const unique = [...new Set(bounds)];
    for (const b of unique) this.#stats.bounds[b] = (this.#stats.bounds[b] ?? 0) + 1;
    let result: CrawlOutcome = 'fetched';
    if (error) {
      result = 'lost';
      this.#stats.lost += 1;
    } else this.#stats.fetched += 1;
    if (outcome.status >= 400) this.#count(`http-${outcome.status}`);
    this.#results.write({
      ...base,
      outcome: result,
      ...fetchFields(outcome),
      links: links.length,
      linksQueued,
      ...(unique.length > 0 ? { bounds: unique.join(',') } : {}),
      ...(error ? { errorCode: CrawlOutcomeCode.LEASE_LOST, error: error.message } : {}),
      ...(!error && sitemapError ? { error: sitemapError } : {}),
    });
  }

  /**
   * With `enqueueSitemaps`, the sitemaps a freshly fetched robots.txt lists — through the
   * frontier like any URL: scope, dedup, robots and the host's politeness.
   */
  #robotsSitemaps(
    lease: Lease,
    rules: RobotsTxt,
    robots: RobotsLoadResult,
    bounds: string[],
  ): EnqueueItem[] {
    if (!this.#enqueueSitemaps || robots.from !== 'fetch' || rules.sitemaps.length === 0) return [];
    const listed = rules.sitemaps.slice(0, MAX_SITEMAPS_PER_ROBOTS);
    return this.#scoped(listed, lease, rules, bounds, true).map((item) => ({
      url: item.url,
      depth: lease.depth,
      meta: SITEMAP_META,
    }));
  }

  #pageLinks(outcome: FetchOutcome, lease: Lease, rules: RobotsTxt, bounds: string[]) {
    const html = decodeBody(outcome.body!, outcome.charset ?? 'utf-8');
    const found = this.#extractor.extract(html, lease.url, outcome.headers);
    if (found.counts.overLimit > found.counts.pageNofollow) bounds.push('links-per-page');
    if ((found.counts.invalid.SHARDLINE_ERR_URL_TOO_LONG ?? 0) > 0) bounds.push('url-length');
    return this.#scoped(found.links, lease, rules, bounds);
  }

  /**
   * Sitemap body → items: a urlset's pages (scoped like links, one depth deeper); an index's
   * sitemaps (same depth, one level deeper, up to MAX_SITEMAP_LEVEL). Broken or oversized
   * bodies are bounded and recorded (bounds `sitemap-*`, result `error`), never thrown.
   */
  async #sitemapLinks(
    outcome: FetchOutcome,
    lease: Lease,
    level: number,
    rules: RobotsTxt,
    bounds: string[],
  ): Promise<{ links: EnqueueItem[]; error?: string }> {
    const read = await readSitemap(outcome.body!, {
      maxUrls: SITEMAP_MAX_URLS,
      maxBytes: SITEMAP_MAX_BYTES,
    });
    bounds.push(...read.bounds);
    if (read.error) bounds.push('sitemap-invalid');
    const error = read.error ? `sitemap: ${read.error}` : undefined;
    if (read.kind !== 'index') {
      const links = read.kind === 'urlset' ? this.#scoped(read.urls, lease, rules, bounds) : [];
      return error ? { links, error } : { links };
    }
    if (level >= MAX_SITEMAP_LEVEL) {
      bounds.push('sitemap-nesting');
      return error ? { links: [], error } : { links: [] };
    }
    if (read.urls.length > MAX_SITEMAPS_PER_INDEX) bounds.push('sitemap-urls');
    const listed = read.urls.slice(0, MAX_SITEMAPS_PER_INDEX);
    const links = this.#scoped(listed, lease, rules, bounds, true).map((item) => ({
      url: item.url,
      depth: lease.depth,
      meta: `${SITEMAP_META}:${level + 1}`,
    }));
    return error ? { links, error } : { links };
  }

  /** Scope (domain, patterns, depth) and same-origin robots, in link order. */
  #scoped(
    urls: readonly string[],
    lease: Lease,
    rules: RobotsTxt,
    bounds: string[],
    sameDepth = false,
  ) {
    const items: { url: string; depth: number; meta?: string }[] = [];
    let origin: string | undefined;
    for (const url of urls) {
      // sameDepth: a sitemap is no step away from the page that led to it (depth unchanged).
      const decision = this.#scope.decide(
        url,
        sameDepth ? lease.depth - 1 : lease.depth,
        lease.url,
      );
      if (decision !== 'ok') {
        if (decision === 'too-deep') bounds.push('depth');
        continue;
      }
      // Same origin: the rules are at hand, so a disallowed link never costs a claim.
      origin ??= originOf(lease.url);
      if (originOf(url) === origin && !safeAllowed(rules, url, this.#token)) {
        this.#stats.robotsFilteredLinks += 1;
        continue;
      }
      items.push({ url, depth: lease.depth + 1 });
    }
    return items;
  }

  async #enqueueLinks(items: EnqueueItem[]): Promise<EnqueueResult[]> {
    return this.#enqueue.add(items);
  }

  async #enqueueNow(items: EnqueueItem[]): Promise<EnqueueResult[]> {
    // maxPagesPerDomain is enforced inside the frontier's enqueue script (atomic per domain).
    const results: EnqueueResult[] = [];
    let woken = false;
    // A sitemap's 50,000 URLs in one script call would stall Redis: chunks.
    for (let i = 0; i < items.length; i += MAX_ENQUEUE_CHUNK) {
      const report = await this.frontier.enqueue(items.slice(i, i + MAX_ENQUEUE_CHUNK));
      if (report.wokenPods.includes(this.id)) woken = true;
      for (const r of report.results) results.push(r);
    }
    if (woken) this.#loop.poke();
    return results;
  }

  async #fail(
    lease: Lease,
    base: Base,
    outcome: FetchOutcome | undefined,
    why: { retryable: boolean; code: string; message: string; sent?: boolean },
  ): Promise<void> {
    // sent: false (refused before any request went out) leaves the host's slot and backoff.
    const fail: Parameters<RedisFrontier['fail']>[1] = {
      retryable: why.retryable,
      reason: why.code,
      status: outcome?.status ?? 0,
      sent: why.sent ?? true,
    };
    if (outcome?.retryAfterMs !== undefined) fail.retryAfterMs = Math.round(outcome.retryAfterMs);
    let result: CrawlOutcome;
    let errorCode = why.code;
    let message = why.message;
    try {
      const { outcome: next } = await this.frontier.fail(lease, fail);
      result = next === 'retry' ? 'retry' : 'dead';
    } catch (error) {
      if ((error as { code?: string }).code !== 'SHARDLINE_ERR_FRONTIER_LEASE_LOST') throw error;
      result = 'lost';
      errorCode = CrawlOutcomeCode.LEASE_LOST;
      message = `${why.code}: lease lost`;
    }
    if (result === 'retry') this.#stats.retried += 1;
    else if (result === 'dead') this.#stats.dead += 1;
    else this.#stats.lost += 1;
    this.#count(why.code);
    if (outcome) this.#stats.bytes += outcome.bytes;
    this.#results.write({
      ...base,
      outcome: result,
      ...(outcome ? fetchFields(outcome) : unfetched(base)),
      links: 0,
      linksQueued: 0,
      errorCode,
      error: message.slice(0, 300),
    });
  }

  async #release(lease: Lease, base: Base, outcome?: FetchOutcome): Promise<void> {
    try {
      await this.frontier.release(lease);
    } catch (error) {
      this.#log.warn({ err: error, url: lease.url }, 'release failed');
    }
    this.#stats.released += 1;
    this.#results.write({
      ...base,
      outcome: 'released',
      ...(outcome ? fetchFields(outcome) : unfetched(base)),
      links: 0,
      linksQueued: 0,
      errorCode: CrawlOutcomeCode.STOPPED,
      error: 'pod stopping',
    });
  }

  /**
   * The host's robots.txt request has just gone out and its page must wait a whole delay:
   * give the lease back untouched with the host held until the gap has passed, so the fetch
   * slot serves other hosts meanwhile. No result is written: the URL's one result comes when
   * it is claimed again (robots.txt then answers from memory or Redis).
   */
  async #releaseForGap(lease: Lease, waitMs: number): Promise<void> {
    try {
      await this.frontier.release(lease, { holdMs: Math.ceil(waitMs) });
      this.#stats.gapReleases += 1;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SHARDLINE_ERR_FRONTIER_LEASE_LOST') throw error;
      this.#stats.lost += 1;
    }
  }

  /**
   * The host's robots.txt is unreachable and will be retried at `robots.expiresAtMs`: give the
   * lease back (attempt unchanged) and hold the whole host until then, so neither this URL nor
   * another of the host is claimed before the retry. The frontier applies the hold by Redis
   * time; only its length comes from this pod's clock.
   */
  async #deferForRobots(lease: Lease, base: Base, robots: RobotsLoadResult): Promise<void> {
    const holdMs = Math.max(ROBOTS_MIN_HOLD_MS, Math.ceil(robots.expiresAtMs - Date.now()));
    let outcome: CrawlOutcome = 'deferred';
    let errorCode: string = CrawlOutcomeCode.ROBOTS_UNREACHABLE;
    try {
      await this.frontier.release(lease, { holdMs });
    } catch (error) {
      if ((error as { code?: string }).code !== 'SHARDLINE_ERR_FRONTIER_LEASE_LOST') throw error;
      outcome = 'lost';
      errorCode = CrawlOutcomeCode.LEASE_LOST;
    }
    if (outcome === 'deferred') this.#stats.robotsDeferred += 1;
    else this.#stats.lost += 1;
    this.#count(CrawlOutcomeCode.ROBOTS_UNREACHABLE);
    this.#results.write({
      ...base,
      outcome,
      ...unfetched(base),
      links: 0,
      linksQueued: 0,
      errorCode,
      error:
        `robots.txt unreachable (${robots.robots.reason ?? 'error'}), attempt ${robots.unreachable} of ${this.#robotsMaxRetries + 1}; host held ${Math.round(holdMs / 1000)} s until the retry`.slice(
          0,
          300,
        ),
    });
  }

  #count(code: string): void {
    this.#stats.errors[code] = (this.#stats.errors[code] ?? 0) + 1;
  }

  // ───────────────────────────── robots politeness ─────────────────────────────

  async #robotsBeforeFetch(origin: string): Promise<void> {
    const host = new URL(origin).hostname;
    const pass = await this.#gate.acquire(host, this.#closing.signal);
    // The loader reports the hop's real send time in onFetch; keep the pass until then.
    let list = this.#robotsPasses.get(host);
    if (!list) {
      list = [];
      this.#robotsPasses.set(host, list);
    }
    list.push(pass);
  }

  readonly #robotsPasses = new Map<string, Awaited<ReturnType<SendGate['acquire']>>[]>();
  /** Aborted once the work loop has stopped: robots.txt requests still running are abandoned. */
  readonly #closing = unlimitedListeners(new AbortController());

  #robotsAfterFetch(origin: string, timings: FetchOutcome['timings']): void {
    const host = new URL(origin).hostname;
    const list = this.#robotsPasses.get(host);
    const pass = list?.shift();
    if (list && list.length === 0) this.#robotsPasses.delete(host);
    if (!pass) return;
    if (timings.sentAtMs !== undefined) {
      // The response head is the last moment the server surely had the request: a server
      // that stamps arrivals late (busy at start-up, when every host's robots.txt is asked
      // at once) still sees the full gap before the first page. One request per host per day.
      pass.sent(timings.headersAtMs ?? timings.endAtMs);
      pass.done(timings.endAtMs - timings.sentAtMs);
    } else pass.done();
  }

  // ───────────────────────────── termination ─────────────────────────────

  async #shouldExit(): Promise<boolean> {
    if (this.#enqueue.pending > 0 || this.#complete.pending > 0) return false;
    const claimed = this.#loop.stats().claimed;
    const stats = await this.frontier.stats();
    const busy = (stats.queued ?? 0) > 0 || (stats.inFlight ?? 0) > 0;
    const now = Date.now();
    if (claimed !== this.#idleClaimed) {
      this.#idleClaimed = claimed;
      this.#idleSinceMs = busy ? undefined : now;
      this.#frozen = undefined;
      return false;
    }
    if (busy) {
      // The global sums stay off for good when a pod died between a script and its counter
      // update. Sums that have not moved while this pod claimed nothing for a while get an
      // exact check (the domains' own counters), again each such period while they stay put.
      const key = `${stats.queued ?? 0}/${stats.inFlight ?? 0}`;
      if (this.#frozen?.key !== key) this.#frozen = { key, sinceMs: now, settled: false };
      if (!this.#frozen.settled) {
        const waitMs = Math.max(FROZEN_COUNTERS_MS, this.#exitGraceMs ?? 0);
        if (now - this.#frozen.sinceMs >= waitMs) {
          this.#frozen.sinceMs = now;
          this.#frozen.settled = await this.frontier.settled();
        }
        if (!this.#frozen.settled) {
          this.#idleSinceMs = undefined;
          return false;
        }
      }
    } else this.#frozen = undefined;
    this.#idleSinceMs ??= now;
    return now - this.#idleSinceMs >= (this.#exitGraceMs ?? 0);
  }
}

function durationOf(outcome: FetchOutcome): number {
  const t = outcome.timings;
  return Math.max(0, Math.round(t.endAtMs - (t.sentAtMs ?? t.startedAtMs)));
}

/** The result fields of a lease that sent nothing (refused, deferred, released untouched). */
function unfetched(
  base: Base,
): Pick<CrawlResult, 'status' | 'bytes' | 'truncated' | 'endAtMs' | 'durationMs'> {
  const endAtMs = Date.now();
  return { status: 0, bytes: 0, truncated: false, endAtMs, durationMs: endAtMs - base.startedAtMs };
}

function fetchFields(outcome: FetchOutcome) {
  const t = outcome.timings;
  const fields: Pick<
    CrawlResult,
    | 'status'
    | 'bytes'
    | 'truncated'
    | 'endAtMs'
    | 'durationMs'
    | 'contentType'
    | 'redirectTo'
    | 'sentAtMs'
    | 'headersAtMs'
    | 'retryAfterMs'
  > = {
    status: outcome.status,
    bytes: outcome.bytes,
    truncated: outcome.truncated,
    endAtMs: t.endAtMs,
    durationMs: durationOf(outcome),
  };
  if (outcome.contentType !== undefined) fields.contentType = outcome.contentType;
  if (outcome.redirectTo !== undefined) fields.redirectTo = outcome.redirectTo;
  if (t.sentAtMs !== undefined) fields.sentAtMs = t.sentAtMs;
  if (t.headersAtMs !== undefined) fields.headersAtMs = t.headersAtMs;
  if (outcome.retryAfterMs !== undefined) fields.retryAfterMs = outcome.retryAfterMs;
  return fields;
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

function safeAllowed(rules: RobotsTxt, url: string, token: string): boolean {
  try {
    return rules.isAllowed(url, token);
  } catch {
    return true;
  }
}
