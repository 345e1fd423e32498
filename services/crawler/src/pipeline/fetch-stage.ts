/**
 * Stage 4, fetch: one request for the lease's URL (redirects are not followed), through the
 * send gate's pass so the host's next request counts from this one's real send time. A sitemap
 * keeps its body whatever the content type, up to the protocol's 50 MiB. A refetch is
 * conditional (the lease's validators, see `validators.ts`), and a 2xx body is hashed so the
 * completion can tell whether the page changed.
 */
import type { Fetcher } from '../fetcher.js';
import { SITEMAP_MAX_BYTES } from '../sitemap.js';
import { type LeaseContext, required } from './lease-context.js';
import type { LeaseStage, Settlement } from './stage.js';
import { conditionalHeaders, leaseValidators } from './validators.js';

/** Fetches the lease's URL once. */
export class FetchStage implements LeaseStage {
  readonly name = 'fetch';
  readonly #fetcher: Pick<Fetcher, 'fetch'>;
  // An archive or a page handler wants every body, not only HTML ones.
  readonly #keepAllBodies: boolean;

  constructor(fetcher: Pick<Fetcher, 'fetch'>, options: { keepAllBodies?: boolean } = {}) {
    this.#fetcher = fetcher;
    this.#keepAllBodies = options.keepAllBodies ?? false;
  }

  async run(ctx: LeaseContext): Promise<Settlement | undefined> {
    const pass = required(ctx.pass, 'send pass', this.name);
    const sitemap = ctx.sitemapLevel !== undefined;
    try {
      ctx.outcome = await this.#fetcher.fetch(ctx.lease.url, {
        signal: ctx.signal,
        onSent: (atMs) => {
          ctx.sentAtPerfMs = performance.now();
          pass.sent(atMs);
        },
        keepBody: sitemap || this.#keepAllBodies ? 'always' : 'html',
        headers: conditionalHeaders(leaseValidators(ctx.lease)),
        // SHA-1 runs at well over 1 GB/s: cheap next to the fetch, so every 2xx is hashed.
        hashBody: true,
        // The protocol's 50 MiB; a gzip body is inflated later under the same cap.
        ...(sitemap ? { maxBodyBytes: SITEMAP_MAX_BYTES } : {}),
      });
    } catch (error) {
      // Only a closed fetcher rejects: the pod is stopping.
      pass.done();
      if (ctx.signal.aborted) return { kind: 'release' };
      throw error;
    }
    const t = ctx.outcome.timings;
    pass.done(t.sentAtMs === undefined ? undefined : t.endAtMs - t.sentAtMs);
    return undefined;
  }
}
