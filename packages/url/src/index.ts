export { canonicalize, robotsTxtUrl, tryCanonicalize } from './canonicalize.js';
export {
  type CanonicalizeOptions,
  type CanonicalizeResult,
  Canonicalizer,
  type CanonicalUrl,
  createCanonicalizer,
} from './canonicalizer.js';
export { domainKey, type HostKey, hostKey } from './domain-key.js';
export { UrlError, UrlErrorCode, UrlOptionsError } from './errors.js';
export { DEFAULT_TRACKING_PARAMS } from './tracking-params.js';
