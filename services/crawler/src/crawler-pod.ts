/**
 * The crawler pod: one process that claims URLs from its due index and crawls them. It is the
 * composition root: `build-pod.ts` wires its parts, the work loop claims, and each lease runs
 * through the lease pipeline (`pipeline/`: vet address → robots → send gate → fetch → classify →
 * discover links → settle). The pod itself joins, seeds, starts, stops and reports. See the
 * README for the rules.
 */
import type { EnqueueItem, EnqueueReport, RedisFrontier } from '@shardline/frontier';
import {
  type Membership,
  MembershipPodIdInUseError,
  type StopOptions,
} from '@shardline/membership';
import { buildPod, type PodParts } from './build-pod.js';
import { FaultReporter } from './fault-reporter.js';
import { closeSubscriber } from './pod-components.js';
import type { CrawlerPodOptions, PodStats } from './pod-options.js';

/** How often the pod publishes its fault counts (only when they changed). */
const FAULT_REPORT_MS = 5000;

/** A crawler pod. `start()` → crawl → `stop()` (or `exitWhenIdle`). */
/** URLs per frontier call when seeding. */
const SEED_BATCH = 1000;

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
  readonly #p: PodParts;
  // membership.start(), once: seed() may join before start() does.
  #joined: Promise<void> | undefined;
  #loopRunning = false;
  #draining = false;
  #finished = false;
  #started = false;
  #stopped: Promise<void> | undefined;
  // Publishes stats().faults to the frontier for the API, /metrics and the dashboard.
  readonly #faultReporter: FaultReporter;

  /** Validates the options (`SHARDLINE_ERR_CRAWLER_INVALID_OPTION` names the bad one). */
  constructor(options: CrawlerPodOptions) {
    this.#p = buildPod(options);
    this.id = this.#p.settings.podId;
    this.weight = this.#p.settings.podWeight;
    this.frontier = this.#p.frontier;
    this.resultsStreamKey = this.#p.settings.resultsStreamKey;
    this.membership = this.#p.membership;
    this.#faultReporter = new FaultReporter({
      frontier: this.frontier,
      pod: this.id,
      faults: () => this.#faults(),
      intervalMs: FAULT_REPORT_MS,
      log: this.#p.log,
    });
  }

  /** The User-Agent header value the pod sends. */
  get userAgent(): string {
    return this.#p.fetcher.userAgent;
  }

  /**
   * Queues seed URLs (depth 0 unless given) in batches of {@link SEED_BATCH}, so one call's
   * round trip stays bounded whatever the list's length. With membership the pod joins first
   * (owners come from the ring), without claiming until {@link start}.
   */
  async seed(urls: readonly EnqueueItem[]): Promise<EnqueueReport> {
    await this.#join();
    const total: EnqueueReport = {
      results: [],
      queued: 0,
      duplicates: 0,
      rejected: 0,
      overCap: 0,
      wokenPods: [],
    };
    for (let start = 0; start < urls.length; start += SEED_BATCH) {
      const report = await this.frontier.enqueue(urls.slice(start, start + SEED_BATCH));
      for (const result of report.results) total.results.push(result);
      total.queued += report.queued;
      total.duplicates += report.duplicates;
      total.rejected += report.rejected;
      total.overCap += report.overCap;
      total.wokenPods = [...new Set([...total.wokenPods, ...report.wokenPods])];
      if (report.wokenPods.includes(this.id)) this.#p.loop.poke();
    }
    return total;
  }

  #join(): Promise<void> {
    this.#joined ??= (async () => {
      const membership = this.membership;
      if (!membership) return;
      // start() requeues a previous incarnation's leases itself and waits for a survivor
      // still reclaiming this id: the pod must not claim before it resolves.
      await membership.start();
      this.#p.log.info(
        { pod: this.id, epoch: membership.epoch, members: membership.members() },
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
    this.#p.log.info(
      { pod: this.id, userAgent: this.userAgent, results: this.resultsStreamKey },
      'pod starting',
    );
    // The frontier's identity first (created on a new frontier; waits while Redis is full).
    await this.#p.faults.retryOnOom('frontier identity', () => this.#p.watch.start());
    await this.#p.loadHandler();
    // Joined before the WARC files are touched: a join refused because another live process
    // has this pod id must not close that process's open file as a crashed run's.
    await this.#join();
    if (this.#stopped) return; // stop() came while joining
    // Before the first claim: repair a crashed run's WARC files.
    await this.#p.archive?.start();
    if (this.#stopped) return;
    await this.#p.loop.start();
    this.#loopRunning = true;
    this.#faultReporter.start();
    // A lost frontier or a superseded id is a crash, not a handoff: nothing is ours to hand off.
    void this.#p.loop.done.then(() => this.stop({ graceful: this.#fatal() === undefined }));
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
   * Every lease is settled and every result written by then. Rejects with `FrontierLostError`
   * (`SHARDLINE_ERR_FRONTIER_LOST`) when the pod stopped because Redis lost the frontier, and
   * with `MembershipSupersededError` (`SHARDLINE_ERR_MEMBERSHIP_SUPERSEDED`) when another
   * instance took its pod id over while it stalled.
   */
  get done(): Promise<void> {
    return this.#p.loop.done
      .then(() => this.#stopped)
      .then(() => {
        const fatal = this.#fatal();
        if (fatal) throw fatal;
      });
  }

  /** What stopped the pod by itself, at once and without leaving, if anything did. */
  #fatal(): Error | undefined {
    return this.#p.faults.lost ?? this.membership?.superseded;
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
    this.#stopped ??= this.#stop(graceful);
    return this.#stopped;
  }

  async #stop(graceful: boolean): Promise<void> {
    const p = this.#p;
    this.#draining = true;
    p.watch.stop();
    p.faults.stop();
    await p.loop.stop(graceful ? p.settings.stopGraceMs : 0);
    // The last counts (a lost frontier, OOM episodes) while Redis may still take them — not
    // from a superseded pod: they are filed under the id the other instance now reports for.
    if (this.membership?.superseded) this.#faultReporter.cancel();
    else await this.#faultReporter.stop();
    // Robots loads the released leases no longer wait for: abort them, cache nothing.
    p.closing.abort();
    // Foreign hosts the last claims found are still being moved to their owners.
    await this.frontier.forwarded();
    await p.enqueuer.drain();
    await p.completer.drain();
    p.unsubscribe();
    if (this.membership && this.#joined) await this.#leave(this.membership, graceful);
    await p.results.close();
    await p.items?.close();
    // Every lease is settled and robots.txt loads aborted: the last records are in.
    await p.archive?.close().catch((error: unknown) => {
      // The instance that took a superseded pod's id over closed its open file as a crashed
      // run's (repaired and renamed) when it started: this close finds it gone, as expected.
      if (this.membership?.superseded) {
        p.log.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          'WARC file already closed by the instance that took this pod id over',
        );
      } else {
        p.log.error({ err: error }, 'WARC close failed');
      }
    });
    await p.fetcher.close().catch((error: unknown) => {
      p.log.warn({ err: error }, 'fetcher close failed');
    });
    if (p.ownSubscriber) await closeSubscriber(p.ownSubscriber, p.log);
    this.#finished = true;
    p.log.info(this.stats(), 'pod stopped');
  }

  async #leave(membership: Membership, graceful: boolean): Promise<void> {
    const log = this.#p.log;
    // Superseded: the membership stopped itself; the id is another instance's to leave.
    if (membership.superseded) return;
    try {
      await this.#joined;
    } catch (error) {
      // The id is another live pod's: nothing in the registry is this pod's to leave, and the
      // caller already has the error.
      if (error instanceof MembershipPodIdInUseError) return;
      // start() / seed() already rejected with it; a partly joined pod still leaves below.
      log.warn({ err: error }, 'membership join had failed; stopping it anyway');
    }
    // Every lease is settled by now (finished or released). A lease whose settle failed may
    // still be held: then pass no callback, so survivors requeue this pod's leases.
    const stopOptions: StopOptions = { graceful };
    if (graceful && this.#p.pipeline.unsettled === 0) {
      stopOptions.releaseLeases = async () => undefined;
    }
    try {
      await membership.stop(stopOptions);
      log.info({ pod: this.id, graceful }, 'membership left');
    } catch (error) {
      log.error({ err: error }, 'membership stop failed (others treat it as a crash)');
    }
  }

  /** Counters since start. */
  stats(): PodStats {
    const loop = this.#p.loop.stats();
    const results = this.#p.results.stats();
    return {
      pod: this.id,
      ...this.#p.counters.snapshot(),
      inFlight: loop.inFlight,
      claims: loop.claims,
      emptyClaims: loop.emptyClaims,
      wakes: loop.wakes,
      gate: this.#p.gate.stats(),
      ipGate: this.#p.ipGate?.stats() ?? { waits: 0, delayedMs: 0, errors: 0 },
      results: { written: results.written, errors: results.errors },
      faults: this.#faults(),
      ...(this.#p.archive ? { warc: this.#p.archive.stats() } : {}),
    };
  }

  #faults(): PodStats['faults'] {
    const robots = this.#p.robots.stats();
    return {
      membership: this.#p.membership?.errorCount ?? 0,
      frontier: { ...this.#p.frontier.backgroundErrors },
      robotsSharedCache: robots.sharedCacheErrors,
      robotsObserver: robots.onFetchErrors,
      fetchObserver: this.#p.fetcher.stats().onSentErrors,
      warcThread: this.#p.archive?.stats().threadCrashes ?? 0,
      resultWrites: this.#p.results.stats().errors,
      itemWrites: this.#p.items?.stats().errors ?? 0,
      ...this.#p.faults.stats(),
      superseded: this.membership?.superseded ? 1 : 0,
    };
  }
}
