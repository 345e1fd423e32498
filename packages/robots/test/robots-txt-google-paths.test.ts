/**
 * A port of google/robotstxt `robots_test.cc` (the matcher tests), part two: path matching —
 * encoding, special characters, index.html, Google's documentation examples, and which part of
 * the URL is matched; groups and user agents are in robots-txt-google-groups.test.ts. Each row
 * names the gtest it comes from. Where our API or RFC 9309 makes us answer differently, the row
 * says so in `differs` and asserts our answer; see the package README, "Where we differ from
 * Google".
 */
import { describeRows, type Row, row } from './robots-txt-google-rows.js';

const fish = (allow: string) => `user-agent: FooBot\ndisallow: /\nallow: ${allow}\n`;

const rows: Row[] = [
  // ID_Encoding
  row(
    'ID_Encoding',
    'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n',
    'FooBot',
    'http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par',
    true,
  ),
  row(
    'ID_Encoding',
    'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n',
    'FooBot',
    'http://foo.bar/foo/bar/%E3%83%84',
    true,
  ),
  row(
    'ID_Encoding',
    'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n',
    'FooBot',
    'http://foo.bar/foo/bar/ツ',
    true,
    'Google expects callers to percent-encode URLs (false); we parse the URL, which encodes ツ as %E3%83%84 (RFC 9309 §2.2.2)',
  ),
  row(
    'ID_Encoding',
    'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n',
    'FooBot',
    'http://foo.bar/foo/bar/%E3%83%84',
    true,
  ),
  row(
    'ID_Encoding',
    'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n',
    'FooBot',
    'http://foo.bar/foo/bar/ツ',
    true,
    'as above: the URL is encoded before matching',
  ),
  row(
    'ID_Encoding',
    'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n',
    'FooBot',
    'http://foo.bar/foo/bar/baz',
    true,
    'Google compares octets as written (false); RFC 9309 §2.2.2 table: /foo/bar/%62%61%7A matches /foo/bar/baz',
  ),
  row(
    'ID_Encoding',
    'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n',
    'FooBot',
    'http://foo.bar/foo/bar/%62%61%7A',
    true,
  ),

  // ID_SpecialCharacters
  ...(
    [
      ['/foo/bar/quz', false],
      ['/foo/quz', true],
      ['/foo//quz', true],
      ['/foo/bax/quz', true],
    ] as const
  ).map(([path, allowed]) =>
    row(
      'ID_SpecialCharacters',
      'User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n',
      'FooBot',
      `http://foo.bar${path}`,
      allowed,
    ),
  ),
  ...(
    [
      ['/foo/bar', false],
      ['/foo/bar/qux', true],
      ['/foo/bar/', true],
      ['/foo/bar/baz', true],
    ] as const
  ).map(([path, allowed]) =>
    row(
      'ID_SpecialCharacters',
      'User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n',
      'FooBot',
      `http://foo.bar${path}`,
      allowed,
    ),
  ),
  row(
    'ID_SpecialCharacters',
    'User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n',
    'FooBot',
    'http://foo.bar/foo/bar',
    true,
  ),
  row(
    'ID_SpecialCharacters',
    'User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n',
    'FooBot',
    'http://foo.bar/foo/quz',
    false,
  ),

  // GoogleOnly_IndexHTMLisDirectory
  ...(
    [
      ['/allowed-slash/', true],
      ['/allowed-slash/index.htm', false],
      ['/allowed-slash/index.html', true],
      ['/anyother-url', false],
    ] as const
  ).map(([path, allowed]) =>
    row(
      'GoogleOnly_IndexHTMLisDirectory',
      'User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n',
      'foobot',
      `http://foo.com${path}`,
      allowed,
    ),
  ),

  // GoogleOnly_DocumentationChecks
  ...(
    [
      ['/bar', false],
      ['/fish', true],
      ['/fish.html', true],
      ['/fish/salmon.html', true],
      ['/fishheads', true],
      ['/fishheads/yummy.html', true],
      ['/fish.html?id=anything', true],
      ['/Fish.asp', false],
      ['/catfish', false],
      ['/?id=fish', false],
    ] as const
  ).flatMap(([path, allowed]) => [
    row(
      'GoogleOnly_DocumentationChecks',
      fish('/fish'),
      'FooBot',
      `http://foo.bar${path}`,
      allowed,
    ),
    row(
      'GoogleOnly_DocumentationChecks',
      fish('/fish*'),
      'FooBot',
      `http://foo.bar${path}`,
      allowed,
    ),
  ]),
  ...(
    [
      ['/bar', false],
      ['/fish/', true],
      ['/fish/salmon', true],
      ['/fish/?salmon', true],
      ['/fish/salmon.html', true],
      ['/fish/?id=anything', true],
      ['/fish', false],
      ['/fish.html', false],
      ['/Fish/Salmon.html', false],
    ] as const
  ).map(([path, allowed]) =>
    row(
      'GoogleOnly_DocumentationChecks',
      fish('/fish/'),
      'FooBot',
      `http://foo.bar${path}`,
      allowed,
    ),
  ),
  ...(
    [
      ['/bar', false],
      ['/filename.php', true],
      ['/folder/filename.php', true],
      ['/folder/filename.php?parameters', true],
      ['//folder/any.php.file.html', true],
      ['/filename.php/', true],
      ['/index?f=filename.php/', true],
      ['/php/', false],
      ['/index?php', false],
      ['/windows.PHP', false],
    ] as const
  ).map(([path, allowed]) =>
    row(
      'GoogleOnly_DocumentationChecks',
      fish('/*.php'),
      'FooBot',
      `http://foo.bar${path}`,
      allowed,
    ),
  ),
  ...(
    [
      ['/bar', false],
      ['/filename.php', true],
      ['/folder/filename.php', true],
      ['/filename.php?parameters', false],
      ['/filename.php/', false],
      ['/filename.php5', false],
      ['/php/', false],
      ['/filename?php', false],
      ['/aaaphpaaa', false],
      ['//windows.PHP', false],
    ] as const
  ).map(([path, allowed]) =>
    row(
      'GoogleOnly_DocumentationChecks',
      fish('/*.php$'),
      'FooBot',
      `http://foo.bar${path}`,
      allowed,
    ),
  ),
  ...(
    [
      ['/bar', false],
      ['/fish.php', true],
      ['/fishheads/catfish.php?parameters', true],
      ['/Fish.PHP', false],
    ] as const
  ).map(([path, allowed]) =>
    row(
      'GoogleOnly_DocumentationChecks',
      fish('/fish*.php'),
      'FooBot',
      `http://foo.bar${path}`,
      allowed,
    ),
  ),
  row(
    'GoogleOnly_DocumentationChecks',
    'user-agent: FooBot\nallow: /p\ndisallow: /\n',
    'FooBot',
    'http://example.com/page',
    true,
  ),
  row(
    'GoogleOnly_DocumentationChecks',
    'user-agent: FooBot\nallow: /folder\ndisallow: /folder\n',
    'FooBot',
    'http://example.com/folder/page',
    true,
  ),
  row(
    'GoogleOnly_DocumentationChecks',
    'user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n',
    'FooBot',
    'http://example.com/page.htm',
    false,
  ),
  row(
    'GoogleOnly_DocumentationChecks',
    'user-agent: FooBot\nallow: /$\ndisallow: /\n',
    'FooBot',
    'http://example.com/',
    true,
  ),
  row(
    'GoogleOnly_DocumentationChecks',
    'user-agent: FooBot\nallow: /$\ndisallow: /\n',
    'FooBot',
    'http://example.com/page.html',
    false,
  ),

  // TestGetPathParamsQuery, through `$`-anchored rules: the fragment is dropped, the query kept
  row(
    'TestGetPathParamsQuery',
    'user-agent: *\ndisallow: /$\n',
    'x',
    'http://www.example.com',
    false,
  ),
  row(
    'TestGetPathParamsQuery',
    'user-agent: *\ndisallow: /a/$\n',
    'x',
    'http://www.example.com/a/',
    false,
  ),
  row(
    'TestGetPathParamsQuery',
    'user-agent: *\ndisallow: /a/b?c=http://d.e/$\n',
    'x',
    'http://www.example.com/a/b?c=http://d.e/',
    false,
  ),
  row(
    'TestGetPathParamsQuery',
    'user-agent: *\ndisallow: /a/b?c=d&e=f$\n',
    'x',
    'http://www.example.com/a/b?c=d&e=f#fragment',
    false,
  ),
  row(
    'TestGetPathParamsQuery',
    'user-agent: *\ndisallow: /a;b$\n',
    'x',
    'http://example.com/a;b#c',
    false,
  ),
  row(
    'TestGetPathParamsQuery',
    'user-agent: *\ndisallow: /?a$\n',
    'x',
    'http://example.com?a',
    false,
  ),
];

describeRows(rows);
