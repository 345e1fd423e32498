/**
 * Checks what a page handler passes to `ctx.enqueue`, at the call: a bad argument throws there
 * (failing the handler with `SHARDLINE_ERR_HANDLER`, like a bad `ctx.push`) instead of its URLs
 * being dropped by the frontier after the handler returned, where nobody sees it.
 */
import { DEFAULT_MAX_PRIORITY, MAX_REFETCH_MS } from '@shardline/frontier';
import { isTag, TAG_RULE } from '../tags.js';
import type { EnqueueOptions } from './page-api.js';

/** URLs one page's handler may enqueue (all calls together); links found on the page are apart. */
export const MAX_ENQUEUED_PER_PAGE = 10_000;

/** A checked `ctx.enqueue` call. */
export interface EnqueueArgs {
  urls: string[];
  priority: number;
  tags: string[] | undefined;
  refetchAfterMs: number | undefined;
}

/** The call's arguments, checked; `already` URLs were enqueued by this page's earlier calls. */
export function checkEnqueue(urls: unknown, options: unknown, already: number): EnqueueArgs {
  const list = typeof urls === 'string' ? [urls] : Array.isArray(urls) ? urls : undefined;
  if (list === undefined) {
    throw new TypeError(`ctx.enqueue: give a URL string or an array of them; got ${kind(urls)}`);
  }
  const bad = list.findIndex((url) => typeof url !== 'string');
  if (bad >= 0) {
    throw new TypeError(`ctx.enqueue: URL [${bad}] must be a string; got ${kind(list[bad])}`);
  }
  if (already + list.length > MAX_ENQUEUED_PER_PAGE) {
    throw new RangeError(`ctx.enqueue: at most ${MAX_ENQUEUED_PER_PAGE} URLs per page`);
  }
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new TypeError(`ctx.enqueue: options must be an object; got ${kind(options)}`);
  }
  const { priority = 0, tags, refetchAfterMs } = (options ?? {}) as EnqueueOptions;
  if (!Number.isSafeInteger(priority) || Math.abs(priority) > DEFAULT_MAX_PRIORITY) {
    throw new RangeError(
      `ctx.enqueue: priority must be an integer within ±${DEFAULT_MAX_PRIORITY}; got ${show(priority)}`,
    );
  }
  if (tags !== undefined) {
    if (!Array.isArray(tags)) {
      throw new TypeError(`ctx.enqueue: tags must be an array of strings; got ${kind(tags)}`);
    }
    const wrong = tags.find((tag) => !isTag(tag));
    if (wrong !== undefined || tags.length > MAX_TAGS) {
      throw new RangeError(
        wrong !== undefined
          ? `ctx.enqueue: a tag must be ${TAG_RULE}; got ${show(wrong)}`
          : `ctx.enqueue: at most ${MAX_TAGS} tags`,
      );
    }
  }
  if (
    refetchAfterMs !== undefined &&
    (!Number.isSafeInteger(refetchAfterMs) || refetchAfterMs < 1 || refetchAfterMs > MAX_REFETCH_MS)
  ) {
    throw new RangeError(
      `ctx.enqueue: refetchAfterMs must be an integer of ms in 1..${MAX_REFETCH_MS} (a year); got ${show(refetchAfterMs)}`,
    );
  }
  return { urls: list, priority, tags: tags ? [...tags] : undefined, refetchAfterMs };
}

/** Tags per URL: 7 tags of 64 characters fit the frontier's 512-character meta. */
const MAX_TAGS = 7;

function kind(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 80));
  return typeof value === 'number' ? String(value) : kind(value);
}
