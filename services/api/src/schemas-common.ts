/** Schema pieces shared by the route families' schema files (`schemas-*.ts`). */
import { CRAWL_ID } from '@shardline/frontier';

export const domainParam = {
  type: 'string',
  minLength: 1,
  maxLength: 253,
  pattern: '^[^\\s/{}]+$',
  description:
    'registrable domain (the shard key), e.g. example.com; any case, Unicode or punycode, a host of it names it too (keyed as the frontier keys it)',
} as const;

/** What a domain is doing, from its counters and its hosts' politeness state. */
export const DOMAIN_STATUSES = ['active', 'backing-off', 'failing', 'paused', 'idle'] as const;
export const domainStatus = {
  type: 'string',
  enum: DOMAIN_STATUSES,
  description:
    'paused: claims stopped by an operator; failing: attempts made and none fetched; backing-off: a host waits out a failure backoff; active: URLs queued or in flight; idle: nothing queued',
} as const;

/** A dead letter's `message`: the failure in words. */
export const deadLetterMessage = {
  type: 'string',
  description:
    "what went wrong, in words (the error's message, one line, at most 300 characters); '' when the failure gave none or was dead-lettered before messages were kept",
} as const;

/** `?crawl=`: the crawl (namespace) a read is about; the default crawl when absent. */
export const crawlParam = {
  type: 'string',
  pattern: CRAWL_ID.source,
  description:
    'the crawl (namespace) to read, as given to --crawl-id (1-64 of a-z 0-9 . _ -, starting with a letter or digit); absent: the default crawl; a crawl that never wrote a key is answered 404 (SHARDLINE_ERR_API_UNKNOWN_CRAWL)',
} as const;

/** A querystring of only `crawl`. */
export const crawlQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { crawl: crawlParam },
} as const;
