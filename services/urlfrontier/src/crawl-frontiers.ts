/**
 * The one place a URLFrontier crawl id becomes a shardline frontier. URLFrontier's default
 * crawl is "DEFAULT" (and the empty string, which protobuf cannot tell from unset); it maps to
 * shardline's default crawl, the frontier this node was built with. Every handler asks here,
 * so giving crawl ids their own namespaces is a change of this file.
 */
import type { RedisFrontier } from '@shardline/frontier';
import { UrlFrontierError, UrlFrontierErrorCode } from './errors.js';

/** URLFrontier's name of the default crawl. */
export const DEFAULT_CRAWL_ID = 'DEFAULT';

export class CrawlFrontiers {
  readonly #default: RedisFrontier;

  constructor(defaultFrontier: RedisFrontier) {
    this.#default = defaultFrontier;
  }

  /** Whether `crawlId` names the default crawl. */
  static isDefault(crawlId: string | undefined): boolean {
    return crawlId === undefined || crawlId === '' || crawlId === DEFAULT_CRAWL_ID;
  }

  /** The frontier of a crawl id; throws `SHARDLINE_ERR_URLFRONTIER_UNKNOWN_CRAWL` for another. */
  get(crawlId: string | undefined, method: string): RedisFrontier {
    if (CrawlFrontiers.isDefault(crawlId)) return this.#default;
    throw new UrlFrontierError(
      UrlFrontierErrorCode.UNKNOWN_CRAWL,
      `${method}: crawl id ${JSON.stringify(crawlId)} is not served: this frontier has one crawl, ` +
        `"${DEFAULT_CRAWL_ID}" (send it, or an empty crawlID); crawl namespaces are not in this build`,
    );
  }

  /** The crawl ids served, as ListCrawls returns them. */
  ids(): string[] {
    return [DEFAULT_CRAWL_ID];
  }
}
