/**
 * What the frontier's modules share: resolved options, key names, the executor, the
 * client, and the background-error tally. One instance per {@link RedisFrontier}.
 */
import type { Cluster, Redis } from 'ioredis';
import { POD_ID } from './checks.js';
import { CrawlTracker } from './crawls.js';
import { FrontierArgumentError } from './errors.js';
import type { Executor } from './executor.js';
import type { FrontierKeys } from './keys.js';
import type { BackgroundOperation, ResolvedOptions } from './options.js';
import { FALLBACK_SEEN_LAYOUT, type SeenLayout, serverSeenLayout } from './redis-settings.js';

/** Failures of background work so far, per operation (see `RedisFrontier.backgroundErrors`). */
export type BackgroundErrorCounts = Record<BackgroundOperation, number>;

export class FrontierContext {
  readonly options: ResolvedOptions;
  readonly keys: FrontierKeys;
  readonly exec: Executor;
  readonly redis: Redis | Cluster;
  /** Records the domains a non-default crawl writes, before it writes them. */
  readonly crawl: CrawlTracker;
  readonly #errors: BackgroundErrorCounts = { 'register-pod': 0, forward: 0, 'load-functions': 0 };
  // The seen layout once settled: the options, or a read of the server that answered or
  // refused (a Cluster client that knows no master yet is asked again).
  #seenLayout: SeenLayout | undefined;

  constructor(options: ResolvedOptions, keys: FrontierKeys, exec: Executor) {
    this.options = options;
    this.keys = keys;
    this.exec = exec;
    this.redis = options.redis;
    this.crawl = new CrawlTracker(keys, exec);
  }

  /** The owner pod of a domain, checked: a bad `ownerOf` must not write odd keys. */
  ownerOf(domain: string): string {
    const pod = this.options.ownerOf(domain);
    if (typeof pod !== 'string' || !POD_ID.test(pod)) {
      throw new FrontierArgumentError(`ownerOf(${JSON.stringify(domain)})`, pod, 'a pod id');
    }
    return pod;
  }

  /**
   * The seen-set layout enqueues use: the options where given, else what the server's
   * settings keep compact (redis-settings.ts), read once; Redis' defaults' layout when it
   * refuses `CONFIG`.
   */
  async seenLayout(): Promise<SeenLayout> {
    if (this.#seenLayout) return this.#seenLayout;
    const { seenBucketLoad, seenInlineMax } = this.options;
    const given = seenBucketLoad !== undefined && seenInlineMax !== undefined;
    const server = given
      ? undefined
      : await serverSeenLayout(this.redis).catch(() => FALLBACK_SEEN_LAYOUT);
    const base = server ?? FALLBACK_SEEN_LAYOUT;
    const layout = {
      bucketLoad: seenBucketLoad ?? base.bucketLoad,
      inlineMax: seenInlineMax ?? base.inlineMax,
    };
    if (given || server) this.#seenLayout = layout;
    return layout;
  }

  /** Counts a failure of background work and hands it to `onBackgroundError`. */
  backgroundError(operation: BackgroundOperation, error: unknown): void {
    this.#errors[operation]++;
    const reported = error instanceof Error ? error : new Error(String(error));
    this.options.onBackgroundError(reported, operation);
  }

  get backgroundErrors(): Readonly<BackgroundErrorCounts> {
    return { ...this.#errors };
  }
}
