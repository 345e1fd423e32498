/**
 * The settler: each settlement becomes one frontier call, the counters and one result record
 * (none for a gap release); a lease the frontier no longer holds is counted as lost. The
 * frontier, the complete batch and the result sink are recorded (the frontier's own tests
 * cover what those calls do in Redis).
 */
import { type FrontierError, LeaseLostError, type ReleaseOptions } from '@shardline/frontier';
import { RobotsTxt } from '@shardline/robots';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { CrawlOutcomeCode, FetchErrorCode } from '../../src/errors.js';
import type { LeaseContext } from '../../src/pipeline/lease-context.js';
import { type CompleteItem, Settler } from '../../src/pipeline/settle.js';
import { PodCounters } from '../../src/pod-counters.js';
import type { CrawlResult } from '../../src/results.js';
import { contextOf, outcomeOf } from './lease-fixture.js';

function setup(o: { lost?: boolean; failOutcome?: 'retry' | 'dead' } = {}) {
  const calls: string[] = [];
  const released: (ReleaseOptions | undefined)[] = [];
  const completed: CompleteItem[] = [];
  const results: CrawlResult[] = [];
  const counters = new PodCounters();
  const lost = (id: string) => new LeaseLostError(id);
  const settler = new Settler({
    frontier: {
      fail: async (lease, fail) => {
        calls.push(`fail ${fail.reason} retryable=${fail.retryable} sent=${fail.sent}`);
        if (o.lost) throw lost(lease.id);
        return { outcome: o.failOutcome ?? 'retry', attempt: 1 };
      },
      release: async (lease, options) => {
        calls.push('release');
        released.push(options);
        if (o.lost) throw lost(lease.id);
      },
    },
    complete: {
      add: async (items) => {
        completed.push(...items);
        return items.map((item): FrontierError | null => (o.lost ? lost(item.lease.id) : null));
      },
    },
    results: { write: (r) => results.push(r) },
    counters,
    logger: pino({ level: 'silent' }),
    robotsMaxRetries: 3,
  });
  return { settler, calls, released, completed, results, counters };
}

function fetchedContext(status = 200): LeaseContext {
  const ctx = contextOf('http://site.test/page');
  ctx.outcome = outcomeOf({ status, bytes: 1234 });
  ctx.links = [{ url: 'http://site.test/a', depth: 1 }];
  ctx.linksQueued = 1;
  ctx.bounds = ['body-cap', 'depth', 'depth'];
  return ctx;
}

describe('Settler', () => {
  it('completes a fetched lease and records it once, bounds listed once each', async () => {
    const s = setup();
    await s.settler.settle(fetchedContext(), { kind: 'complete' });
    expect(s.completed).toHaveLength(1);
    expect(s.completed[0]!.result).toMatchObject({ status: 200, bytes: 1234, links: 1 });
    expect(s.results).toEqual([
      expect.objectContaining({
        url: 'http://site.test/page',
        outcome: 'fetched',
        status: 200,
        links: 1,
        linksQueued: 1,
        bounds: 'body-cap,depth',
      }),
    ]);
    expect(s.counters.snapshot()).toMatchObject({
      fetched: 1,
      bytes: 1234,
      linksQueued: 1,
      bounds: { 'body-cap': 1, depth: 1 },
    });
  });

  it('counts a 4xx completion under its status, and a lost completion as lost', async () => {
    const s = setup();
    await s.settler.settle(fetchedContext(404), { kind: 'complete' });
    expect(s.counters.errors).toEqual({ 'http-404': 1 });
    const lost = setup({ lost: true });
    await lost.settler.settle(fetchedContext(), { kind: 'complete' });
    expect(lost.results[0]).toMatchObject({
      outcome: 'lost',
      errorCode: CrawlOutcomeCode.LEASE_LOST,
    });
    expect(lost.counters).toMatchObject({ lost: 1, fetched: 0 });
  });

  it('fails a lease with its reason; not sent when refused before any request', async () => {
    const s = setup({ failOutcome: 'dead' });
    const ctx = contextOf('http://site.test/');
    await s.settler.settle(ctx, {
      kind: 'fail',
      retryable: false,
      code: FetchErrorCode.DNS_REFUSED,
      message: 'refused',
      sent: false,
    });
    expect(s.calls).toEqual([`fail ${FetchErrorCode.DNS_REFUSED} retryable=false sent=false`]);
    expect(s.results[0]).toMatchObject({
      outcome: 'dead',
      status: 0,
      errorCode: FetchErrorCode.DNS_REFUSED,
      error: 'refused',
    });
    expect(s.counters).toMatchObject({ dead: 1, errors: { [FetchErrorCode.DNS_REFUSED]: 1 } });
  });

  it('records a failure whose lease was lost as lost, with the original code counted', async () => {
    const s = setup({ lost: true });
    const ctx = fetchedContext(503);
    await s.settler.settle(ctx, {
      kind: 'fail',
      retryable: true,
      code: 'http-503',
      message: 'HTTP 503',
    });
    expect(s.results[0]).toMatchObject({
      outcome: 'lost',
      status: 503,
      errorCode: CrawlOutcomeCode.LEASE_LOST,
      error: 'http-503: lease lost',
    });
    expect(s.counters).toMatchObject({ lost: 1, bytes: 1234, errors: { 'http-503': 1 } });
  });

  it('releases a lease on stop and records it as released', async () => {
    const s = setup();
    await s.settler.settle(contextOf('http://site.test/'), { kind: 'release' });
    expect(s.released).toEqual([undefined]);
    expect(s.results[0]).toMatchObject({
      outcome: 'released',
      errorCode: CrawlOutcomeCode.STOPPED,
    });
    expect(s.counters.released).toBe(1);
  });

  it('hands a lease back for the robots gap without a result', async () => {
    const s = setup();
    await s.settler.settle(contextOf('http://site.test/'), {
      kind: 'release-for-gap',
      waitMs: 812.4,
    });
    expect(s.released).toEqual([{ holdMs: 813 }]);
    expect(s.results).toEqual([]);
    expect(s.counters.gapReleases).toBe(1);
  });

  it('defers a lease until the robots.txt retry, holding the host at least a second', async () => {
    const s = setup();
    const ctx = contextOf('http://site.test/');
    ctx.robots = {
      origin: 'http://site.test',
      robots: RobotsTxt.disallowAll('http-503'),
      from: 'fetch',
      expiresAtMs: Date.now() + 30_000,
      unreachable: 2,
      hops: [],
    };
    await s.settler.settle(ctx, { kind: 'defer-for-robots' });
    expect(s.released[0]!.holdMs).toBeGreaterThan(29_000);
    expect(s.results[0]).toMatchObject({
      outcome: 'deferred',
      errorCode: CrawlOutcomeCode.ROBOTS_UNREACHABLE,
      error: expect.stringMatching(
        /robots.txt unreachable \(http-503\), attempt 2 of 4; host held 30 s/,
      ),
    });
    expect(s.counters).toMatchObject({ robotsDeferred: 1 });
    ctx.robots.expiresAtMs = Date.now() - 5000;
    await s.settler.settle(ctx, { kind: 'defer-for-robots' });
    expect(s.released[1]).toEqual({ holdMs: 1000 });
  });
});
