export { type ApiConfig, loadApiConfig } from './config.js';
export type { RedisLocator } from './following-connector.js';
export { type RunningApi, type StartApiExtras, startApi } from './main.js';
// Also `@shardline/api/reader`, the CLI's light entry: one list of these exports.
export * from './reader-entry.js';
export { type ApiServerOptions, createApiServer } from './server.js';
