/**
 * The robots stage with a real RobotsLoader, Fetcher, SendGate and LinkFilter against a
 * loopback server; only the frontier (one call, `setHostPolicy`) and the enqueue are recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrawlOutcomeCode } from '../../src/errors.js';
import { Fetcher } from '../../src/fetcher.js';
import { LinkScope } from '../../src/links.js';
import type { FoundLink } from '../../src/pipeline/lease-context.js';
import { LinkFilter } from '../../src/pipeline/link-filter.js';
import { RobotsStage, type RobotsStageOptions } from '../../src/pipeline/robots-stage.js';
import { PodCounters } from '../../src/pod-counters.js';
import { RobotsGate } from '../../src/robots-gate.js';
import { RobotsLoader } from '../../src/robots-loader.js';
import { SendGate } from '../../src/send-gate.js';
import { startTestServer, type TestServer, testDns } from '../fixtures/test-server.js';
import { contextOf } from './lease-fixture.js';

/** robots.txt per virtual host. */
const ROBOTS: Record<string, string | number> = {
  'slow.test': 'User-agent: *\nCrawl-delay: 2\n',
  'private.test': 'User-agent: *\nDisallow: /private\n',
  'maps.test': 'User-agent: *\nAllow: /\nSitemap: http://maps.test:PORT/sitemap.xml\n',
  'down.test': 500,
};

let server: TestServer;
let fetcher: Fetcher;

beforeAll(async () => {
  server = await startTestServer({
    '/robots.txt': (req, res) => {
      const host = (req.headers.host ?? '').split(':')[0]!;
      const robots = ROBOTS[host] ?? '';
      if (typeof robots === 'number') {
        res.writeHead(robots);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(robots.replace('PORT', String(server.port)));
    },
  });
  fetcher = new Fetcher({ dns: testDns() });
});

afterAll(async () => {
  await fetcher?.close();
  await server?.close();
});

interface Setup {
  stage: RobotsStage;
  gate: SendGate;
  counters: PodCounters;
  policies: { host: string; crawlDelayMs: number | null | undefined }[];
  enqueued: FoundLink[][];
}

function setup(
  patch: Partial<RobotsStageOptions> = {},
  o: { gateHooks?: boolean; enqueueSitemaps?: boolean } = {},
): Setup {
  const gate = new SendGate({ minDelayMs: 1000 });
  const robotsGate = new RobotsGate(gate, new AbortController().signal);
  const loader = new RobotsLoader({
    fetcher,
    ...(o.gateHooks ? { beforeFetch: robotsGate.beforeFetch, onFetch: robotsGate.onFetch } : {}),
  });
  const counters = new PodCounters();
  const policies: Setup['policies'] = [];
  const enqueued: FoundLink[][] = [];
  const stage = new RobotsStage({
    loader,
    frontier: {
      setHostPolicy: async (host, policy) => {
        policies.push({ host, crawlDelayMs: policy.crawlDelayMs });
      },
    },
    gate,
    links: new LinkFilter({
      scope: new LinkScope(),
      userAgentToken: 'shardline',
      enqueueSitemaps: o.enqueueSitemaps ?? false,
      counters,
    }),
    enqueue: async (items) => {
      enqueued.push(items);
      return items.map(() => ({ status: 'queued' as const }));
    },
    counters,
    userAgentToken: 'shardline',
    maxCrawlDelayMs: 30_000,
    robotsMaxRetries: 3,
    ...patch,
  });
  return { stage, gate, counters, policies, enqueued };
}

describe('RobotsStage', () => {
  it('passes an allowed URL and sets the crawl-delay in the frontier and the gate, once', async () => {
    const s = setup();
    const first = contextOf(server.url('/a', 'slow.test'));
    expect(await s.stage.run(first)).toBeUndefined();
    expect(first.robots?.from).toBe('fetch');
    expect(s.policies).toEqual([{ host: 'slow.test', crawlDelayMs: 2000 }]);
    expect(s.gate.delayOf('slow.test')).toBe(2000);
    // From memory the second time: the frontier already has the delay.
    expect(await s.stage.run(contextOf(server.url('/b', 'slow.test')))).toBeUndefined();
    expect(s.policies).toHaveLength(1);
    expect(s.counters.robotsLoads).toEqual({ memory: 1, 'shared-cache': 0, fetch: 1 });
  });

  it('caps the crawl-delay at maxCrawlDelayMs, and clears it when robots.txt has none', async () => {
    const s = setup({ maxCrawlDelayMs: 1500 });
    await s.stage.run(contextOf(server.url('/a', 'slow.test')));
    await s.stage.run(contextOf(server.url('/a', 'private.test')));
    expect(s.policies).toEqual([
      { host: 'slow.test', crawlDelayMs: 1500 },
      { host: 'private.test', crawlDelayMs: null },
    ]);
  });

  it('dead-letters a disallowed URL without counting it as sent', async () => {
    const s = setup();
    expect(await s.stage.run(contextOf(server.url('/private/x', 'private.test')))).toEqual({
      kind: 'fail',
      retryable: false,
      code: CrawlOutcomeCode.ROBOTS_DISALLOWED,
      message: 'robots.txt',
      sent: false,
    });
    expect(s.counters.robotsDisallowed).toBe(1);
  });

  it('defers a URL of a host whose robots.txt is unreachable, until retries run out', async () => {
    const retrying = setup({ robotsMaxRetries: 3 });
    expect(await retrying.stage.run(contextOf(server.url('/', 'down.test')))).toEqual({
      kind: 'defer-for-robots',
    });
    const exhausted = setup({ robotsMaxRetries: 0 });
    expect(await exhausted.stage.run(contextOf(server.url('/', 'down.test')))).toMatchObject({
      kind: 'fail',
      retryable: false,
      code: CrawlOutcomeCode.ROBOTS_UNREACHABLE,
      message: expect.stringMatching(/unreachable 1 times in a row/),
      sent: false,
    });
    expect(exhausted.counters.robotsDisallowed).toBe(1);
  });

  it("hands a new host's page back for the gap after its robots.txt, sitemaps enqueued first", async () => {
    const s = setup({}, { gateHooks: true, enqueueSitemaps: true });
    const ctx = contextOf(server.url('/', 'maps.test'));
    const settlement = await s.stage.run(ctx);
    expect(settlement).toMatchObject({ kind: 'release-for-gap' });
    const { waitMs } = settlement as { waitMs: number };
    expect(waitMs).toBeGreaterThanOrEqual(250);
    expect(waitMs).toBeLessThanOrEqual(1000);
    expect(s.enqueued).toEqual([
      [{ url: server.url('/sitemap.xml', 'maps.test'), depth: 0, meta: 'sitemap' }],
    ]);
    // Claimed again later, robots.txt answers from memory and the page goes on.
    expect(await s.stage.run(contextOf(server.url('/', 'maps.test')))).toBeUndefined();
  });

  it('releases the lease when the pod stops during the load, and fails it on a loader error', async () => {
    const stop = new AbortController();
    stop.abort();
    const s = setup();
    const stopped = contextOf(server.url('/', 'private.test'), {}, stop.signal);
    expect(await s.stage.run(stopped)).toEqual({ kind: 'release' });
    const closed = new Fetcher({ dns: testDns() });
    await closed.close();
    const broken = setup({ loader: new RobotsLoader({ fetcher: closed }) });
    expect(await broken.stage.run(contextOf(server.url('/', 'private.test')))).toMatchObject({
      kind: 'fail',
      retryable: true,
      code: 'robots-error',
    });
  });
});
