/**
 * Stage 2, robots: the host's robots.txt (memory → Redis → fetch through the send gate) and
 * what it decides for the lease.
 *
 * - A new answer (fetched or from Redis) sets the host's crawl-delay in the frontier before the
 *   lease completes, so the host's next slot already uses it; the send gate learns it too.
 * - When robots.txt was just fetched for an allowed page that must wait a whole delay after
 *   that request, the lease is handed back for the wait (`release-for-gap`): the fetch slot
 *   serves other hosts meanwhile. The sitemaps the answer lists go out first.
 * - Disallowed: dead-lettered. Unreachable (disallow all *until retried*, RFC 9309 §2.3.1.4)
 *   with retries left: deferred until the retry; past `robotsMaxRetries`: dead-lettered.
 */
import type { EnqueueResult, Lease, RedisFrontier } from '@shardline/frontier';
import { CrawlOutcomeCode } from '../errors.js';
import type { PodCounters } from '../pod-counters.js';
import type { RobotsLoader } from '../robots-loader.js';
import type { SendGate } from '../send-gate.js';
import type { FoundLink, LeaseContext } from './lease-context.js';
import type { LinkFilter } from './link-filter.js';
import type { LeaseStage, Settlement } from './stage.js';

/**
 * A page that must wait at least this long after its host's robots.txt request gives its
 * fetch slot back for the wait (the host is held in the frontier until then): a slot idle for
 * a whole delay per new host would cap how fast a pod takes up new hosts.
 */
export const SLOT_RELEASE_MIN_WAIT_MS = 250;
/** Failure code of a robots.txt load that threw (not an answer about the site). */
const ROBOTS_ERROR = 'robots-error';

/** Options of {@link RobotsStage}. */
export interface RobotsStageOptions {
  loader: Pick<RobotsLoader, 'load'>;
  frontier: Pick<RedisFrontier, 'setHostPolicy'>;
  gate: Pick<SendGate, 'setHostDelay' | 'waitMs'>;
  links: Pick<LinkFilter, 'robotsSitemaps'>;
  enqueue: (items: FoundLink[]) => Promise<EnqueueResult[]>;
  counters: Pick<PodCounters, 'robotsLoads' | 'robotsDisallowed'>;
  /** The robots.txt product token. */
  userAgentToken: string;
  /** Cap of a robots.txt Crawl-delay. */
  maxCrawlDelayMs: number;
  /** Retries of an unreachable robots.txt before the host's URLs are dead-lettered. */
  robotsMaxRetries: number;
}

/** Loads the host's robots.txt and ends the lease when it says so. */
export class RobotsStage implements LeaseStage {
  readonly name = 'robots';
  readonly #o: RobotsStageOptions;

  constructor(options: RobotsStageOptions) {
    this.#o = options;
  }

  async run(ctx: LeaseContext): Promise<Settlement | undefined> {
    const { lease, signal } = ctx;
    const o = this.#o;
    let robots: Awaited<ReturnType<RobotsLoader['load']>>;
    try {
      robots = await o.loader.load(lease.url, { signal });
    } catch (error) {
      if (signal.aborted) return { kind: 'release' };
      const message = error instanceof Error ? error.message : String(error);
      return { kind: 'fail', retryable: true, code: ROBOTS_ERROR, message };
    }
    ctx.robots = robots;
    o.counters.robotsLoads[robots.from] += 1;
    // A lease that robots.txt allowed only because it is unavailable records why in its result.
    if (robots.unavailable !== undefined) ctx.note = robots.unavailable;
    const rules = robots.robots;
    await this.#applyCrawlDelay(lease, robots.from, rules.crawlDelayMs(o.userAgentToken));
    const allowed = rules.isAllowed(lease.url, o.userAgentToken);
    if (robots.from === 'fetch' && allowed) {
      const waitMs = o.gate.waitMs(lease.host);
      if (waitMs >= SLOT_RELEASE_MIN_WAIT_MS) {
        // The sitemaps robots.txt lists go out with the answer that found them (the lease
        // that comes back reads robots.txt from memory).
        const listed = o.links.robotsSitemaps(lease, robots, []);
        if (listed.length > 0) await o.enqueue(listed);
        return { kind: 'release-for-gap', waitMs };
      }
    }
    if (allowed) return undefined;
    const unreachable = robots.unreachable > 0;
    // RFC 9309 §2.3.1.4: disallowed *until retried* — the URL waits for the retry.
    if (unreachable && robots.unreachable <= o.robotsMaxRetries)
      return { kind: 'defer-for-robots' };
    o.counters.robotsDisallowed += 1;
    return {
      kind: 'fail',
      retryable: false,
      code: unreachable ? CrawlOutcomeCode.ROBOTS_UNREACHABLE : CrawlOutcomeCode.ROBOTS_DISALLOWED,
      message: unreachable
        ? `robots.txt unreachable ${robots.unreachable} times in a row (${rules.reason ?? 'error'})`
        : 'robots.txt',
      sent: false,
    };
  }

  async #applyCrawlDelay(
    lease: Lease,
    from: 'memory' | 'shared-cache' | 'fetch',
    robotsDelayMs: number | undefined,
  ): Promise<void> {
    const crawlDelayMs = Math.min(robotsDelayMs ?? 0, this.#o.maxCrawlDelayMs);
    if (from !== 'memory') {
      // Before this lease completes: complete() computes the host's next slot with it.
      await this.#o.frontier.setHostPolicy(
        lease.host,
        { crawlDelayMs: crawlDelayMs > 0 ? crawlDelayMs : null },
        lease.domain,
      );
    }
    this.#o.gate.setHostDelay(lease.host, crawlDelayMs);
  }
}
