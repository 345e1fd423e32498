/**
 * Builds the parts of a crawler pod from its options: validates the settings (`settings.ts`),
 * then wires the frontier, the domain ownership (a `Membership` of the pod registry, or the
 * given `assignment`), DNS policy, fetcher, send gate, robots loader, link extraction and
 * scope, result sink, the lease pipeline and the work loop. `CrawlerPod` runs what this builds.
 */
import { setMaxListeners } from 'node:events';
import { createRequire } from 'node:module';
import { DnsCache } from '@shardline/dns';
import {
  crawlKeyPrefix,
  type FrontierError,
  RedisFrontier,
  RedisOomError,
} from '@shardline/frontier';
import { type Assignment, Membership } from '@shardline/membership';
import { createCanonicalizer } from '@shardline/url';
import type { Cluster, Redis } from 'ioredis';
import { type Logger, pino } from 'pino';
import { PodArchive } from './archive/pod-archive.js';
import { Batcher } from './batcher.js';
import { parseBudget } from './duration.js';
import { invalidOption } from './errors.js';
import { Fetcher } from './fetcher.js';
import { FrontierWatch } from './frontier-watch.js';
import { type ItemRecord, itemSink } from './handlers/items.js';
import { loadHandler } from './handlers/load-handler.js';
import type { PageHandler } from './handlers/page-api.js';
import { IdleExit } from './idle-exit.js';
import { HostAndIpGate, IpGate } from './ip-gate.js';
import { LinkExtractor, LinkScope } from './links.js';
import { logMembershipEvents } from './membership-log.js';
import { OVERRIDE_PORTS_CAP, SharedOverridePorts } from './override-ports.js';
import { ArchiveStage } from './pipeline/archive-stage.js';
import { ClassifyStage } from './pipeline/classify.js';
import { DiscoverLinksStage } from './pipeline/discover-links.js';
import { FetchStage } from './pipeline/fetch-stage.js';
import { HandlerStage } from './pipeline/handler-stage.js';
import { LeasePipeline } from './pipeline/lease-pipeline.js';
import { LinkEnqueuer } from './pipeline/link-enqueuer.js';
import { LinkFilter } from './pipeline/link-filter.js';
import { NotBeforeStage } from './pipeline/not-before.js';
import { RobotsStage } from './pipeline/robots-stage.js';
import { SendGateStage } from './pipeline/send-gate-stage.js';
import { type CompleteItem, completeSinceSent, Settler } from './pipeline/settle.js';
import type { LeaseStage } from './pipeline/stage.js';
import { VetAddressStage } from './pipeline/vet-address.js';
import { PodCounters } from './pod-counters.js';
import type { CrawlerPodOptions } from './pod-options.js';
import { RedisFaults, waitingWrites } from './redis-faults.js';
import { ResultSink } from './results.js';
import { RedisRobotsCache } from './robots-cache.js';
import { RobotsGate } from './robots-gate.js';
import { RobotsLoader } from './robots-loader.js';
import { SendGate } from './send-gate.js';
import type { PodSettings } from './settings.js';
import { resolvePodSettings } from './settings-resolve.js';
import { WorkLoop, type WorkLoopOptions } from './work-loop.js';

/** The crawler's version (the `warcinfo` record's software). */
const CRAWLER_VERSION = (createRequire(import.meta.url)('../package.json') as { version: string })
  .version;

/** What a pod is made of. */
export interface PodParts {
  settings: PodSettings;
  log: Logger;
  frontier: RedisFrontier;
  /** The pod registry membership; `undefined` when a fixed `assignment` was given. */
  membership: Membership | undefined;
  fetcher: Fetcher;
  robots: RobotsLoader;
  gate: SendGate;
  /** The cluster-wide per-IP gate; `undefined` when per-IP politeness is off. */
  ipGate: IpGate | undefined;
  results: ResultSink;
  /** The WARC archive; `undefined` without `warcDir` or with `noWarc`. */
  archive: PodArchive | undefined;
  /** The items sink, when there is a page handler. */
  items: ResultSink<ItemRecord> | undefined;
  /** Loads the page handler module (`handler`) when the pod starts; a no-op otherwise. */
  loadHandler: () => Promise<void>;
  counters: PodCounters;
  enqueuer: LinkEnqueuer;
  completer: Batcher<CompleteItem, FrontierError | null>;
  pipeline: LeasePipeline;
  loop: WorkLoop;
  /** Redis faults seen (OOM episodes, a lost frontier); the pod's writes wait out an OOM. */
  faults: RedisFaults;
  /** Checks that the frontier is still there; a lost one stops the loop at once. */
  watch: FrontierWatch;
  /** Aborted once the work loop has stopped: robots.txt requests still running are abandoned. */
  closing: AbortController;
  /** The wake subscriber the pod opened itself (it closes it on stop). */
  ownSubscriber: Redis | Cluster | undefined;
  /** Stops following the assignment's changes (and logging the membership's events). */
  unsubscribe: () => void;
}

/** How often a pod checks that the frontier's identity is unchanged (see frontier-watch.ts). */
const FRONTIER_CHECK_MS = 1000;

/** Builds a pod's parts; throws `SHARDLINE_ERR_CRAWLER_INVALID_OPTION` for a bad option. */
export function buildPod(options: CrawlerPodOptions): PodParts {
  if (typeof options !== 'object' || options === null) {
    throw invalidOption('CrawlerPod', 'options', options, 'an object');
  }
  const redis = options.redis as unknown;
  if (typeof redis !== 'object' || redis === null || typeof (redis as Redis).get !== 'function') {
    throw invalidOption('CrawlerPodOptions', 'redis', redis, 'an ioredis client');
  }
  const s = resolvePodSettings(options);
  const log = options.logger ?? pino({ level: 'warn' });
  // The loop is built last; what wakes it refers to it lazily.
  let loop: WorkLoop | undefined;
  const poke = () => loop?.poke();

  // The frontier asks for owners lazily (from its first enqueue or claim on), so frontier and
  // membership can refer to each other.
  const frontier = new RedisFrontier({
    redis: options.redis,
    ownerOf: (domain) => assignment.ownerOf(domain),
    prefix: s.prefix,
    crawlId: s.crawlId,
    leaseTimeoutMs: s.leaseTimeoutMs,
    maxRetries: s.maxRetries,
    maxDepth: s.maxDepth,
    maxAcceptedPerDomain: s.maxPagesPerDomain,
    maxAcceptedPerHost: s.maxPagesPerHost,
    domainBudget: s.domainBudget === undefined ? null : (parseBudget(s.domainBudget) ?? null),
    defaultDelayMs: s.minDelayMs,
    defaultConcurrency: s.perHostConcurrency,
    adaptiveDelayFactor: s.adaptiveDelayFactor,
    adaptiveDelay: s.adaptiveDelay,
    maxDelayMs: s.maxDelayMs,
    refetchAfterMs: s.refetchAfterMs,
    refetchAdaptive: s.refetchAdaptive,
    refetchMinMs: s.refetchMinMs,
    refetchMaxMs: s.refetchMaxMs,
    backoffBaseMs: s.backoffBaseMs,
    backoffMaxMs: s.backoffMaxMs,
    onBackgroundError: (error, operation) =>
      log.warn({ err: error, operation }, 'frontier background operation failed'),
  });
  const membership = options.assignment
    ? undefined
    : new Membership({
        redis: options.redis,
        podId: s.podId,
        // A crawl's pods form their own ring (politeness is shared through the frontier).
        prefix: crawlKeyPrefix(s.prefix, s.crawlId),
        frontier,
        weight: s.podWeight,
        sessionTimeoutMs: s.sessionTimeoutMs,
        vnodes: s.ringVnodes,
        seed: s.ringSeed,
        // The politeness defaults the frontier scripts and the send gate use, for readers
        // (`shardline domain`) that would otherwise have to assume them.
        settings: {
          minDelayMs: s.minDelayMs,
          perHostConcurrency: s.perHostConcurrency,
          maxDelayMs: s.maxDelayMs,
          adaptiveDelay: s.adaptiveDelay,
        },
      });
  const assignment: Assignment = membership ?? options.assignment!;
  const stopPoking = assignment.onChange(poke);
  const stopLogging = membership ? logMembershipEvents(membership, log, s.podId) : undefined;

  const closing = unlimitedListeners(new AbortController());
  const faults = new RedisFaults({ log });
  // Every write of the lease path waits while Redis is full (see redis-faults.ts).
  const writes = waitingWrites(frontier, faults);
  const watch = new FrontierWatch({
    frontier,
    redis: options.redis,
    pod: s.podId,
    intervalMs: FRONTIER_CHECK_MS,
    log,
    onLost: (error) => {
      faults.frontierLost(error);
      void loop?.stop(0);
    },
  });
  const dns = new DnsCache({
    overrides: s.resolve,
    // A `host:addr` override reaches its seeds' ports only (vet-address allows them).
    portlessOverridePorts: 'allowed',
    allowPrivateAddresses: s.allowPrivateAddresses,
  });
  const fetcher = new Fetcher({
    productToken: s.userAgentToken,
    dns,
    connectionsPerOrigin: s.perHostConcurrency,
    ...(s.contactUrl === undefined ? {} : { contactUrl: s.contactUrl }),
    maxBodyBytes: s.maxBodyBytes,
    maxFetchMs: s.fetchTimeoutMs,
    headersTimeoutMs: s.headersTimeoutMs,
    bodyTimeoutMs: s.bodyTimeoutMs,
    connectTimeoutMs: s.connectTimeoutMs,
  });
  const gate = new SendGate({
    minDelayMs: s.minDelayMs,
    concurrency: s.perHostConcurrency,
    adaptiveDelayFactor: s.adaptiveDelayFactor,
    maxDelayMs: s.maxDelayMs,
  });
  const ipGate = buildIpGate(options, s, log);
  // Pages and robots.txt requests take the host's pass, then (with per-IP politeness) the pass
  // of the address the pod's DNS cache resolves the host to.
  const sendGate = ipGate
    ? new HostAndIpGate(gate, ipGate, async (host) => {
        try {
          return (await dns.resolve(host))[0]?.address;
        } catch {
          return undefined;
        }
      })
    : gate;
  const robotsGate = new RobotsGate(sendGate, closing.signal);
  const archive =
    s.warcDir === undefined || s.noWarc
      ? undefined
      : new PodArchive({
          dir: s.warcDir,
          pod: s.podId,
          maxFileBytes: s.warcMaxBytes,
          info: {
            software: `shardline/${CRAWLER_VERSION}`,
            format: 'WARC File Format 1.1',
            conformsTo:
              'https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/',
            pod: s.podId,
            'http-header-user-agent': fetcher.userAgent,
            robots: `obey (RFC 9309, token ${s.userAgentToken})`,
          },
          requestHeaders: fetcher.requestHeaders,
          dns,
          logger: log,
        });
  const robots = new RobotsLoader({
    fetcher,
    sharedCache: new RedisRobotsCache({ redis: options.redis, prefix: s.prefix }),
    beforeFetch: robotsGate.beforeFetch,
    onFetch: (hop) => {
      robotsGate.onFetch(hop);
      archive?.archiveInBackground(hop.outcome);
    },
    unreachableRetryMs: s.robotsRetryMs,
    signal: closing.signal,
  });
  const results = new ResultSink({
    redis: options.redis,
    streamKey: s.resultsStreamKey,
    maxLen: s.resultsMaxLen,
    ...(s.resultsJsonl === undefined ? {} : { jsonlPath: s.resultsJsonl }),
    ...(options.onResult === undefined ? {} : { onResult: options.onResult }),
  });
  const counters = new PodCounters();
  // The page handler: the pod option, or the module `handler` names, loaded at start.
  let handler: PageHandler | undefined = options.pageHandler;
  const wantsHandler = handler !== undefined || s.handler !== undefined;
  const items = wantsHandler
    ? itemSink({
        redis: options.redis,
        streamKey: s.itemsStreamKey,
        maxLen: s.itemsMaxLen,
        jsonlPath: s.itemsJsonl,
      })
    : undefined;
  const enqueuer = new LinkEnqueuer({ frontier: writes, pod: s.podId, onWoken: poke });
  const completer = new Batcher(
    (items: CompleteItem[]) => writes.completeMany(completeSinceSent(items)),
    3,
    200,
  );
  const links = new LinkFilter({
    scope: new LinkScope({
      sameDomainOnly: s.sameDomainOnly,
      maxDepth: s.maxDepth,
      denyPatterns: s.denyPatterns,
      ...(s.allowDomains === undefined ? {} : { allowDomains: s.allowDomains }),
    }),
    userAgentToken: s.userAgentToken,
    enqueueSitemaps: s.enqueueSitemaps,
    counters,
  });
  const enqueue = enqueuer.add.bind(enqueuer);
  // The pod's lease pipeline. The archive stage right after the fetch (every response is kept,
  // errors and redirects too), the page handler after classify (pages that completed), both
  // before discover-links and the settlement.
  const stages: LeaseStage[] = [
    new VetAddressStage(
      dns,
      new SharedOverridePorts({
        redis: options.redis,
        prefix: s.prefix,
        onFull: () =>
          log.warn(
            { cap: OVERRIDE_PORTS_CAP },
            'seed ports of --resolve overrides are at their cap: a host handed over to another pod may refuse its seed port; give host:port:address overrides',
          ),
      }),
    ),
    new NotBeforeStage(),
    new RobotsStage({
      loader: robots,
      frontier: writes,
      gate,
      links,
      enqueue,
      counters,
      userAgentToken: s.userAgentToken,
      maxCrawlDelayMs: s.maxCrawlDelayMs,
      robotsMaxRetries: s.robotsMaxRetries,
    }),
    new SendGateStage(sendGate),
    new FetchStage(fetcher, { keepAllBodies: archive !== undefined || wantsHandler }),
    ...(archive ? [new ArchiveStage(archive)] : []),
    new ClassifyStage(),
    ...(items
      ? [
          new HandlerStage({
            handler: () => handler!,
            frontier,
            timeoutMs: s.handlerTimeoutMs,
            pod: s.podId,
            items,
            links,
            enqueue,
            counters,
            logger: log,
          }),
        ]
      : []),
    new DiscoverLinksStage({
      extractor: new LinkExtractor({
        userAgentToken: s.userAgentToken,
        maxLinksPerPage: s.maxLinksPerPage,
        canonicalizer: createCanonicalizer(),
      }),
      links,
      enqueue,
      counters,
    }),
  ];
  const settler = new Settler({
    frontier: writes,
    complete: completer,
    results,
    counters,
    logger: log,
    robotsMaxRetries: s.robotsMaxRetries,
  });
  const pipeline = new LeasePipeline({ pod: s.podId, stages, settler, logger: log });

  const ownSubscriber = options.subscriber ? undefined : duplicateSubscriber(options.redis, log);
  const subscriber = options.subscriber ?? ownSubscriber;
  const loopOptions: WorkLoopOptions = {
    frontier: writes,
    pod: s.podId,
    concurrency: s.concurrency,
    handle: (lease, signal) => pipeline.handle(lease, signal),
    minClaimIntervalMs: s.minClaimIntervalMs,
    maxIdleSleepMs: s.maxIdleSleepMs,
    claimLeadMs: s.claimLeadMs,
    heartbeatIntervalMs: s.leaseTimeoutMs > 0 ? s.heartbeatIntervalMs : 0,
    onError: (error, where) => {
      // A full Redis is logged once per episode by `faults`, not once per claim.
      if (!(error instanceof RedisOomError)) log.warn({ err: error, where }, 'work loop error');
    },
    onLeaseLost: (lease) => log.warn({ url: lease.url }, 'lease lost while fetching'),
  };
  if (subscriber) loopOptions.wake = { channel: frontier.wakeChannel(s.podId), subscriber };
  if (membership) loopOptions.canClaim = () => membership.ready;
  if (s.exitWhenIdle !== undefined) {
    const idle = new IdleExit({
      frontier,
      graceMs: s.exitWhenIdle,
      claimed: () => loop!.stats().claimed,
      pendingWrites: () => enqueuer.pending > 0 || completer.pending > 0,
    });
    // An emptied Redis looks idle: the frontier must still be the one the pod worked on.
    loopOptions.shouldExit = async () => (await watch.check()) || idle.shouldExit();
  }
  loop = new WorkLoop(loopOptions);
  return {
    settings: s,
    log,
    frontier,
    membership,
    fetcher,
    robots,
    gate,
    ipGate,
    results,
    archive,
    items,
    loadHandler: async () => {
      if (handler === undefined && s.handler !== undefined) handler = await loadHandler(s.handler);
    },
    counters,
    enqueuer,
    completer,
    pipeline,
    loop,
    faults,
    watch,
    closing,
    ownSubscriber,
    unsubscribe: () => {
      stopPoking();
      stopLogging?.();
    },
  };
}

/** The per-IP gate when `perIpDelayMs` or `perIpConcurrency` asks for one. */
function buildIpGate(options: CrawlerPodOptions, s: PodSettings, log: Logger): IpGate | undefined {
  if (s.perIpDelayMs === 0 && s.perIpConcurrency === 0) return undefined;
  return new IpGate({
    redis: options.redis,
    prefix: s.prefix,
    pod: s.podId,
    delayMs: s.perIpDelayMs,
    concurrency: s.perIpConcurrency,
    // A pass outlives any request it covers (connect + the whole fetch), then stops counting.
    passLifetimeMs: s.connectTimeoutMs + s.fetchTimeoutMs + 10_000,
    onError: (error, operation) => log.warn({ err: error, operation }, 'per-IP gate call failed'),
  });
}

/**
 * Every robots.txt request in flight (and every robots send waiting at the gate) listens to the
 * pod's one closing signal and stops listening when it ends: hundreds at once at the start of a
 * crawl, none left behind, so Node's "possible leak" warning past 10 listeners does not apply.
 */
function unlimitedListeners(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}

/**
 * The wake channel's own connection, for a plain client (closed by the pod). No ready check:
 * its INFO is refused once the connection is in subscriber mode. A Cluster's duplicate() takes
 * start-up nodes first: call it bare.
 */
function duplicateSubscriber(redis: Redis | Cluster, log: Logger): Redis | Cluster | undefined {
  if (typeof (redis as Redis).duplicate !== 'function') return undefined;
  const duplicate = redis.isCluster
    ? (redis as Cluster).duplicate()
    : (redis as Redis).duplicate({ enableReadyCheck: false });
  // Connection errors are the main client's to report (one line per backoff step).
  duplicate.on('error', (error: NodeJS.ErrnoException) => {
    if (typeof error.code === 'string' && error.code.startsWith('E')) {
      log.debug({ code: error.code }, 'wake subscriber: connection error');
    } else log.warn({ err: error }, 'wake subscriber error');
  });
  return duplicate;
}
