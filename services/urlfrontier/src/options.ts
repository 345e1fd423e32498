/** Options of a {@link UrlFrontierNode} and their validation. */
import { DEFAULT_PREFIX } from '@shardline/frontier';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import { invalidOption } from './errors.js';

export interface UrlFrontierNodeOptions {
  /** A connected ioredis client (`Redis` or `Cluster`): the frontier and the pod registry. */
  redis: Redis | Cluster;
  /** The node's ring member id (1–128 of `[A-Za-z0-9._:-]`). */
  podId: string;
  /** gRPC port; 0 picks a free one (see `UrlFrontierNode.address`). */
  port: number;
  /** Address to bind. @default '127.0.0.1' */
  host?: string;
  /**
   * Address published in the node's membership record, which ListNodes returns to clients.
   * @default `<host>:<bound port>`
   */
  advertise?: string;
  /** Key prefix of the frontier and the registry. @default 'sl' */
  prefix?: string;
  /**
   * How long a URL handed out by GetURLs stays invisible when the call's `delay_requestable`
   * is 0 (ms). @default 60000
   */
  leaseTimeoutMs?: number;
  /**
   * Gap between two URLs handed out from one queue (host), cluster-wide, unless SetDelay set
   * the host's own. 0 = the crawler spaces its requests itself. @default 0
   */
  minDelayMs?: number;
  /** URLs of one queue out (handed out, not yet acked) at once, cluster-wide. @default 100 */
  perHostConcurrency?: number;
  /** Most URLs one GetURLs call streams (its `max_queues` × `max_urls_per_queue` when lower). @default 1000 */
  maxUrlsPerCall?: number;
  /** Longest URLInfo metadata kept with a URL (its JSON, in characters). @default 4096 */
  maxMetadataChars?: number;
  /** Most URLs accepted per queue over the crawl (0 = no cap). @default 0 */
  maxPagesPerHost?: number;
  /** Most URLs accepted per registrable domain over the crawl (0 = no cap). @default 0 */
  maxPagesPerDomain?: number;
  /**
   * Most domains a `local` GetStats or CountURLs sums, one read of each domain's counters; a
   * node that owns more refuses them (FAILED_PRECONDITION) rather than scan millions or answer
   * a partial sum. @default 100000
   */
  maxLocalDomains?: number;
  /** Ring member session timeout (ms). @default 10000 */
  sessionTimeoutMs?: number;
  /** Ring weight. @default 1 */
  weight?: number;
  /** Logger. @default pino at `info` */
  logger?: Logger;
}

export type ResolvedNodeOptions = Required<Omit<UrlFrontierNodeOptions, 'advertise' | 'logger'>> &
  Pick<UrlFrontierNodeOptions, 'advertise' | 'logger'>;

const DEFAULTS = {
  host: '127.0.0.1',
  prefix: DEFAULT_PREFIX,
  leaseTimeoutMs: 60_000,
  minDelayMs: 0,
  perHostConcurrency: 100,
  maxUrlsPerCall: 1000,
  maxMetadataChars: 4096,
  maxPagesPerHost: 0,
  maxPagesPerDomain: 0,
  maxLocalDomains: 100_000,
  sessionTimeoutMs: 10_000,
  weight: 1,
} as const;

const INTEGERS: readonly [keyof ResolvedNodeOptions, number, number][] = [
  ['port', 0, 65_535],
  ['leaseTimeoutMs', 1000, 31_536_000_000],
  ['minDelayMs', 0, 86_400_000],
  ['perHostConcurrency', 1, 100_000],
  ['maxUrlsPerCall', 1, 10_000],
  ['maxMetadataChars', 0, 65_536],
  ['maxPagesPerHost', 0, Number.MAX_SAFE_INTEGER],
  ['maxPagesPerDomain', 0, Number.MAX_SAFE_INTEGER],
  ['maxLocalDomains', 1, 10_000_000],
  ['sessionTimeoutMs', 300, 3_600_000],
  ['weight', 1, 1000],
];

export function resolveNodeOptions(options: UrlFrontierNodeOptions): ResolvedNodeOptions {
  if (typeof options !== 'object' || options === null) {
    throw invalidOption('(options)', options, 'an object');
  }
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const resolved = { ...DEFAULTS, ...given } as ResolvedNodeOptions;
  if (typeof (resolved.redis as Redis | undefined)?.defineCommand !== 'function') {
    throw invalidOption('redis', typeof resolved.redis, 'an ioredis Redis or Cluster client');
  }
  if (typeof resolved.podId !== 'string' || !/^[A-Za-z0-9._:-]{1,128}$/.test(resolved.podId)) {
    throw invalidOption('podId', resolved.podId, '1-128 characters of [A-Za-z0-9._:-]');
  }
  for (const [name, min, max] of INTEGERS) {
    const value = resolved[name];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      throw invalidOption(name, value, `an integer in ${min}..${max}`);
    }
  }
  if (typeof resolved.host !== 'string' || resolved.host === '') {
    throw invalidOption('host', resolved.host, 'an address to bind');
  }
  if (resolved.advertise !== undefined && !/^[^\s/]{1,255}:\d{1,5}$/.test(resolved.advertise)) {
    throw invalidOption('advertise', resolved.advertise, 'host:port');
  }
  return resolved;
}
