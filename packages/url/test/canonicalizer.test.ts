import { describe, expect, it } from 'vitest';
import {
  type CanonicalizeOptions,
  Canonicalizer,
  canonicalize,
  createCanonicalizer,
  UrlError,
  UrlOptionsError,
} from '../src/index.js';

describe('Canonicalizer', () => {
  it('resolves each call against its own base', () => {
    const canonicalizer = createCanonicalizer({ sortQuery: true });
    expect(canonicalizer.canonicalize('b?y=1&x=2', 'http://a.com/dir/page').url).toBe(
      'http://a.com/dir/b?x=2&y=1',
    );
    expect(canonicalizer.canonicalize('/c', 'https://other.org/x').url).toBe('https://other.org/c');
  });

  it('prefers the per-call base over the base option', () => {
    const canonicalizer = new Canonicalizer({ base: 'http://a.com/' });
    expect(canonicalizer.canonicalize('x').url).toBe('http://a.com/x');
    expect(canonicalizer.canonicalize('x', 'http://b.com/').url).toBe('http://b.com/x');
  });

  it('gives the same result as canonicalize()', () => {
    const options: CanonicalizeOptions = { sortQuery: true, trackingParams: ['sid'] };
    const canonicalizer = createCanonicalizer(options);
    for (const input of [
      'http://A.com/%7e?sid=1&b=2&a=1#x',
      'http://[::1]:80',
      'https://x.github.io/',
    ]) {
      expect(canonicalizer.canonicalize(input)).toEqual(canonicalize(input, options));
    }
  });

  it('tryCanonicalize returns errors instead of throwing', () => {
    const canonicalizer = createCanonicalizer();
    const bad = canonicalizer.tryCanonicalize('mailto:a@b.c');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toBeInstanceOf(UrlError);
    const good = canonicalizer.tryCanonicalize('/p', 'http://a.com/');
    expect(good).toEqual({
      ok: true,
      value: {
        url: 'http://a.com/p',
        scheme: 'http',
        host: 'a.com',
        port: 80,
        origin: 'http://a.com',
        domain: 'a.com',
      },
    });
  });

  it('refuses a link when the per-call base is not a URL', () => {
    const result = createCanonicalizer().tryCanonicalize('x', 'not a url');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe('SHARDLINE_ERR_URL_INVALID');
  });

  it('rejects a non-string input at runtime', () => {
    const result = createCanonicalizer().tryCanonicalize(42 as unknown as string);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe('SHARDLINE_ERR_URL_INVALID');
  });

  it.each([
    [
      { stripTrackingParams: 'yes' },
      'stripTrackingParams',
      /must be a boolean, got "yes" \(string\)/,
    ],
    [{ sortQuery: 1 }, 'sortQuery', /must be a boolean, got 1 \(number\)/],
    [{ maxUrlBytes: 0 }, 'maxUrlBytes', /positive integer, got 0 \(number\)/],
    [{ maxUrlBytes: 1.5 }, 'maxUrlBytes', /positive integer/],
    [{ maxUrlBytes: '2048' }, 'maxUrlBytes', /got "2048" \(string\)/],
    [{ maxInputChars: -1 }, 'maxInputChars', /positive integer/],
    [{ trackingParams: 'utm' }, 'trackingParams', /array/],
    [{ trackingParams: [1] }, 'trackingParams[]', /string or a RegExp, got 1 \(number\)/],
    [{ base: 5 }, 'base', /string or a URL/],
    [{ base: '/relative' }, 'base', /an absolute URL, got "\/relative" \(string\)/],
  ])('validates options: %j', (options, option, message) => {
    let caught: unknown;
    try {
      new Canonicalizer(options as unknown as CanonicalizeOptions);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UrlOptionsError);
    const error = caught as UrlOptionsError;
    expect(error.code).toBe('SHARDLINE_ERR_URL_OPTIONS');
    expect(error.option).toBe(option);
    expect(error.message).toContain(option);
    expect(error.message).toMatch(message);
  });

  it('canonicalize() validates options too', () => {
    expect(() => canonicalize('http://a.com/', { maxUrlBytes: -5 })).toThrow(UrlOptionsError);
  });
});
