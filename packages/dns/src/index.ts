export { type AddressClass, classifyAddress } from './classify.js';
export { DnsCache, type DnsCacheStats, type ResolvedAddress } from './dns-cache.js';
export { DnsError, DnsErrorCode, type DnsErrorDetails } from './errors.js';
export type { Connector } from './lookup.js';
export { DNS_CACHE_DEFAULTS, type DnsCacheOptions } from './options.js';
export { overrideProblem, type ParsedOverride, parseOverride } from './overrides.js';
export { type AddressPolicy, isAddressAllowed } from './policy.js';
