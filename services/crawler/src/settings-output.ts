/**
 * The rows of the settings table (`settings.ts`) for what a crawl leaves behind besides its
 * results: WARC files, page handlers and their items. Spread into `POD_SETTINGS` after the
 * results rows; same contract (flag and env names are user-facing).
 */
import { crawlKeyPrefix } from '@shardline/frontier';
import type { Setting } from './setting-kinds.js';

export const OUTPUT_SETTINGS = {
  warcDir: {
    env: 'WARC_DIR',
    flag: 'warc-dir',
    kind: 'string',
    doc: 'write WARC files (request + response records of every fetch) into this directory',
    defaultText: '<data-dir>/warc for shardline crawl/up; none for the library',
    arg: 'dir',
  },
  noWarc: {
    env: 'NO_WARC',
    flag: 'no-warc',
    kind: 'bool',
    doc: 'write no WARC files (overrides warcDir)',
    default: false,
  },
  warcMaxBytes: {
    env: 'WARC_MAX_BYTES',
    flag: 'warc-max-bytes',
    kind: 'int',
    doc: 'close a WARC file and start the next once it would pass this size',
    default: 1_073_741_824,
    min: 1,
  },
  handler: {
    env: 'HANDLER',
    flag: 'handler',
    kind: 'string',
    doc: 'page handler module (.mjs/.js, or .ts under tsx); its default export runs on every page',
    defaultText: 'none',
    arg: 'file',
  },
  handlerTimeoutMs: {
    env: 'HANDLER_TIMEOUT_MS',
    flag: 'handler-timeout-ms',
    kind: 'int',
    doc: 'a handler running longer fails the lease (SHARDLINE_ERR_HANDLER)',
    default: 30_000,
    min: 1,
  },
  itemsStreamKey: {
    env: 'ITEMS_STREAM',
    flag: 'items-stream',
    kind: 'string',
    doc: 'Redis stream of the items handlers push',
    default: (s) => `${crawlKeyPrefix(s.prefix as string, s.crawlId as string)}:items`,
    defaultText: '‹prefix›:items (‹prefix›:c:‹crawl›:items in a crawl)',
    arg: 'key',
  },
  itemsMaxLen: {
    env: 'ITEMS_MAX_LEN',
    flag: 'items-max-len',
    kind: 'int',
    doc: 'approximate bound of the items stream (0 = unbounded)',
    default: 1_000_000,
  },
  itemsJsonl: {
    env: 'ITEMS_JSONL',
    flag: 'items-jsonl',
    kind: 'string',
    doc: 'also append items to this JSONL file',
    defaultText: 'none',
    arg: 'file',
    perPod: true,
  },
} satisfies Record<string, Setting>;
