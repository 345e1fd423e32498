/**
 * The crawl of the hostile test web that crawl.test.ts (one pod) and crawl-cluster.test.ts
 * (three pods on a Redis Cluster) both run, and the checks they share, judged from what the
 * SERVER logged and what the results stream holds.
 */
import { type CrawlResult, decodeResult } from '@shardline/crawler';
import type { Cluster, Redis } from 'ioredis';
import type { RequestLogEntry } from '../web/analysis.js';
import type { StartTestWebOptions, TestWeb } from '../web/index.js';

/** The pods' politeness, retry and robots settings for this crawl. */
export const CRAWL = {
  minDelayMs: 200,
  maxRetries: 3,
  robotsRetryMs: 1000,
  robotsMaxRetries: 2,
} as const;

/** 429/503 pages fail this many times before they answer. */
const FAIL_FIRST = 2;

/** 200 hosts with the default mix of hostile behaviours. */
export const HOSTILE_WEB: StartTestWebOptions = {
  hosts: 200,
  seed: 11,
  pagesPerHost: [4, 10],
  behaviours: 'default-mix',
  slowMs: 300,
  dripMs: 400,
  hugeBodyBytes: 3 * 1024 * 1024,
  robotsDelayMs: 1500,
  failFirstCount: FAIL_FIRST,
  retryAfterS: 1,
};

/** How far the pods' clock (Date.now) and the server's (performance) may drift apart. */
const CLOCKS_MS = 25;

/**
 * The server's log with each page request's start moved to when its pod sent it (the result's
 * `sentAtMs`; the pods run on this machine's clock). The test web shares a process with the
 * pods or the test's watchers: a busy turn of its event loop can stamp a request's arrival
 * hundreds of ms after it was sent (seen: 648 ms on a loaded machine), which shortens the gap to
 * the next request by as much; a gap between two SENDS is what the pods control. Each arrival
 * takes the latest unused send of its URL at or before it; requests without a result (robots.txt,
 * a fetch cut by a kill) keep the server's stamp. Every send must find its arrival, or this
 * throws: the pods' times stand in for the server's only where they agree with it.
 *
 * The results stream is at-least-once: when Redis dies between a pipelined XADD and its reply,
 * the pod's client sends it again after the restart, so one fetch can have two identical
 * records (same URL, pod, start and send). They count as one send.
 */
export function sentTimeLog(
  log: readonly RequestLogEntry[],
  results: readonly CrawlResult[],
): RequestLogEntry[] {
  const sends = new Map<string, number[]>();
  const records = new Set<string>();
  for (const r of results) {
    if (r.sentAtMs === undefined) continue;
    const u = new URL(r.url);
    const key = `${u.hostname}${u.pathname}${u.search}`;
    const record = `${key} ${r.pod} ${r.startedAtMs} ${r.sentAtMs}`;
    if (records.has(record)) continue;
    records.add(record);
    const list = sends.get(key) ?? [];
    list.push(r.sentAtMs);
    sends.set(key, list);
  }
  for (const list of sends.values()) list.sort((a, b) => a - b);
  const moved = log
    .slice()
    .sort((a, b) => a.startMs - b.startMs)
    .map((e) => {
      const list = sends.get(`${e.host}${e.path}`);
      let latest = -1;
      for (let i = 0; list !== undefined && i < list.length; i++) {
        if ((list[i] as number) > e.startMs + CLOCKS_MS) break;
        latest = i;
      }
      if (list === undefined || latest < 0) return e;
      const [sentAtMs] = list.splice(latest, 1);
      return { ...e, startMs: sentAtMs as number };
    });
  const unmatched = [...sends].filter(([, list]) => list.length > 0);
  if (unmatched.length > 0) {
    const [key, list] = unmatched[0] as [string, number[]];
    throw new Error(`${key}: sent at ${list.join(', ')} but the server saw no request then`);
  }
  return moved;
}

/** Every result of a crawl, read from the stream with a fresh consumer group. */
export async function readResults(redis: Redis | Cluster, key: string): Promise<CrawlResult[]> {
  await redis.xgroup('CREATE', key, 'check', '0', 'MKSTREAM');
  const out: CrawlResult[] = [];
  for (;;) {
    const reply = (await redis.xreadgroup(
      'GROUP',
      'check',
      'reader-1',
      'COUNT',
      1000,
      'STREAMS',
      key,
      '>',
    )) as [string, [string, string[]][]][] | null;
    const entries = reply?.[0]?.[1] ?? [];
    if (entries.length === 0) return out;
    for (const [, fields] of entries) out.push(decodeResult(fields));
  }
}

/**
 * Reachable allowed URLs the server did not see exactly as often as the policy says: once,
 * the fail-first pages once per failure plus once, `/broken` once per attempt.
 */
export function wrongFetchCounts(web: TestWeb): string[] {
  const truth = web.groundTruth({ userAgentToken: 'shardline' });
  const counts = web.fetchCounts();
  const wrong: string[] = [];
  for (const url of truth.reachableAllowed) {
    const path = new URL(url).pathname;
    let expected = 1;
    if (path === '/retry/429' || path === '/retry/503') expected = FAIL_FIRST + 1;
    if (path === '/broken') expected = CRAWL.maxRetries + 1;
    const got = counts.get(url) ?? 0;
    if (got !== expected) wrong.push(`${url}: ${got} (expected ${expected})`);
  }
  return wrong;
}

/** URLs the server served that are not reachable and allowed (disallowed, nofollow, traps). */
export function fetchedOutsideTruth(web: TestWeb): string[] {
  const truth = web.groundTruth({ userAgentToken: 'shardline' });
  return [...web.fetchCounts().keys()].filter((url) => !truth.reachableAllowed.has(url));
}

/**
 * What the server saw of robots.txt requests, for a crawler that retries an unreachable
 * robots.txt `CRAWL.robotsMaxRetries` times, `CRAWL.robotsRetryMs` apart: once per reachable
 * host, twice for `robots-503-first`, at least `robotsMaxRetries + 1` times for a host whose
 * robots.txt never answers (`robots-500`, `robots-timeout`: once the crawler gave up, each
 * further URL of the host claimed after the answer expired asks again); and no request sooner
 * than `robotsRetryMs` after the previous answer ended.
 */
/** Server-side timestamps are taken on one clock; allow this much for their own jitter. */
const SLACK_MS = 25;

export function robotsRetryProblems(web: TestWeb): {
  wrongCounts: string[];
  earlyRetries: string[];
  variantsSeen: string[];
} {
  const counts = web.robotsFetchCounts();
  const wrongCounts: string[] = [];
  const earlyRetries: string[] = [];
  const variantsSeen = new Set<string>();
  for (const host of web.model.hosts.values()) {
    const never = host.behaviours.some((b) => b === 'robots-500' || b === 'robots-timeout');
    const once = host.behaviours.includes('robots-503-first');
    for (const b of host.behaviours) if (b.startsWith('robots-')) variantsSeen.add(b);
    const expected = never ? CRAWL.robotsMaxRetries + 1 : once ? 2 : 1;
    const url = `${web.origin(host.name)}/robots.txt`;
    const got = counts.get(url) ?? 0;
    if (never ? got < expected : got !== expected) {
      wrongCounts.push(`${url}: ${got} (expected ${never ? 'at least ' : ''}${expected})`);
    }
    const asked = web.log.filter((e) => e.host === host.name && e.path === '/robots.txt');
    for (let i = 1; i < asked.length; i++) {
      const gap = asked[i]!.startMs - asked[i - 1]!.endMs;
      if (gap < CRAWL.robotsRetryMs - SLACK_MS)
        earlyRetries.push(`${host.name}: ${Math.round(gap)} ms`);
    }
  }
  return { wrongCounts, earlyRetries, variantsSeen: [...variantsSeen].sort() };
}
