/**
 * canonicalize() options — tracking-parameter stripping, query sorting, relative references
 * against a base, length bounds — and the inputs it refuses, with their error codes. The
 * canonical form of each URL part: canonicalize-components.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  type CanonicalizeOptions,
  canonicalize,
  tryCanonicalize,
  UrlError,
  type UrlErrorCode,
} from '../src/index.js';
import { type Accepted, describeAccepts } from './canonicalize-cases.js';

const accepted: Accepted[] = [
  // Tracking parameters
  {
    name: 'utm_* removed',
    input: 'http://a.com/?utm_source=x&id=7&utm_medium=y&utm_campaign=z',
    url: 'http://a.com/?id=7',
  },
  {
    name: 'utm_ case-insensitive',
    input: 'http://a.com/?UTM_Source=x&id=7',
    url: 'http://a.com/?id=7',
  },
  {
    name: 'gclid and fbclid removed',
    input: 'http://a.com/p?gclid=1&q=s&fbclid=2',
    url: 'http://a.com/p?q=s',
  },
  {
    name: 'msclkid mc_eid _ga yclid igshid removed',
    input: 'http://a.com/?msclkid=1&mc_eid=2&_ga=3&yclid=4&igshid=5',
    url: 'http://a.com/',
  },
  {
    name: 'escaped tracking name removed',
    input: 'http://a.com/?utm%5fsource=x&a=1',
    url: 'http://a.com/?a=1',
  },
  {
    name: 'valueless tracking name removed',
    input: 'http://a.com/?a=1&gclid',
    url: 'http://a.com/?a=1',
  },
  {
    name: 'lookalike name kept',
    input: 'http://a.com/?xgclid=1&utm=2',
    url: 'http://a.com/?xgclid=1&utm=2',
  },
  {
    name: 'tracking params kept when disabled',
    input: 'http://a.com/?utm_source=x&&id=7',
    options: { stripTrackingParams: false },
    url: 'http://a.com/?utm_source=x&&id=7',
  },
  {
    name: 'extra tracking names and patterns',
    input: 'http://a.com/?sessionid=1&Ref=2&x_trk_9=3&keep=4',
    options: { trackingParams: ['ref', /^x_trk_\d+$/, 'SESSIONID'] },
    url: 'http://a.com/?keep=4',
  },
  {
    name: 'extra tracking params ignored when stripping disabled',
    input: 'http://a.com/?ref=2&utm_source=1',
    options: { stripTrackingParams: false, trackingParams: ['ref'] },
    url: 'http://a.com/?ref=2&utm_source=1',
  },
  // Sorting
  {
    name: 'sorting by name is stable',
    input: 'http://a.com/?b=2&a=1&c=3&a=0',
    options: { sortQuery: true },
    url: 'http://a.com/?a=1&a=0&b=2&c=3',
  },
  {
    name: 'sorting uses code-unit order',
    input: 'http://a.com/?b=1&B=2&a%20=3&a=4',
    options: { sortQuery: true },
    url: 'http://a.com/?B=2&a=4&a%20=3&b=1',
  },
  {
    name: 'sorting after tracking removal',
    input: 'http://a.com/?z=1&utm_term=t&y=2',
    options: { sortQuery: true },
    url: 'http://a.com/?y=2&z=1',
  },
  {
    name: 'sorting without stripping',
    input: 'http://a.com/?utm_term=t&a=1',
    options: { sortQuery: true, stripTrackingParams: false },
    url: 'http://a.com/?a=1&utm_term=t',
  },
  // Relative references
  {
    name: 'absolute path',
    input: '/x/y',
    options: { base: 'https://a.com/p/q' },
    url: 'https://a.com/x/y',
  },
  {
    name: 'relative path',
    input: 'y?z',
    options: { base: 'https://a.com/p/q' },
    url: 'https://a.com/p/y?z',
  },
  {
    name: 'parent path',
    input: '../y',
    options: { base: 'https://a.com/p/q/r' },
    url: 'https://a.com/p/y',
  },
  {
    name: 'scheme-relative',
    input: '//Other.com/path',
    options: { base: 'https://a.com/p/q' },
    url: 'https://other.com/path',
  },
  {
    name: 'query only',
    input: '?q',
    options: { base: 'https://a.com/p/q?x#f' },
    url: 'https://a.com/p/q?q',
  },
  {
    name: 'fragment only',
    input: '#frag',
    options: { base: 'https://a.com/p/q?x' },
    url: 'https://a.com/p/q?x',
  },
  {
    name: 'absolute URL ignores base',
    input: 'http://b.com/',
    options: { base: 'https://a.com/' },
    url: 'http://b.com/',
  },
  {
    name: 'http: with same-scheme base is relative',
    input: 'http:example.com',
    options: { base: 'http://base.com/x/y' },
    url: 'http://base.com/x/example.com',
  },
  {
    name: 'http: with other-scheme base is absolute',
    input: 'http:example.com',
    options: { base: 'https://base.com/x/y' },
    url: 'http://example.com/',
  },
  {
    name: 'base as URL object',
    input: 'z',
    options: { base: new URL('http://a.com/d/') },
    url: 'http://a.com/d/z',
  },
  {
    name: 'base is not canonicalised, result is',
    input: 'p?utm_source=1',
    options: { base: 'HTTP://A.COM:80/d/#x' },
    url: 'http://a.com/d/p',
  },
];

describeAccepts(accepted);

interface Refused {
  name: string;
  input: string;
  options?: CanonicalizeOptions;
  code: UrlErrorCode;
}

const refused: Refused[] = [
  { name: 'empty string', input: '', code: 'SHARDLINE_ERR_URL_INVALID' },
  { name: 'whitespace only', input: ' \t\n ', code: 'SHARDLINE_ERR_URL_INVALID' },
  { name: 'C0 controls only', input: '\u0000\u001f', code: 'SHARDLINE_ERR_URL_INVALID' },
  { name: 'Unicode blanks only', input: '\u00a0\u3000', code: 'SHARDLINE_ERR_URL_INVALID' },
  {
    name: 'empty with a base',
    input: '  ',
    options: { base: 'http://a.com/' },
    code: 'SHARDLINE_ERR_URL_INVALID',
  },
  { name: 'relative without base', input: '/path', code: 'SHARDLINE_ERR_URL_INVALID' },
  { name: 'garbage', input: 'http://', code: 'SHARDLINE_ERR_URL_INVALID' },
  { name: 'port out of range', input: 'http://a.com:65536/', code: 'SHARDLINE_ERR_URL_INVALID' },
  { name: 'port 0', input: 'http://a.com:0/', code: 'SHARDLINE_ERR_URL_INVALID' },
  { name: 'javascript:', input: 'javascript:alert(1)', code: 'SHARDLINE_ERR_URL_SCHEME' },
  { name: 'mailto:', input: 'mailto:a@b.com', code: 'SHARDLINE_ERR_URL_SCHEME' },
  { name: 'ftp:', input: 'ftp://a.com/f', code: 'SHARDLINE_ERR_URL_SCHEME' },
  { name: 'data:', input: 'data:text/html,hi', code: 'SHARDLINE_ERR_URL_SCHEME' },
  { name: 'file:', input: 'file:///etc/passwd', code: 'SHARDLINE_ERR_URL_SCHEME' },
  { name: 'ws:', input: 'ws://a.com/', code: 'SHARDLINE_ERR_URL_SCHEME' },
  {
    name: 'javascript: link with base',
    input: ' JavaScript:void(0)',
    options: { base: 'http://a.com/' },
    code: 'SHARDLINE_ERR_URL_SCHEME',
  },
  { name: 'user and password', input: 'http://u:p@a.com/', code: 'SHARDLINE_ERR_URL_CREDENTIALS' },
  { name: 'user only', input: 'https://u@a.com/', code: 'SHARDLINE_ERR_URL_CREDENTIALS' },
  { name: 'password only', input: 'http://:p@a.com/', code: 'SHARDLINE_ERR_URL_CREDENTIALS' },
  {
    name: 'credentials from the base',
    input: 'x',
    options: { base: 'http://u:p@a.com/' },
    code: 'SHARDLINE_ERR_URL_CREDENTIALS',
  },
  { name: 'empty label', input: 'http://a..b.com/', code: 'SHARDLINE_ERR_URL_HOST' },
  { name: 'leading dot', input: 'http://.a.com/', code: 'SHARDLINE_ERR_URL_HOST' },
  { name: 'two trailing dots', input: 'http://a.com../', code: 'SHARDLINE_ERR_URL_HOST' },
  { name: 'bang in host', input: 'http://a!b.com/', code: 'SHARDLINE_ERR_URL_HOST' },
  { name: 'tilde in host', input: 'http://a~b.com/', code: 'SHARDLINE_ERR_URL_HOST' },
  { name: 'label of 64', input: `http://${'a'.repeat(64)}.com/`, code: 'SHARDLINE_ERR_URL_HOST' },
  {
    name: 'host of 255',
    input: `http://${`${'a'.repeat(62)}.`.repeat(4)}com/`,
    code: 'SHARDLINE_ERR_URL_HOST',
  },
  { name: 'bad punycode', input: 'http://xn--a.com/', code: 'SHARDLINE_ERR_URL_INVALID' },
  { name: 'bad IPv4', input: 'http://256.1.1.1/', code: 'SHARDLINE_ERR_URL_INVALID' },
  { name: 'IPv6 zone id', input: 'http://[fe80::1%25eth0]/', code: 'SHARDLINE_ERR_URL_INVALID' },
  {
    name: 'canonical URL over maxUrlBytes',
    input: `http://a.com/${'x'.repeat(100)}`,
    options: { maxUrlBytes: 100 },
    code: 'SHARDLINE_ERR_URL_TOO_LONG',
  },
  {
    name: 'non-ASCII counted in bytes',
    input: `http://a.com/${'ä'.repeat(20)}`,
    options: { maxUrlBytes: 100 },
    code: 'SHARDLINE_ERR_URL_TOO_LONG',
  },
  {
    name: 'input over maxInputChars',
    input: `http://a.com/#${'x'.repeat(500)}`,
    options: { maxUrlBytes: 100 },
    code: 'SHARDLINE_ERR_URL_TOO_LONG',
  },
];

describe('canonicalize refuses', () => {
  it.each(refused)('$name → $code', ({ input, options, code }) => {
    let caught: unknown;
    try {
      canonicalize(input, options);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UrlError);
    const error = caught as UrlError;
    expect(error.code).toBe(code);
    expect(error.reason.length).toBeGreaterThan(0);
    expect(error.message).toContain(error.reason);
    const result = tryCanonicalize(input, options);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe(code);
  });
});

describe('length bounds', () => {
  it('accepts a canonical URL of exactly maxUrlBytes', () => {
    const url = `http://a.com/${'x'.repeat(100 - 'http://a.com/'.length)}`;
    expect(url.length).toBe(100);
    expect(canonicalize(url, { maxUrlBytes: 100 }).url).toBe(url);
  });

  it('measures the canonical form, not the input', () => {
    const long = `http://a.com/p?utm_source=${'x'.repeat(200)}#${'y'.repeat(100)}`;
    expect(canonicalize(long, { maxUrlBytes: 100 }).url).toBe('http://a.com/p');
  });

  it('rejects a 10 MB input before parsing it', () => {
    const huge = `http://a.com/${'x'.repeat(10 * 1024 * 1024)}`;
    const result = tryCanonicalize(huge);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('SHARDLINE_ERR_URL_TOO_LONG');
      expect(result.error.reason).toMatch(/^input is \d+ characters/);
      // The error keeps a bounded excerpt, not the 10 MB string.
      expect(result.error.input.length).toBeLessThan(300);
      expect(result.error.message.length).toBeLessThan(400);
    }
  });

  it('honours maxInputChars', () => {
    const url = `http://a.com/?utm_source=${'x'.repeat(50)}`;
    expect(canonicalize(url, { maxInputChars: 100 }).url).toBe('http://a.com/');
    expect(tryCanonicalize(url, { maxInputChars: 50 }).ok).toBe(false);
  });
});

describe('a URL typed without its scheme', () => {
  it('is refused with the URL it most likely meant', () => {
    const reasons = Object.fromEntries(
      ['example.com', 'www.example.com/a?b=1', 'example.com:8080/p', 'localhost:3000'].map(
        (input) => [input, tryCanonicalize(input)],
      ),
    );
    expect(reasons).toMatchObject({
      'example.com': {
        ok: false,
        error: {
          code: 'SHARDLINE_ERR_URL_INVALID',
          reason: 'not a valid absolute URL (did you mean "https://example.com"?)',
        },
      },
      'www.example.com/a?b=1': {
        error: {
          reason: 'not a valid absolute URL (did you mean "https://www.example.com/a?b=1"?)',
        },
      },
      'example.com:8080/p': {
        error: {
          code: 'SHARDLINE_ERR_URL_SCHEME',
          reason:
            'scheme "example.com:" is not http or https (did you mean "https://example.com:8080/p"?)',
        },
      },
      'localhost:3000': {
        error: { reason: expect.stringMatching(/\(did you mean "https:\/\/localhost:3000"\?\)$/) },
      },
    });
  });

  it('guesses nothing for real schemes, single words, bad hosts or relative references', () => {
    for (const input of ['mailto:x@y.z', 'z39.50r://x/', 'foo', 'example..com', 'http//x.com']) {
      const result = tryCanonicalize(input);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.reason, input).not.toContain('did you mean');
    }
    const relative = tryCanonicalize('example.com', { base: 'https://a.test/dir/' });
    expect(relative.ok && relative.value.url).toBe('https://a.test/dir/example.com');
  });
});
