/**
 * Builds the parts of a crawler pod from its options: validates the settings (`settings.ts`),
 * then wires the frontier, the domain ownership (a `Membership` of the pod registry, or the
 * given `assignment`), DNS policy, fetcher, send gate, robots loader, link extraction and
 * scope, result sink, the lease pipeline and the work loop (the parts made from settings
 * alone come from `pod-components.ts`). `CrawlerPod` runs what this builds.
 */
import { DnsCache } from '@shardline/dns';
import {
  crawlKeyPrefix,
  type FrontierError,
  type RedisFrontier,
  RedisOomError,
} from '@shardline/frontier';
import { type Assignment, Membership } from '@shardline/membership';
import { createCanonicalizer } from '@shardline/url';
import type { Cluster, Redis } from 'ioredis';
import { type Logger, pino } from 'pino';
import type { PodArchive } from './archive/pod-archive.js';
import { Batcher } from './batcher.js';
import { invalidOption } from './errors.js';
import { Fetcher } from './fetcher.js';
import { foldFinishedDomains } from './fold-finished.js';
import { FrontierWatch } from './frontier-watch.js';
import { type ItemRecord, itemSink } from './handlers/items.js';
import { loadHandler } from './handlers/load-handler.js';
import type { PageHandler } from './handlers/page-api.js';
import { IdleExit } from './idle-exit.js';
import { HostAndIpGate, type IpGate } from './ip-gate.js';
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
import {
  buildIpGate,
  duplicateSubscriber,
  newArchive,
  newFrontier,
  unlimitedListeners,
} from './pod-components.js';
import { PodCounters } from './pod-counters.js';
import type { CrawlerPodOptions } from './pod-options.js';
import { RedisFaults, waitingWrites } from './redis-faults.js';
import { jsonlOptions, ResultSink } from './results.js';
import { RedisRobotsCache } from './robots-cache.js';
import { RobotsGate } from './robots-gate.js';
import { RobotsLoader } from './robots-loader.js';
import { SendGate } from './send-gate.js';
import type { PodSettings } from './settings.js';
import { resolvePodSettings } from './settings-resolve.js';
import { WorkLoop, type WorkLoopOptions } from './work-loop.js';

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

  const frontier = newFrontier(options, s, log, (domain) => assignment.ownerOf(domain));
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
  // Another instance has this pod's id now (this process stalled): stop claiming at once.
  membership?.on('superseded', () => void loop?.stop(0));
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
  const archive = newArchive(s, fetcher, dns, log);
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
    ...jsonlOptions(s.resultsJsonl, 'results', log),
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
        jsonl: jsonlOptions(s.itemsJsonl, 'items', log),
      })
    : undefined;
  if (!wantsHandler && s.itemsJsonl !== undefined) {
    // Only a page handler pushes items: the file would stay empty without a word.
    log.warn(
      { itemsJsonl: s.itemsJsonl },
      'items JSONL file given without a page handler (--handler): nothing pushes items, so it is not written',
    );
  }
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
    // A finished crawl's last domains are folded before the exit (fold-finished.ts).
    loopOptions.shouldExit = async () =>
      (await watch.check()) ||
      ((await idle.shouldExit()) &&
        (await foldFinishedDomains(
          { claim: writes.claim, release: writes.release, inspector: frontier.inspector },
          s.podId,
        ).catch((error: unknown) => {
          // Only bytes are at stake: the next pod of the crawl folds them at its first visit.
          log.warn({ err: error }, 'folding the finished domains before the exit failed');
          return true;
        })));
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
