/** Options of {@link startTestWeb}, their defaults and validation. */
import { type HostBehaviour, isHostBehaviour, isRobotsBehaviour } from './behaviours.js';
import { TestWebOptionsError } from './errors.js';

/** Configuration of a test web. */
export interface TestWebOptions {
  /** Number of `siteN.test` hosts (site1 … siteN). */
  hosts: number;
  /** Seed of the deterministic generator. @default 1 */
  seed?: number;
  /** Pages per `siteN.test` host including `/`: a fixed count or an inclusive range. @default [5, 30] */
  pagesPerHost?: number | [number, number];
  /** Fraction of generated links that point to another host. @default 0.1 */
  crossLinkRatio?: number;
  /**
   * Hostile behaviours: `'default-mix'` spreads every behaviour over a deterministic subset
   * of hosts (one each, site1 stays plain), `'none'` makes every host plain, a record maps
   * host names to their behaviours (hosts not named are plain). @default 'default-mix'
   */
  behaviours?: 'default-mix' | 'none' | Record<string, HostBehaviour[]>;
  /** How long a `robots-timeout` host holds the robots.txt request before dropping the socket. @default 30000 */
  robotsDelayMs?: number;
  /** Delay before a `slow` page answers. @default 2000 */
  slowMs?: number;
  /** Time over which a `drip` page trickles its body. @default 10000 */
  dripMs?: number;
  /** Size of the `huge-body` page. @default 52428800 (50 MiB) */
  hugeBodyBytes?: number;
  /** How many GETs of a `retry-429` / `retry-503` page fail before it succeeds. @default 2 */
  failFirstCount?: number;
  /** `Retry-After` seconds sent with those failures. @default 1 */
  retryAfterS?: number;
  /** Interface to listen on. @default '127.0.0.1' */
  host?: string;
  /** Port to listen on; 0 picks a free one. @default 0 */
  port?: number;
}

/** Options with every default filled in. */
export interface ResolvedTestWebOptions {
  hosts: number;
  seed: number;
  pagesPerHost: [number, number];
  crossLinkRatio: number;
  behaviours: 'default-mix' | 'none' | Record<string, HostBehaviour[]>;
  robotsDelayMs: number;
  slowMs: number;
  dripMs: number;
  hugeBodyBytes: number;
  failFirstCount: number;
  retryAfterS: number;
  host: string;
  port: number;
}

function intIn(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new TestWebOptionsError(name, value, `an integer in [${min}, ${max}]`);
  }
  return value;
}

/** Fills defaults and validates; throws {@link TestWebOptionsError} naming the bad option. */
export function resolveOptions(options: TestWebOptions): ResolvedTestWebOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TestWebOptionsError('options', options, 'an object');
  }
  const hosts = intIn('hosts', options.hosts, 1, 100_000);
  const seed = intIn('seed', options.seed ?? 1, 0, 2 ** 32 - 1);
  const rawPages = options.pagesPerHost ?? [5, 30];
  let pagesPerHost: [number, number];
  if (typeof rawPages === 'number') {
    const n = intIn('pagesPerHost', rawPages, 1, 100_000);
    pagesPerHost = [n, n];
  } else if (Array.isArray(rawPages) && rawPages.length === 2) {
    const min = intIn('pagesPerHost[0]', rawPages[0], 1, 100_000);
    const max = intIn('pagesPerHost[1]', rawPages[1], min, 100_000);
    pagesPerHost = [min, max];
  } else {
    throw new TestWebOptionsError('pagesPerHost', rawPages, 'a positive integer or [min, max]');
  }
  const crossLinkRatio = options.crossLinkRatio ?? 0.1;
  if (typeof crossLinkRatio !== 'number' || !(crossLinkRatio >= 0 && crossLinkRatio <= 1)) {
    throw new TestWebOptionsError('crossLinkRatio', crossLinkRatio, 'a number in [0, 1]');
  }
  const behaviours = options.behaviours ?? 'default-mix';
  if (behaviours !== 'default-mix' && behaviours !== 'none') {
    if (typeof behaviours !== 'object' || behaviours === null || Array.isArray(behaviours)) {
      throw new TestWebOptionsError(
        'behaviours',
        behaviours,
        "'default-mix', 'none' or a record of host → behaviours",
      );
    }
    for (const [host, list] of Object.entries(behaviours)) {
      const name = `behaviours[${JSON.stringify(host)}]`;
      if (!/^site[1-9][0-9]*\.test$/.test(host) || Number(host.slice(4, -5)) > hosts) {
        throw new TestWebOptionsError(name, host, `a host name site1.test … site${hosts}.test`);
      }
      if (!Array.isArray(list) || !list.every(isHostBehaviour)) {
        throw new TestWebOptionsError(name, list, 'an array of HostBehaviour names');
      }
      if (list.filter(isRobotsBehaviour).length > 1) {
        throw new TestWebOptionsError(name, list, 'at most one robots-* behaviour');
      }
    }
  }
  const robotsDelayMs = intIn('robotsDelayMs', options.robotsDelayMs ?? 30_000, 0, 3_600_000);
  const slowMs = intIn('slowMs', options.slowMs ?? 2_000, 0, 3_600_000);
  const dripMs = intIn('dripMs', options.dripMs ?? 10_000, 0, 3_600_000);
  const hugeBodyBytes = intIn(
    'hugeBodyBytes',
    options.hugeBodyBytes ?? 50 * 1024 * 1024,
    1024,
    2 ** 40,
  );
  const failFirstCount = intIn('failFirstCount', options.failFirstCount ?? 2, 0, 1000);
  const retryAfterS = intIn('retryAfterS', options.retryAfterS ?? 1, 0, 86_400);
  const host = options.host ?? '127.0.0.1';
  if (typeof host !== 'string' || host.length === 0) {
    throw new TestWebOptionsError('host', host, 'a non-empty string');
  }
  const port = intIn('port', options.port ?? 0, 0, 65_535);
  return {
    hosts,
    seed,
    pagesPerHost,
    crossLinkRatio,
    behaviours,
    robotsDelayMs,
    slowMs,
    dripMs,
    hugeBodyBytes,
    failFirstCount,
    retryAfterS,
    host,
    port,
  };
}
