/**
 * What `shardline domain <name>` shows beyond the API's domain counters: each host's
 * politeness state (decoded by the frontier: `frontier.inspector.hostState`), the
 * robots.txt records the pods cache in Redis, and the domain's recent results from the
 * results stream. Every read is bounded: at most `maxHosts` hosts, one XREVRANGE of
 * `scanResults` entries.
 */

import { RedisRobotsCache, type RobotsCacheRecord } from '@shardline/crawler/settings';
import type { HostState, RedisFrontier } from '@shardline/frontier';
import { RobotsTxt } from '@shardline/robots';
import type { Cluster, Redis } from 'ioredis';

/** Which component sets a host's effective delay (the largest one wins). */
export type DelaySource = 'configured' | 'default' | 'robots crawl-delay' | 'adaptive' | 'backoff';

export interface HostDetail {
  host: string;
  queued: number;
  inFlight: number;
  /** Redis time (ms) before which the host gets no new request; 0 = now. */
  nextAllowedAtMs: number;
  /** `nextAllowedAtMs` minus Redis time now (negative or 0: allowed now). */
  nextAllowedInMs: number;
  concurrency: number | null;
  delay: {
    effectiveMs: number;
    source: DelaySource;
    /** Per-host configured delay; `null` = the pods' default (`defaultDelayMs`). */
    configuredMs: number | null;
    /** The default assumed for `configuredMs: null` (`--default-delay-ms`). */
    defaultMs: number;
    crawlDelayMs: number;
    adaptiveMs: number;
    backoffMs: number;
    consecutiveFailures: number;
    /**
     * What the pods do with this host now and why, in words: a block or pause first, then what
     * sets the delay (the pods' default, `shardline delay`, robots.txt, adaptive growth with
     * its cause and the host's last response time, failure backoff).
     */
    why: string;
  };
  robots: RobotsDetail[];
}

export interface RobotsDetail {
  origin: string;
  /** `parsed`, `allow-all` (4xx) or `disallow-all` (5xx/unreachable). */
  source: string;
  reason: string | null;
  crawlDelayMs: number;
  groups: number;
  fetchedAtMs: number;
  /** When the answer expires; for an unreachable robots.txt, when it is retried. */
  expiresAtMs: number;
  /** Fetches in a row that found robots.txt unreachable (0 when it answered). */
  unreachable: number;
}

export interface RecentResult {
  atMs: number;
  url: string;
  host: string;
  pod: string;
  outcome: string;
  status: number;
  durationMs: number;
  errorCode?: string;
  /** The result's error in words (or its note, e.g. a handler's on a fetched page). */
  error?: string;
}

/** Options of {@link readDomainDetail}. */
export interface DomainDetailOptions {
  /** The frontier's key prefix (the robots cache, shared by every crawl). */
  prefix: string;
  /** The crawl's key prefix (its results stream). @default prefix */
  crawlPrefix?: string;
  /** Hosts read in detail. @default 50 */
  maxHosts?: number;
  /** Results stream entries scanned (newest first) for this domain's results. @default 200 */
  scanResults?: number;
  /** Results shown. @default 20 */
  maxResults?: number;
  /** Delay assumed for hosts without a configured one (the pods' MIN_DELAY_MS). @default 1000 */
  defaultDelayMs?: number;
  /** Where `defaultDelayMs` comes from, shown as `why` when it sets the delay. @default "the pods' default delay" */
  defaultWhy?: string;
  /** The pods' User-Agent product token, whose robots group sets the crawl-delay. @default 'shardline' */
  userAgentToken?: string;
  /**
   * The domain's own hold, shown in every host's `why`: paused, blocked, or its refilling
   * budget spent until `budgetRefillAtMs` (DomainStats). @default none
   */
  domainHold?: { paused: boolean; blockedUntilMs?: number; budgetRefillAtMs?: number };
}

export interface DomainDetail {
  nowMs: number;
  hosts: HostDetail[];
  hostsListed: number;
  recent: RecentResult[];
  /** Stream entries scanned for `recent`. */
  resultsScanned: number;
  resultsStream: string;
}

/** Redis `TIME` in ms: the clock the frontier's scripts use for `next_allowed_at`. */
export async function redisNowMs(redis: Redis | Cluster): Promise<number> {
  // ioredis types TIME as numbers; the server sends strings. Number() reads both.
  const [seconds, micros] = (await redis.time()) as unknown as [string | number, string | number];
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** Effective delay (max of the components, as the claim script computes it) and its source. */
export function effectiveDelay(
  state: HostState,
  defaultDelayMs: number,
  context: DelayContext = {},
): HostDetail['delay'] {
  const configuredMs = state.delayMs;
  const parts: [DelaySource, number][] = [
    [configuredMs === null ? 'default' : 'configured', configuredMs ?? defaultDelayMs],
    ['robots crawl-delay', state.crawlDelayMs],
    ['adaptive', state.adaptiveDelayMs],
    ['backoff', state.backoffMs],
  ];
  let best = parts[0]!;
  for (const part of parts) if (part[1] > best[1]) best = part;
  return {
    effectiveMs: best[1],
    source: best[0],
    configuredMs,
    defaultMs: defaultDelayMs,
    crawlDelayMs: state.crawlDelayMs,
    adaptiveMs: state.adaptiveDelayMs,
    backoffMs: state.backoffMs,
    consecutiveFailures: state.consecutiveFailures,
    why: delayWhy(best[0], state, context),
  };
}

/** What {@link effectiveDelay} words its `why` with. */
interface DelayContext {
  nowMs?: number;
  lastResponseMs?: number;
  domainHold?: DomainDetailOptions['domainHold'];
  /** Where the default delay comes from. @default "the pods' default delay" */
  defaultWhy?: string;
}

function delayWhy(source: DelaySource, state: HostState, context: DelayContext): string {
  const now = context.nowMs ?? 0;
  const parts: string[] = [];
  const until = (ms: number) => new Date(ms).toISOString();
  if (context.domainHold?.paused) parts.push('domain paused');
  const domainBlock = context.domainHold?.blockedUntilMs ?? 0;
  if (domainBlock > now) parts.push(`domain blocked until ${until(domainBlock)}`);
  const budgetRefill = context.domainHold?.budgetRefillAtMs ?? 0;
  if (budgetRefill > now) parts.push(`domain budget spent until ${until(budgetRefill)}`);
  if (state.blockedUntilMs > now) parts.push(`blocked until ${until(state.blockedUntilMs)}`);
  const last =
    context.lastResponseMs === undefined ? '' : `, last response ${context.lastResponseMs} ms`;
  const why: Record<DelaySource, string> = {
    default: context.defaultWhy ?? "the pods' default delay",
    configured: 'set at run time (shardline delay)',
    'robots crawl-delay': 'robots crawl-delay',
    adaptive:
      state.adaptiveReason === 'errors'
        ? `adaptive: grown by 5xx/timeouts${last}`
        : `adaptive: grown by slow responses${last}`,
    backoff: `failure backoff (${state.consecutiveFailures} in a row)`,
  };
  parts.push(why[source]);
  return parts.join('; ');
}

/** Origins a host may have a robots record under: those seen in URLs, then the defaults. */
function origins(host: string, urls: readonly string[]): string[] {
  const out = new Set<string>();
  for (const url of urls) {
    try {
      const parsed = new URL(url);
      if (parsed.hostname === host || parsed.host === host) out.add(parsed.origin);
    } catch {
      // Not a URL: nothing to learn from it.
    }
  }
  out.add(`https://${host}`);
  out.add(`http://${host}`);
  return [...out];
}

async function readRobots(
  cache: RedisRobotsCache,
  origin: string,
  userAgentToken: string,
): Promise<RobotsDetail | undefined> {
  let record: RobotsCacheRecord | undefined;
  let robots: RobotsTxt | undefined;
  try {
    record = await cache.get(origin);
    if (record === undefined) return undefined;
    robots = RobotsTxt.fromJSON(record.robots);
  } catch (error) {
    // A record this version cannot read is shown as such; Redis errors still propagate.
    if (record === undefined && !(error instanceof SyntaxError)) throw error;
    return {
      origin,
      source: 'unreadable',
      reason: null,
      crawlDelayMs: 0,
      groups: 0,
      fetchedAtMs: 0,
      expiresAtMs: 0,
      unreachable: 0,
    };
  }
  return {
    origin,
    source: robots.source,
    reason: robots.reason ?? null,
    // The crawl-delay of our crawler's group, not the parser's cap (`maxCrawlDelayMs`).
    crawlDelayMs: robots.crawlDelayMs(userAgentToken) ?? 0,
    groups: record.robots.groups.length,
    fetchedAtMs: record.fetchedAtMs,
    expiresAtMs: record.expiresAtMs,
    unreachable: record.unreachable ?? 0,
  };
}

function lastResponse(recent: readonly RecentResult[], host: string): { lastResponseMs?: number } {
  const latest = recent.find((r) => r.host === host && r.status > 0);
  return latest ? { lastResponseMs: latest.durationMs } : {};
}

function field(fields: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

/** Reads the host states, robots records and recent results of one domain. */
export async function readDomainDetail(
  redis: Redis | Cluster,
  frontier: RedisFrontier,
  domain: string,
  hosts: readonly string[],
  options: DomainDetailOptions,
): Promise<DomainDetail> {
  const maxHosts = options.maxHosts ?? 50;
  const scan = options.scanResults ?? 200;
  const defaultDelayMs = options.defaultDelayMs ?? 1000;
  const stream = `${options.crawlPrefix ?? options.prefix}:results`;
  const robotsCache = new RedisRobotsCache({ redis, prefix: options.prefix });
  const [nowMs, entries] = await Promise.all([
    redisNowMs(redis),
    // No stream yet reads as empty; a key of another type means no recent results either.
    // Anything else (Redis unreachable) is the command's error.
    (redis.xrevrange(stream, '+', '-', 'COUNT', scan) as Promise<[string, string[]][]>).catch(
      (error: unknown) => {
        if (error instanceof Error && error.message.startsWith('WRONGTYPE')) return [];
        throw error;
      },
    ),
  ]);
  const recent: RecentResult[] = [];
  for (const [id, fields] of entries) {
    if (field(fields, 'domain') !== domain) continue;
    recent.push({
      atMs: Number(field(fields, 'endAtMs') ?? id.split('-')[0]),
      url: field(fields, 'url') ?? '',
      host: field(fields, 'host') ?? '',
      pod: field(fields, 'pod') ?? '',
      outcome: field(fields, 'outcome') ?? '',
      status: Number(field(fields, 'status') ?? 0),
      durationMs: Number(field(fields, 'durationMs') ?? 0),
      ...(field(fields, 'errorCode') ? { errorCode: field(fields, 'errorCode') } : {}),
      ...(field(fields, 'error') ? { error: field(fields, 'error') } : {}),
    });
    if (recent.length >= (options.maxResults ?? 20)) break;
  }
  const listed = hosts.slice(0, maxHosts);
  const details = await Promise.all(
    listed.map(async (host): Promise<HostDetail> => {
      const [state, head] = await Promise.all([
        frontier.inspector.hostState(domain, host),
        frontier.inspector.queueHead(domain, host),
      ]);
      const seen = recent.filter((r) => r.host === host).map((r) => r.url);
      const candidates = origins(host, head ? [head.url, ...seen] : seen);
      const robots = (
        await Promise.all(
          candidates.map((o) => readRobots(robotsCache, o, options.userAgentToken ?? 'shardline')),
        )
      ).filter((r): r is RobotsDetail => r !== undefined);
      const { nextAllowedAtMs } = state;
      return {
        host,
        queued: state.queued,
        inFlight: state.inFlight,
        nextAllowedAtMs,
        nextAllowedInMs: Math.max(0, nextAllowedAtMs - nowMs),
        concurrency: state.concurrency,
        delay: effectiveDelay(state, defaultDelayMs, {
          nowMs,
          // The newest result of the host (recent is newest first).
          ...lastResponse(recent, host),
          ...(options.domainHold ? { domainHold: options.domainHold } : {}),
          ...(options.defaultWhy === undefined ? {} : { defaultWhy: options.defaultWhy }),
        }),
        robots,
      };
    }),
  );
  return {
    nowMs,
    hosts: details,
    hostsListed: listed.length,
    recent,
    resultsScanned: entries.length,
    resultsStream: stream,
  };
}
