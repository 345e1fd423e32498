/**
 * Two pods in one process, each with its own Redis connection, share a crawl through the pod
 * registry (`@shardline/membership`). Judged from what the test web's SERVER logged: each pod
 * sends its own User-Agent (contact URL), so every request names the pod that sent it.
 */
import { domainKey } from '@shardline/url';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { startTestWeb, type TestWeb } from '../../../test/web/index.js';
import { CrawlerPod } from '../src/index.js';

const MIN_DELAY_MS = 400;
/**
 * Arrival-stamp jitter: the test web, both pods and their handoff share this process, so a
 * request can wait in its socket for a busy turn of the event loop before the server stamps
 * it (seen: up to 118 ms right after the handoff, the pod's own send times 314 ms apart where
 * the server stamped 197). Since the delay counts from the previous request's START there is
 * no fetch time left in the gap to hide that; the delay is long enough that this slack still
 * catches any gap more than a third short.
 */
const SLACK_MS = 150;
/** How long and how often `vi.waitFor` checks a condition. */
const WAIT = { timeout: 15_000, interval: 20 };

let web: TestWeb;
let server: RedisServer;
const connections: Redis[] = [];

beforeAll(async () => {
  [web, server] = await Promise.all([
    startTestWeb({ hosts: 60, seed: 21, pagesPerHost: [3, 7], behaviours: 'none' }),
    startRedis(),
  ]);
});

afterAll(async () => {
  await Promise.all(connections.map((c) => c.quit().catch(() => undefined)));
  await Promise.all([web?.close(), server?.stop()]);
});

function newPod(id: string, prefix: string, extra: { exitWhenIdle?: boolean } = {}): CrawlerPod {
  const redis = new Redis(server.url, { maxRetriesPerRequest: null });
  connections.push(redis);
  return new CrawlerPod({
    redis,
    podId: id,
    prefix,
    concurrency: 32,
    minDelayMs: MIN_DELAY_MS,
    perHostConcurrency: 1,
    resolve: web.resolveOverrides,
    // The server log tells the pods apart by User-Agent.
    contactUrl: `https://${id}.example/bot`,
    exitWhenIdle: extra.exitWhenIdle === false ? false : { graceMs: 1000 },
    stopGraceMs: 10_000,
    logger: pino({ level: 'silent' }),
  });
}

/** Both pods hold the same ring with both on it. */
async function sameRing(a: CrawlerPod, b: CrawlerPod): Promise<void> {
  await vi.waitFor(() => {
    expect(a.membership!.epoch).toBe(b.membership!.epoch);
    expect(a.membership!.members()).toHaveLength(2);
    expect(b.membership!.members()).toHaveLength(2);
  }, WAIT);
}

/** Pod id of a server log entry, from the User-Agent's contact URL. */
function senderOf(userAgent: string): string {
  const match = /\(\+https:\/\/([^./]+)\.example\/bot\)/.exec(userAgent);
  if (!match) throw new Error(`unknown User-Agent ${userAgent}`);
  return match[1]!;
}

/** URLs fetched more or less than once among the reachable ones, plus any extra URL. */
function wrongCounts(): string[] {
  const truth = web.groundTruth({ userAgentToken: 'shardline' });
  const counts = web.fetchCounts();
  const wrong: string[] = [];
  for (const url of truth.reachableAllowed) {
    const n = counts.get(url) ?? 0;
    if (n !== 1) wrong.push(`${url}: ${n}`);
  }
  for (const url of counts.keys()) if (!truth.reachableAllowed.has(url)) wrong.push(`extra ${url}`);
  return wrong;
}

describe('two pods sharing a crawl through the membership', () => {
  it('fetch every reachable URL exactly once, each host by its owner only, politely', async () => {
    web.clearLog();
    const a = newPod('pa', 'm1');
    const b = newPod('pb', 'm1');
    await Promise.all([a.start(), b.start()]);
    await sameRing(a, b);
    // The owner of every host on the agreed ring (it does not change until a pod leaves).
    const owner = new Map(web.hosts.map((h) => [h, a.membership!.ownerOf(domainKey(h))]));
    expect(new Set(owner.values())).toEqual(new Set(['pa', 'pb']));
    const report = await a.seed(web.seeds);
    expect(report.queued).toBe(web.seeds.length);
    await Promise.all([a.done, b.done]);

    expect(wrongCounts()).toEqual([]);
    expect(
      web.politenessViolations({
        minGapMs: (h) => Math.max(MIN_DELAY_MS, web.crawlDelayMs(h)),
        maxConcurrency: 1,
        includeRobots: true,
        slackMs: SLACK_MS,
      }),
    ).toEqual([]);
    expect(a.stats().fetched).toBeGreaterThan(0);
    expect(b.stats().fetched).toBeGreaterThan(0);
    const foreign = web.log
      .filter((e) => senderOf(e.userAgent) !== owner.get(e.host))
      .map((e) => `${e.host}${e.path} by ${senderOf(e.userAgent)}`);
    expect(foreign).toEqual([]);
    // Nothing moved while they crawled, so nothing was repeated.
    expect((await a.frontier.stats()).repeats ?? 0).toBe(0);
    expect(a.stats().lost + b.stats().lost).toBe(0);
  }, 40_000);

  it('lose nothing and repeat nothing when one pod stops gracefully mid-crawl', async () => {
    web.clearLog();
    const c = newPod('pc', 'm2', { exitWhenIdle: false });
    const d = newPod('pd', 'm2');
    await Promise.all([c.start(), d.start()]);
    await sameRing(c, d);
    const owner = new Map(web.hosts.map((h) => [h, c.membership!.ownerOf(domainKey(h))]));
    await c.seed(web.seeds);
    const total = web.groundTruth({ userAgentToken: 'shardline' }).reachableAllowed.size;
    // Mid-crawl: both pods busy, most of the web still queued.
    await vi.waitFor(() => {
      expect(c.stats().fetched).toBeGreaterThanOrEqual(10);
      expect(c.stats().fetched + d.stats().fetched).toBeGreaterThanOrEqual(total / 4);
    }, WAIT);
    const stopAt = performance.timeOrigin + performance.now();
    await c.stop();
    const leftAt = performance.timeOrigin + performance.now();
    expect(c.membership!.ready).toBe(false);
    // The survivor's ring no longer has the leaver.
    await vi.waitFor(() => expect(d.membership!.members()).toHaveLength(1), WAIT);
    await d.done;

    expect(wrongCounts()).toEqual([]);
    expect(
      web.politenessViolations({
        minGapMs: (h) => Math.max(MIN_DELAY_MS, web.crawlDelayMs(h)),
        maxConcurrency: 1,
        includeRobots: true,
        slackMs: SLACK_MS,
      }),
    ).toEqual([]);
    const stats = await d.frontier.stats();
    expect(stats.queued ?? 0).toBe(0);
    expect(stats.inFlight ?? 0).toBe(0);
    // Released leases are given back untouched: not repeats.
    expect(stats.repeats ?? 0).toBe(0);
    expect(c.stats().lost + d.stats().lost).toBe(0);
    expect(c.stats().fetched).toBeGreaterThan(0);
    expect(d.stats().fetched).toBeGreaterThan(c.stats().fetched / 2);
    // Before the stop each host went to its owner; after it, only the survivor sends.
    const wrongSender = web.log
      .filter((e) => {
        const by = senderOf(e.userAgent);
        if (by === 'pc') return owner.get(e.host) !== 'pc' || e.startMs > leftAt;
        return owner.get(e.host) !== 'pd' && e.startMs < stopAt;
      })
      .map((e) => `${e.host}${e.path} by ${senderOf(e.userAgent)} at ${e.startMs - stopAt}`);
    expect(wrongSender).toEqual([]);
    // The pod that left moved its domains: the survivor fetched some of the leaver's hosts.
    expect(web.log.some((e) => senderOf(e.userAgent) === 'pd' && owner.get(e.host) === 'pc')).toBe(
      true,
    );
  }, 40_000);
});
