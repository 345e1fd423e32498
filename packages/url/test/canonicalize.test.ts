import { describe, expect, it } from 'vitest';
import {
  type CanonicalizeOptions,
  canonicalize,
  robotsTxtUrl,
  tryCanonicalize,
  UrlError,
  type UrlErrorCode,
} from '../src/index.js';

interface Accepted {
  name: string;
  input: string;
  options?: CanonicalizeOptions;
  url: string;
}

/**
 * Each expectation was checked against `new URL()` in Node 20 for the WHATWG part; the
 * rest (escapes, tracking parameters, trailing dot, sorting) is what this package adds.
 */
const accepted: Accepted[] = [
  // Scheme and host case, IDN
  {
    name: 'lower-cases scheme and host',
    input: 'HTTP://EXAMPLE.COM/Path',
    url: 'http://example.com/Path',
  },
  {
    name: 'IDN to punycode',
    input: 'http://Bücher.example/',
    url: 'http://xn--bcher-kva.example/',
  },
  {
    name: 'IDN label among ASCII labels',
    input: 'https://www.Müller.de/x',
    url: 'https://www.xn--mller-kva.de/x',
  },
  {
    name: 'full-width letters map to ASCII',
    input: 'http://ＥＸＡＭＰＬＥ.com/',
    url: 'http://example.com/',
  },
  { name: 'UTS46 mapping of ligature', input: 'http://ﬁ.example/', url: 'http://fi.example/' },
  {
    name: 'percent-encoded host is decoded',
    input: 'http://ex%41mple.com/',
    url: 'http://example.com/',
  },
  {
    name: 'punycode input stays',
    input: 'http://xn--bcher-kva.example/',
    url: 'http://xn--bcher-kva.example/',
  },
  {
    name: 'trailing dot of host removed',
    input: 'http://example.com./x',
    url: 'http://example.com/x',
  },
  {
    name: 'underscore in host allowed',
    input: 'http://my_site.example.com/',
    url: 'http://my_site.example.com/',
  },
  {
    name: 'hyphen at label edge allowed',
    input: 'http://foo-.tumblr.com/',
    url: 'http://foo-.tumblr.com/',
  },
  {
    name: 'last label ending in a digit is a name',
    input: 'http://WWW.a.b1/',
    url: 'http://www.a.b1/',
  },
  { name: 'single-label host', input: 'http://localhost:8080/a', url: 'http://localhost:8080/a' },
  // Ports
  {
    name: 'default http port removed',
    input: 'http://example.com:80/',
    url: 'http://example.com/',
  },
  {
    name: 'default https port removed',
    input: 'https://example.com:443/',
    url: 'https://example.com/',
  },
  {
    name: 'https port on http kept',
    input: 'http://example.com:443/',
    url: 'http://example.com:443/',
  },
  {
    name: 'http port on https kept',
    input: 'https://example.com:80/',
    url: 'https://example.com:80/',
  },
  { name: 'leading zeros of port', input: 'http://example.com:0080/', url: 'http://example.com/' },
  {
    name: 'non-default port kept',
    input: 'http://example.com:8080',
    url: 'http://example.com:8080/',
  },
  // IP literals
  { name: 'IPv6 loopback, default port', input: 'http://[::1]:80/', url: 'http://[::1]/' },
  {
    name: 'IPv6 mixed case compressed',
    input: 'HTTP://[2001:DB8::A]:8080/x',
    url: 'http://[2001:db8::a]:8080/x',
  },
  { name: 'IPv6 long form compressed', input: 'http://[0:0:0:0:0:0:0:1]/', url: 'http://[::1]/' },
  {
    name: 'IPv6 with embedded IPv4',
    input: 'http://[::ffff:192.0.2.1]/',
    url: 'http://[::ffff:c000:201]/',
  },
  { name: 'IPv4 hex and short form', input: 'http://0x7f.1/', url: 'http://127.0.0.1/' },
  { name: 'IPv4 octal', input: 'http://0177.0.0.1/', url: 'http://127.0.0.1/' },
  { name: 'IPv4 single number', input: 'http://4294967295/', url: 'http://255.255.255.255/' },
  { name: 'IPv4 with trailing dot', input: 'http://1.2.3.4./', url: 'http://1.2.3.4/' },
  // Path
  { name: 'empty path becomes /', input: 'http://example.com', url: 'http://example.com/' },
  {
    name: 'dot segments (RFC 3986 5.4)',
    input: 'http://a.com/b/c/./../../g',
    url: 'http://a.com/g',
  },
  { name: 'dot-dot above root', input: 'http://a.com/a/b/../../../../c', url: 'http://a.com/c' },
  { name: 'encoded dot-dot segment', input: 'http://a.com/a/%2e%2E/b', url: 'http://a.com/b' },
  { name: 'half-encoded dot-dot segment', input: 'http://a.com/a/.%2e/b', url: 'http://a.com/b' },
  {
    name: 'trailing dot segment keeps slash',
    input: 'http://a.com/a/b/.',
    url: 'http://a.com/a/b/',
  },
  { name: 'trailing slash is significant', input: 'http://a.com/a/', url: 'http://a.com/a/' },
  { name: 'backslashes are slashes', input: 'http://a.com\\b\\c', url: 'http://a.com/b/c' },
  { name: 'path case kept', input: 'http://a.com/CaSe', url: 'http://a.com/CaSe' },
  // Percent-encoding
  {
    name: 'unreserved escapes decoded',
    input: 'http://a.com/%7euser/%41%2D%5f%2e',
    url: 'http://a.com/~user/A-_.',
  },
  { name: '%2F kept and upper-cased', input: 'http://a.com/a%2fb', url: 'http://a.com/a%2Fb' },
  {
    name: 'mixed-case escapes upper-cased',
    input: 'http://a.com/%c3%A4%3a',
    url: 'http://a.com/%C3%A4%3A',
  },
  { name: 'non-ASCII path encoded', input: 'http://a.com/ä', url: 'http://a.com/%C3%A4' },
  { name: 'space in path encoded', input: 'http://a.com/a b', url: 'http://a.com/a%20b' },
  { name: 'malformed escapes kept', input: 'http://a.com/%zz%4', url: 'http://a.com/%zz%4' },
  { name: '%25 kept', input: 'http://a.com/100%25', url: 'http://a.com/100%25' },
  {
    name: 'RFC-illegal path chars escaped',
    input: 'http://a.com/a|b^c[d]',
    url: 'http://a.com/a%7Cb%5Ec%5Bd%5D',
  },
  {
    name: 'sub-delims in path kept',
    input: "http://a.com/a!$&'()*+,;=:@b",
    url: "http://a.com/a!$&'()*+,;=:@b",
  },
  {
    name: 'query escapes normalised',
    input: 'http://a.com/?q=%7e%2f',
    url: 'http://a.com/?q=~%2F',
  },
  {
    name: 'plus and %20 both kept',
    input: 'http://a.com/?q=a+b%20c',
    url: 'http://a.com/?q=a+b%20c',
  },
  {
    name: 'reserved query escapes kept',
    input: 'http://a.com/?q=%26%3d%3F',
    url: 'http://a.com/?q=%26%3D%3F',
  },
  {
    name: 'RFC-illegal query chars escaped',
    input: 'http://a.com/?a[]=1&b={x}|`^\\',
    url: 'http://a.com/?a%5B%5D=1&b=%7Bx%7D%7C%60%5E%5C',
  },
  { name: 'apostrophe in query (WHATWG)', input: "http://a.com/?q='", url: 'http://a.com/?q=%27' },
  // Query and fragment
  { name: 'fragment removed', input: 'http://a.com/p#frag', url: 'http://a.com/p' },
  { name: 'empty fragment removed', input: 'http://a.com/p#', url: 'http://a.com/p' },
  { name: 'empty query removed', input: 'http://a.com/p?', url: 'http://a.com/p' },
  { name: 'empty query and fragment', input: 'http://a.com?#x', url: 'http://a.com/' },
  { name: 'empty pairs dropped', input: 'http://a.com/?&a=1&&b=2&', url: 'http://a.com/?a=1&b=2' },
  { name: 'only ampersands', input: 'http://a.com/?&&', url: 'http://a.com/' },
  {
    name: 'query order kept by default',
    input: 'http://a.com/?b=2&a=1',
    url: 'http://a.com/?b=2&a=1',
  },
  { name: 'valueless params kept', input: 'http://a.com/?flag&x=', url: 'http://a.com/?flag&x=' },
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
  // WHATWG input quirks
  {
    name: 'tab and newlines removed',
    input: 'http://ex\tam\nple.com/p\ta\rth',
    url: 'http://example.com/path',
  },
  {
    name: 'leading and trailing C0 and spaces',
    input: '\u0000 http://example.com/ \u001f',
    url: 'http://example.com/',
  },
  { name: 'scheme without slashes', input: 'http:example.com', url: 'http://example.com/' },
  { name: 'scheme with one slash', input: 'http:/example.com/x', url: 'http://example.com/x' },
  {
    name: 'scheme with three slashes',
    input: 'http:///example.com/x',
    url: 'http://example.com/x',
  },
  { name: 'empty user info', input: 'http://@example.com/', url: 'http://example.com/' },
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

describe('canonicalize accepts', () => {
  it.each(accepted)('$name', ({ input, options, url }) => {
    const result = canonicalize(input, options);
    expect(result.url).toBe(url);
  });

  it.each(accepted)('is idempotent and WHATWG-stable: $name', ({ input, options, url }) => {
    const once = canonicalize(input, options).url;
    expect(canonicalize(once, { ...options, base: undefined }).url).toBe(url);
    expect(new URL(once).href).toBe(once);
  });
});

describe('canonicalize fields', () => {
  it.each([
    {
      input: 'HTTPS://News.BBC.co.uk:443/a?b#c',
      value: {
        url: 'https://news.bbc.co.uk/a?b',
        scheme: 'https',
        host: 'news.bbc.co.uk',
        port: 443,
        origin: 'https://news.bbc.co.uk',
        domain: 'bbc.co.uk',
      },
    },
    {
      input: 'http://[2001:DB8::1]:8080/',
      value: {
        url: 'http://[2001:db8::1]:8080/',
        scheme: 'http',
        host: '[2001:db8::1]',
        port: 8080,
        origin: 'http://[2001:db8::1]:8080',
        domain: '[2001:db8::1]',
      },
    },
    {
      input: 'http://www.site3.test./x',
      value: {
        url: 'http://www.site3.test/x',
        scheme: 'http',
        host: 'www.site3.test',
        port: 80,
        origin: 'http://www.site3.test',
        domain: 'www.site3.test',
      },
    },
    {
      input: 'https://a.github.io:8443/p',
      value: {
        url: 'https://a.github.io:8443/p',
        scheme: 'https',
        host: 'a.github.io',
        port: 8443,
        origin: 'https://a.github.io:8443',
        domain: 'a.github.io',
      },
    },
  ])('$input', ({ input, value }) => {
    expect(canonicalize(input)).toEqual(value);
  });

  it('accepts a URL object', () => {
    expect(canonicalize(new URL('http://A.com/x#y')).url).toBe('http://a.com/x');
  });

  it('produces ASCII, so its length is its UTF-8 byte length', () => {
    const { url } = canonicalize('http://Bücher.example/ä?ö=ü#ß');
    expect(Buffer.byteLength(url, 'utf8')).toBe(url.length);
  });
});

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

describe('robotsTxtUrl', () => {
  it.each([
    ['https://News.bbc.co.uk:443/a/b?c#d', 'https://news.bbc.co.uk/robots.txt'],
    ['http://a.com:8080/x', 'http://a.com:8080/robots.txt'],
    ['http://[::1]:80/x', 'http://[::1]/robots.txt'],
    ['http://Bücher.example/x', 'http://xn--bcher-kva.example/robots.txt'],
  ])('%s → %s', (input, expected) => {
    expect(robotsTxtUrl(input)).toBe(expected);
    expect(robotsTxtUrl(canonicalize(input))).toBe(expected);
  });

  it('throws for a URL it cannot canonicalise', () => {
    expect(() => robotsTxtUrl('mailto:a@b.com')).toThrow(UrlError);
  });
});
