/**
 * The rows of the settings table (`settings.ts`) that bound one fetch: links and body bytes
 * kept per page, and the timeouts of its phases. Spread into `POD_SETTINGS` after the crawl
 * control rows; same contract (flag and env names are user-facing).
 */
import type { Setting } from './setting-kinds.js';

export const FETCH_SETTINGS = {
  maxLinksPerPage: {
    env: 'MAX_LINKS_PER_PAGE',
    flag: 'max-links-per-page',
    kind: 'int',
    doc: 'links kept per page',
    default: 5000,
    min: 1,
  },
  maxBodyBytes: {
    env: 'MAX_BODY_BYTES',
    flag: 'max-body-bytes',
    kind: 'int',
    doc: 'decoded body bytes kept per page',
    default: 5_242_880,
    min: 1,
  },
  fetchTimeoutMs: {
    env: 'FETCH_TIMEOUT_MS',
    flag: 'fetch-timeout-ms',
    kind: 'int',
    doc: 'wall time of one fetch',
    default: 30_000,
    min: 1,
  },
  headersTimeoutMs: {
    env: 'HEADERS_TIMEOUT_MS',
    flag: 'headers-timeout-ms',
    kind: 'int',
    doc: 'send → response head',
    default: 15_000,
    min: 1,
  },
  bodyTimeoutMs: {
    env: 'BODY_TIMEOUT_MS',
    flag: 'body-timeout-ms',
    kind: 'int',
    doc: 'longest silence in a body',
    default: 15_000,
    min: 1,
  },
  connectTimeoutMs: {
    env: 'CONNECT_TIMEOUT_MS',
    flag: 'connect-timeout-ms',
    kind: 'int',
    doc: 'TCP/TLS connect',
    default: 10_000,
    min: 1,
  },
} satisfies Record<string, Setting>;
