import { describe, expect, it } from 'vitest';
import { checkEnqueue, MAX_ENQUEUED_PER_PAGE } from '../../src/handlers/enqueue-args.js';

describe('checkEnqueue (what ctx.enqueue accepts)', () => {
  it('takes a URL or an array of them, with the options a handler may give', () => {
    expect(checkEnqueue('/a', undefined, 0)).toEqual({
      urls: ['/a'],
      priority: 0,
      tags: undefined,
      refetchAfterMs: undefined,
    });
    expect(
      checkEnqueue(
        ['/a', 'https://b.test/'],
        { priority: -5, tags: ['x:1'], refetchAfterMs: 60_000 },
        0,
      ),
    ).toEqual({
      urls: ['/a', 'https://b.test/'],
      priority: -5,
      tags: ['x:1'],
      refetchAfterMs: 60_000,
    });
  });

  it('throws at the call, naming what is wrong, instead of the frontier dropping the URLs', () => {
    const cases: [unknown, unknown, RegExp][] = [
      [42, undefined, /give a URL string or an array of them; got number/],
      [['/a', 42], undefined, /URL \[1\] must be a string; got number/],
      ['/a', 'high', /options must be an object; got string/],
      ['/a', { priority: 'high' }, /priority must be an integer within ±1000000; got "high"/],
      ['/a', { priority: 1.5 }, /priority must be an integer within ±1000000; got 1\.5/],
      ['/a', { priority: 2_000_000 }, /within ±1000000; got 2000000/],
      ['/a', { tags: 'news' }, /tags must be an array of strings; got string/],
      ['/a', { tags: ['a,b'] }, /a tag must be 1-64 of \[A-Za-z0-9\._:-\]; got "a,b"/],
      ['/a', { tags: Array.from({ length: 8 }, (_, i) => `t${i}`) }, /at most 7 tags/],
      [
        '/a',
        { refetchAfterMs: -5 },
        /refetchAfterMs must be an integer of ms in 1\.\.31536000000 \(a year\); got -5/,
      ],
      ['/a', { refetchAfterMs: '1d' }, /refetchAfterMs .*; got "1d"/],
    ];
    for (const [urls, options, message] of cases) {
      expect(() => checkEnqueue(urls, options, 0), JSON.stringify([urls, options])).toThrow(
        message,
      );
    }
  });

  it('bounds the URLs one page may enqueue across its calls', () => {
    expect(() => checkEnqueue(['/a', '/b'], undefined, MAX_ENQUEUED_PER_PAGE - 1)).toThrow(
      `ctx.enqueue: at most ${MAX_ENQUEUED_PER_PAGE} URLs per page`,
    );
    expect(checkEnqueue('/a', undefined, MAX_ENQUEUED_PER_PAGE - 1).urls).toEqual(['/a']);
  });
});
