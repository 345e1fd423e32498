/** The classify stage's decisions, one per kind of fetch outcome. */
import { describe, expect, it } from 'vitest';
import { FetchErrorCode } from '../../src/errors.js';
import { ClassifyStage } from '../../src/pipeline/classify.js';
import { contextOf, outcomeOf } from './lease-fixture.js';

const stage = new ClassifyStage();

function classify(patch: Parameters<typeof outcomeOf>[0]) {
  const ctx = contextOf('http://site.test/');
  ctx.outcome = outcomeOf(patch);
  return { settlement: stage.run(ctx), bounds: ctx.bounds };
}

describe('ClassifyStage', () => {
  it('passes on every response that was fetched: 2xx, 3xx and 4xx other than 429', () => {
    for (const status of [200, 204, 301, 304, 404, 410]) {
      expect(classify({ status }).settlement, String(status)).toBeUndefined();
    }
  });

  it('fails 429 and 5xx retryably, as sent (the host backs off)', () => {
    expect(classify({ status: 429 }).settlement).toEqual({
      kind: 'fail',
      retryable: true,
      code: 'http-429',
      message: 'HTTP 429',
    });
    expect(classify({ status: 503 }).settlement).toMatchObject({ code: 'http-503' });
  });

  it('releases a fetch aborted by a stop', () => {
    const error = { code: FetchErrorCode.ABORTED, message: 'aborted' };
    expect(classify({ status: 0, error }).settlement).toEqual({ kind: 'release' });
  });

  it.each([
    [FetchErrorCode.TIMEOUT, true, true],
    [FetchErrorCode.CONNECT, true, true],
    [FetchErrorCode.DNS, true, false],
    [FetchErrorCode.TLS, false, true],
    [FetchErrorCode.PROTOCOL, false, true],
    [FetchErrorCode.DNS_REFUSED, false, false],
    [FetchErrorCode.INVALID_URL, false, false],
  ])('fails %s: retryable %s, sent %s', (code, retryable, sent) => {
    expect(classify({ status: 0, error: { code, message: 'x' } }).settlement).toEqual({
      kind: 'fail',
      retryable,
      code,
      message: 'x',
      sent,
    });
  });

  it('records a body cut at the cap as bound body-cap', () => {
    const cut = classify({ truncated: true, body: Buffer.from('<html>') });
    expect(cut.settlement).toBeUndefined();
    expect(cut.bounds).toEqual(['body-cap']);
    expect(classify({ truncated: true }).bounds).toEqual([]);
  });

  it('refuses a context without a fetch outcome (stages out of order)', () => {
    expect(() => stage.run(contextOf('http://site.test/'))).toThrow(
      /classify stage.*fetch outcome/,
    );
  });
});
