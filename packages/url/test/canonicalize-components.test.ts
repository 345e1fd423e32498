/**
 * The canonical form of absolute URLs, part by part: scheme and host (IDN, IP literals),
 * ports, path, percent-encoding, query and fragment, WHATWG input quirks; the fields of the
 * result, and robotsTxtUrl. Options and refusals: canonicalize-options.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize, robotsTxtUrl, UrlError } from '../src/index.js';
import { type Accepted, describeAccepts } from './canonicalize-cases.js';

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
];

describeAccepts(accepted);

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
