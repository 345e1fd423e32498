export { RobotsError, RobotsErrorCode } from './errors.js';
export type { RobotsGroupJson, RobotsSource, RobotsTxtJson } from './json.js';
export type { RobotsOptions } from './options.js';
export { type RobotsFetchOutcome, RobotsTxt } from './robots-txt.js';
export {
  ROBOTS_CACHE_TTL_MS,
  ROBOTS_MAX_REDIRECTS,
  type RobotsStatusPolicy,
  robotsTxtStatusPolicy,
} from './status-policy.js';
export { productToken } from './user-agent.js';
