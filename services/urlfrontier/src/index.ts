export { DEFAULT_CRAWL_ID } from './crawl-frontiers.js';
export { UrlFrontierError, UrlFrontierErrorCode } from './errors.js';
export { UrlFrontierNode } from './node.js';
export type { UrlFrontierNodeOptions } from './options.js';
export { LOADER_OPTIONS, loadUrlFrontierService, PROTO_PATH } from './proto.js';
