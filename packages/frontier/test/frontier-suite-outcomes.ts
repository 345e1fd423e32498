/**
 * How a lease ends, in the frontier's integration suite (see frontier-suite.ts): fail with
 * backoff, Retry-After, retries and dead letters (and unsent failures that leave the host's
 * slot alone), complete ending a failure streak, completeMany, and release with and without
 * a hold.
 */

import { expect, it } from 'vitest';
import { type Lease, LeaseLostError } from '../src/index.js';
import { type FrontierSuite, sleep } from './frontier-suite-context.js';

export function registerOutcomeTests({ connect, make, keysOf, claimNext }: FrontierSuite): void {
  it('fail with sent: false leaves the host next_allowed_at, backoff and failure count untouched', async () => {
    const f = make({ defaultDelayMs: 400, backoffBaseMs: 5000, maxRetries: 5 });
    const redis = connect();
    await f.enqueue(['https://unsent.example/1', 'https://unsent.example/2']);
    const [lease] = (await f.claim({ pod: 'pod-a' })).leases;
    const state = keysOf(f).hostState('unsent.example', 'unsent.example');
    const before = await redis.hmget(state, 'n', 'bo', 'fc');
    expect(Number(before[0])).toBeGreaterThan(0);
    await sleep(30);
    expect(
      await f.fail(lease!, { retryable: true, reason: 'SHARDLINE_ERR_FETCH_DNS', sent: false }),
    ).toEqual({ outcome: 'retry', attempt: 1 });
    expect(await redis.hmget(state, 'n', 'bo', 'fc')).toEqual(before);
    // The next claim comes at the claim's own slot (400 ms), not after a 2.5-5 s backoff.
    const next = await claimNext(f, 3000, 20);
    expect(next!.claimedAtMs).toBeLessThan(Number(before[0]) + 1000);
    // A non-retryable unsent refusal (robots) dead-letters and leaves the slot alone too.
    const nAfterClaim = await redis.hget(state, 'n');
    expect(await f.fail(next!, { retryable: false, reason: 'robots', sent: false })).toMatchObject({
      outcome: 'dead',
    });
    expect(await redis.hget(state, 'n')).toBe(nAfterClaim);
    // Contrast: a sent failure pushes next_allowed_at and starts the backoff.
    const [third] = (
      await (async () => {
        for (;;) {
          const r = await f.claim({ pod: 'pod-a' });
          if (r.leases.length > 0) return r;
          await sleep(20);
        }
      })()
    ).leases;
    const n0 = Number(await redis.hget(state, 'n'));
    await f.fail(third!, { retryable: true, reason: 'timeout' });
    const after = await redis.hmget(state, 'n', 'bo', 'fc');
    expect(Number(after[0])).toBeGreaterThanOrEqual(n0 + 2000);
    expect(Number(after[1])).toBeGreaterThanOrEqual(2500);
    expect(after[2]).toBe('1');
    await expect(
      f.fail(third!, { retryable: true, reason: 'x', sent: 'no' as unknown as boolean }),
    ).rejects.toMatchObject({ code: 'SHARDLINE_ERR_FRONTIER_ARGUMENT' });
  });

  it('complete ends a failure streak: backoff and failure count cleared, delay back to the configured one', async () => {
    const f = make({ defaultDelayMs: 100, backoffBaseMs: 400, backoffMaxMs: 400, maxRetries: 5 });
    const redis = connect();
    const state = keysOf(f).hostState('s.example', 's.example');
    await f.enqueue(['https://s.example/a', 'https://s.example/b']);
    const [a] = (await f.claim({ pod: 'pod-a' })).leases;
    await f.fail(a!, { retryable: true, reason: 'timeout' });
    expect((await redis.hmget(state, 'bo', 'fc'))[1]).toBe('1');
    const retried = await claimNext(f, 5000, 20);
    await f.completeMany([{ lease: retried }]);
    expect(await redis.hmget(state, 'bo', 'fc')).toEqual([null, null]);
    // The next claim reserves the configured 100 ms, not the 400 ms backoff.
    const b = await claimNext(f, 5000, 20);
    expect(Number(await redis.hget(state, 'n'))).toBe(b.claimedAtMs + 100);
    // A success with no streak leaves no failure fields behind either.
    await f.completeMany([{ lease: b }]);
    expect(await redis.hmget(state, 'bo', 'fc')).toEqual([null, null]);
  });

  it('fail: backs off, honours Retry-After, retries up to maxRetries, then dead-letters with the reason', async () => {
    const f = make({ maxRetries: 2, backoffBaseMs: 50, backoffMaxMs: 1000 });
    const redis = connect();
    await f.enqueue([{ url: 'https://f.example/x', meta: 'ref=seed' }, 'https://g.example/404']);
    const leases = (await f.claim({ pod: 'pod-a', max: 2 })).leases;
    const x = leases.find((l) => l.host === 'f.example')!;
    const nf = leases.find((l) => l.host === 'g.example')!;
    expect(await f.fail(nf, { retryable: false, reason: 'http-404', status: 404 })).toEqual({
      outcome: 'dead',
      attempt: 1,
    });
    // Redis time read before the fail: the fail's own "now" is not earlier.
    const [sec, usec] = await redis.time();
    const failedAt = Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
    expect(
      await f.fail(x, { retryable: true, reason: 'http-503', status: 503, retryAfterMs: 400 }),
    ).toEqual({
      outcome: 'retry',
      attempt: 1,
    });
    const next = await claimNext(f, 5000, 20);
    expect(next.claimedAtMs).toBeGreaterThanOrEqual(failedAt + 400);
    expect(next.attempt).toBe(2);
    expect(next.meta).toBe('ref=seed');
    expect((await f.fail(next, { retryable: true, reason: 'timeout' })).outcome).toBe('retry');
    const third = await claimNext(f);
    expect(third.attempt).toBe(3);
    expect(await f.fail(third, { retryable: true, reason: 'timeout' })).toEqual({
      outcome: 'dead',
      attempt: 3,
    });
    const dead = await f.inspector.deadLetters('f.example');
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({
      url: 'https://f.example/x',
      reason: 'timeout',
      attempt: 3,
      meta: 'ref=seed',
    });
    expect((await f.inspector.deadLetters('g.example'))[0]).toMatchObject({
      reason: 'http-404',
      status: 404,
    });
    expect(await f.inspector.domainStats('f.example')).toMatchObject({
      failed: 3,
      dead: 1,
      queued: 0,
      inFlight: 0,
    });
    // Backoff state: the host's state hash records the consecutive failures.
    expect(await redis.hget(keysOf(f).hostState('f.example', 'f.example'), 'fc')).toBe('3');
    // Requeue the dead letter: it comes back with attempt 1.
    expect(await f.requeueDeadLetters('f.example')).toBe(1);
    const again = await claimNext(f, 5000, 20);
    expect(again).toMatchObject({ url: 'https://f.example/x', attempt: 1 });
  });

  it("a dead letter keeps the failure's message on one line, bounded, and still counts by its code", async () => {
    const f = make({ maxRetries: 0 });
    // Three hosts of one domain: one lease each at once.
    await f.enqueue(['https://a.msg.com/', 'https://b.msg.com/', 'https://c.msg.com/']);
    const leases = (await f.claim({ pod: 'pod-a', max: 3 })).leases;
    const byHost = new Map(leases.map((l) => [l.host[0], l]));
    const code = 'SHARDLINE_ERR_HANDLER';
    await f.fail(byHost.get('a')!, {
      retryable: false,
      reason: code,
      message: 'page handler:\tTypeError: x\r\n  at y',
    });
    await f.fail(byHost.get('b')!, { retryable: false, reason: code, message: 'é'.repeat(400) });
    await f.fail(byHost.get('c')!, { retryable: false, reason: 'http-410', status: 410 });
    const letters = new Map((await f.inspector.deadLetters('msg.com')).map((l) => [l.host[0], l]));
    expect(letters.get('a')).toMatchObject({
      reason: code,
      message: 'page handler: TypeError: x    at y',
    });
    expect(letters.get('b')).toMatchObject({ reason: code, message: 'é'.repeat(300) });
    expect(letters.get('c')).toMatchObject({ reason: 'http-410', message: '', status: 410 });
    expect(
      await f.inspector.urlStatus({
        url: 'https://a.msg.com/',
        host: 'a.msg.com',
        domain: 'msg.com',
      }),
    ).toMatchObject({
      state: 'dead',
      reason: code,
      message: 'page handler: TypeError: x    at y',
    });
    // The message does not turn the code into an "other" error; an HTTP status code
    // (the crawler's http-429, http-5xx) is a code of its own too.
    expect(await f.inspector.stats()).toMatchObject({ [`error:${code}`]: 2, 'error:http-410': 1 });
    // Requeued and failed again: the row is written afresh, the message with it.
    expect(await f.requeueDeadLetters('msg.com')).toBe(3);
    const again = (await f.claim({ pod: 'pod-a', max: 3 })).leases;
    for (const lease of again) await f.fail(lease, { retryable: false, reason: 'timeout' });
    expect((await f.inspector.deadLetters('msg.com')).map((l) => [l.reason, l.message])).toEqual([
      ['timeout', ''],
      ['timeout', ''],
      ['timeout', ''],
    ]);
    // A reason that is neither is counted as "other", so the counter fields stay a bounded set.
    expect(await f.inspector.stats()).toMatchObject({ 'error:other': 3 });
    await expect(
      f.fail(again[0]!, { retryable: false, reason: 'x', message: 5 as unknown as string }),
    ).rejects.toMatchObject({ code: 'SHARDLINE_ERR_FRONTIER_ARGUMENT' });
  });

  it('release gives a URL back untouched, at the front', async () => {
    const f = make();
    await f.enqueue(['https://r.example/1', 'https://r.example/2']);
    const [first] = (await f.claim({ pod: 'pod-a' })).leases;
    await f.release(first!);
    const [again] = (await f.claim({ pod: 'pod-a' })).leases;
    expect(again).toMatchObject({ url: 'https://r.example/1', attempt: 1 });
    expect(await f.inspector.domainStats('r.example')).toMatchObject({
      released: 1,
      repeats: 0,
      inFlight: 1,
    });
  });

  it('release with holdMs keeps the host unclaimed until then, other hosts are not held', async () => {
    const f = make();
    const redis = connect();
    await f.enqueue(['https://held.example/1', 'https://held.example/2', 'https://free.example/1']);
    const { leases } = await f.claim({ pod: 'pod-a', max: 10 });
    const held = leases.find((l) => l.host === 'held.example');
    const free = leases.find((l) => l.host === 'free.example');
    await f.complete(free!);
    await f.enqueue(['https://free.example/2']);
    const [sec = 0, micro = 0] = await redis.time();
    const before = Number(sec) * 1000 + Math.floor(Number(micro) / 1000);
    await f.release(held!, { holdMs: 60_000 });
    // The host's due time is the hold's end, by Redis time.
    const score = Number(await redis.zscore(keysOf(f).due('pod-a'), 'held.example/held.example'));
    expect(score).toBeGreaterThanOrEqual(before + 60_000);
    expect(score).toBeLessThan(before + 70_000);
    // Other hosts stay claimable; the held one is not handed out.
    let got: Lease[] = [];
    for (let i = 0; i < 100 && got.length === 0; i++) {
      got = (await f.claim({ pod: 'pod-a', max: 10 })).leases;
      if (got.length === 0) await sleep(20);
    }
    expect(got.map((l) => l.url)).toEqual(['https://free.example/2']);
    expect(await f.inspector.domainStats('held.example')).toMatchObject({
      queued: 2,
      inFlight: 0,
      released: 1,
    });
    // A held release is still a release: the attempt count is unchanged.
    const [head] = await f.inspector.hostQueue('held.example', 'held.example');
    expect(head).toMatchObject({ depth: 0, attempt: 0 });
    await expect(f.release(got[0]!, { holdMs: -1 })).rejects.toMatchObject({
      code: 'SHARDLINE_ERR_FRONTIER_ARGUMENT',
    });
  });

  it('completeMany completes a batch and reports a lost lease per item', async () => {
    const f = make();
    await f.enqueue(['https://m1.example/1', 'https://m2.example/1', 'https://m3.example/1']);
    const { leases } = await f.claim({ pod: 'pod-a', max: 3 });
    expect(leases).toHaveLength(3);
    await f.complete(leases[0]!);
    const outcomes = await f.completeMany(leases.map((lease) => ({ lease, result: { bytes: 5 } })));
    expect(outcomes[0]).toBeInstanceOf(LeaseLostError);
    expect(outcomes.slice(1)).toEqual([null, null]);
    for (const d of ['m1.example', 'm2.example', 'm3.example']) {
      expect(await f.inspector.domainStats(d)).toMatchObject({
        fetched: 1,
        inFlight: 0,
        queued: 0,
      });
    }
    expect((await f.inspector.domainStats('m1.example')).late).toBe(1);
  });
}
