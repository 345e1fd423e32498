import { describe, expect, it } from 'vitest';
import { canonicalPath, canonicalPattern } from '../src/encoding.js';

/** Patterns arrive as one char per octet, as the parser sees them. */
const octets = (s: string) => Buffer.from(s, 'utf8').toString('latin1');

describe('canonicalPattern', () => {
  it.each([
    // TestMaybeEscapePattern (google/robotstxt)
    ['http://www.example.com', 'http://www.example.com'],
    ['/a/b/c', '/a/b/c'],
    ['á', '%C3%A1'],
    ['%aa', '%AA'],
    // MaybeEscapePattern comment: /SanJoséSellers
    ['/SanJoséSellers', '/SanJos%C3%A9Sellers'],
    // RFC 9309 §2.2.2: unreserved octets are decoded, reserved ones keep their escape
    ['/foo/bar/%62%61%7A', '/foo/bar/baz'],
    ['/a%2fb', '/a%2Fb'],
    ['/a%7e', '/a~'],
    // wildcards: "*" always, "$" only at the end
    ['/*.gif$', '/*.gif$'],
    ['/a$b', '/a%24b'],
    ['/a$$', '/a%24$'],
    // characters the WHATWG parser escapes in some components and not in others
    ["/a b|c^d[e]'f", '/a%20b%7Cc%5Ed%5Be%5D%27f'],
    ['/100%', '/100%'],
    ['/%zz', '/%zz'],
  ])('%s → %s', (input, expected) => {
    expect(canonicalPattern(octets(input))).toBe(expected);
  });

  it('escapes raw octets that are not valid UTF-8', () => {
    expect(canonicalPattern('/caf\u00e9')).toBe('/caf%E9');
    expect(canonicalPattern('\u0080\u00ff')).toBe('%80%FF');
  });

  it('is idempotent', () => {
    for (const s of ['/SanJoséSellers', '/a%2fb', "/a b|c'", '/x$y$', '/%zz%41']) {
      const once = canonicalPattern(octets(s));
      expect(canonicalPattern(once)).toBe(once);
    }
  });
});

describe('canonicalPath', () => {
  it.each([
    ['/foo/bar?baz=quz', '/foo/bar?baz=quz'],
    ['/foo/bar/%e3%83%84', '/foo/bar/%E3%83%84'],
    ['/foo/bar/%62%61%7A', '/foo/bar/baz'],
    ['/path/file-with-a-*.html', '/path/file-with-a-%2A.html'],
    ['/path/foo-$', '/path/foo-%24'],
    ["/a?b='c'", '/a?b=%27c%27'],
    ['/a|b', '/a%7Cb'],
  ])('%s → %s', (input, expected) => {
    expect(canonicalPath(input)).toBe(expected);
  });

  it('gives a literal "*" or "$" in a URL the form of an escaped pattern character', () => {
    expect(canonicalPath('/x*$')).toBe(canonicalPattern('/x%2A%24'));
  });
});
