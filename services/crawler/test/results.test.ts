import { describe, expect, it } from 'vitest';
import { type CrawlResult, decodeResult, encodeResult } from '../src/results.js';

describe('result encoding', () => {
  it('round-trips through stream fields, leaving absent fields out', () => {
    const result: CrawlResult = {
      url: 'http://a.test/p/1',
      host: 'a.test',
      domain: 'a.test',
      depth: 2,
      attempt: 1,
      pod: 'p1',
      outcome: 'fetched',
      status: 200,
      bytes: 1234,
      contentType: 'text/html',
      truncated: true,
      links: 4,
      linksQueued: 3,
      bounds: 'body-cap',
      startedAtMs: 1000,
      sentAtMs: 1001.5,
      endAtMs: 1010,
      durationMs: 9,
    };
    const fields = encodeResult(result);
    expect(fields).not.toContain('redirectTo');
    expect(fields[fields.indexOf('truncated') + 1]).toBe('1');
    expect(decodeResult(fields)).toEqual(result);
  });
});
