/**
 * A port of google/robotstxt `robots_test.cc` (the matcher tests), part one: line syntax,
 * groups and user agents, longest match, line endings and over-long lines; path matching is
 * in robots-txt-google-paths.test.ts. Each row names the gtest it comes from. Where our API or
 * RFC 9309 makes us answer differently, the row says so in `differs` and asserts our answer;
 * see the package README, "Where we differ from Google".
 */
import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../src/index.js';
import { describeRows, type Row, row } from './robots-txt-google-rows.js';

const groups = `allow: /foo/bar/

user-agent: FooBot
disallow: /
allow: /x/
user-agent: BarBot
disallow: /
allow: /y/


allow: /w/
user-agent: BazBot

user-agent: FooBot
allow: /z/
disallow: /
`;

const caseUpper = 'USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n';
const caseLower = 'user-agent: FooBot\nallow: /x/\ndisallow: /\n';
const caseCamel = 'uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n';
const uaUpper = 'User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n';
const uaLower = 'User-Agent: foo bar\nAllow: /x/\nDisallow: /\n';
const uaCamel = 'User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n';
const globalSecondary = 'user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n';
const onlySpecific =
  'user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n';
const lines = {
  unix: 'User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n',
  dos: 'User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n',
  mac: 'User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r',
  noFinalNewline: 'User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /',
  mixed: 'User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /',
};

const rows: Row[] = [
  // GoogleOnly_SystemTest (Google passes "" as the URL; our API takes absolute URLs only)
  row('GoogleOnly_SystemTest', '', 'FooBot', 'http://foo.bar/', true),
  row('GoogleOnly_SystemTest', 'user-agent: FooBot\ndisallow: /\n', '', 'http://foo.bar/', true),
  row(
    'GoogleOnly_SystemTest',
    'user-agent: FooBot\ndisallow: /\n',
    'FooBot',
    'http://foo.bar',
    false,
  ),
  row('GoogleOnly_SystemTest', '', '', 'http://foo.bar/', true),

  // ID_LineSyntax_Line
  row(
    'ID_LineSyntax_Line',
    'user-agent: FooBot\ndisallow: /\n',
    'FooBot',
    'http://foo.bar/x/y',
    false,
  ),
  row('ID_LineSyntax_Line', 'foo: FooBot\nbar: /\n', 'FooBot', 'http://foo.bar/x/y', true),
  row(
    'ID_LineSyntax_Line',
    'user-agent FooBot\ndisallow /\n',
    'FooBot',
    'http://foo.bar/x/y',
    false,
  ),

  // ID_LineSyntax_Groups
  row('ID_LineSyntax_Groups', groups, 'FooBot', 'http://foo.bar/x/b', true),
  row('ID_LineSyntax_Groups', groups, 'FooBot', 'http://foo.bar/z/d', true),
  row('ID_LineSyntax_Groups', groups, 'FooBot', 'http://foo.bar/y/c', false),
  row('ID_LineSyntax_Groups', groups, 'BarBot', 'http://foo.bar/y/c', true),
  row('ID_LineSyntax_Groups', groups, 'BarBot', 'http://foo.bar/w/a', true),
  row('ID_LineSyntax_Groups', groups, 'BarBot', 'http://foo.bar/z/d', false),
  row('ID_LineSyntax_Groups', groups, 'BazBot', 'http://foo.bar/z/d', true),
  row('ID_LineSyntax_Groups', groups, 'FooBot', 'http://foo.bar/foo/bar/', false),
  row('ID_LineSyntax_Groups', groups, 'BarBot', 'http://foo.bar/foo/bar/', false),
  row('ID_LineSyntax_Groups', groups, 'BazBot', 'http://foo.bar/foo/bar/', false),

  // ID_LineSyntax_Groups_OtherRules
  ...['FooBot', 'BarBot'].map((ua) =>
    row(
      'ID_LineSyntax_Groups_OtherRules',
      'User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n',
      ua,
      'http://foo.bar/',
      false,
    ),
  ),
  ...['FooBot', 'BarBot'].map((ua) =>
    row(
      'ID_LineSyntax_Groups_OtherRules',
      'User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n',
      ua,
      'http://foo.bar/',
      false,
    ),
  ),

  // ID_REPLineNamesCaseInsensitive
  ...[caseUpper, caseLower, caseCamel].flatMap((robots) => [
    row('ID_REPLineNamesCaseInsensitive', robots, 'FooBot', 'http://foo.bar/x/y', true),
    row('ID_REPLineNamesCaseInsensitive', robots, 'FooBot', 'http://foo.bar/a/b', false),
  ]),

  // ID_UserAgentValueCaseInsensitive
  ...[uaUpper, uaLower, uaCamel].flatMap((robots) =>
    ['Foo', 'foo'].flatMap((ua) => [
      row('ID_UserAgentValueCaseInsensitive', robots, ua, 'http://foo.bar/x/y', true),
      row('ID_UserAgentValueCaseInsensitive', robots, ua, 'http://foo.bar/a/b', false),
    ]),
  ),

  // GoogleOnly_AcceptUserAgentUpToFirstSpace
  row(
    'GoogleOnly_AcceptUserAgentUpToFirstSpace',
    'User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n',
    'Foo',
    'http://foo.bar/x/y',
    true,
  ),
  row(
    'GoogleOnly_AcceptUserAgentUpToFirstSpace',
    'User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n',
    'Foo Bar',
    'http://foo.bar/x/y',
    true,
    'Google matches the caller string "Foo Bar" whole (false); we take a User-Agent string and match its product token "Foo"',
  ),

  // ID_GlobalGroups_Secondary
  row('ID_GlobalGroups_Secondary', '', 'FooBot', 'http://foo.bar/x/y', true),
  row('ID_GlobalGroups_Secondary', globalSecondary, 'FooBot', 'http://foo.bar/x/y', false),
  row('ID_GlobalGroups_Secondary', globalSecondary, 'BarBot', 'http://foo.bar/x/y', true),
  row('ID_GlobalGroups_Secondary', onlySpecific, 'QuxBot', 'http://foo.bar/x/y', true),

  // ID_AllowDisallow_Value_CaseSensitive
  row(
    'ID_AllowDisallow_Value_CaseSensitive',
    'user-agent: FooBot\ndisallow: /x/\n',
    'FooBot',
    'http://foo.bar/x/y',
    false,
  ),
  row(
    'ID_AllowDisallow_Value_CaseSensitive',
    'user-agent: FooBot\ndisallow: /X/\n',
    'FooBot',
    'http://foo.bar/x/y',
    true,
  ),

  // ID_LongestMatch
  row(
    'ID_LongestMatch',
    'user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n',
    'FooBot',
    'http://foo.bar/x/page.html',
    false,
  ),
  row(
    'ID_LongestMatch',
    'user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n',
    'FooBot',
    'http://foo.bar/x/page.html',
    true,
  ),
  row(
    'ID_LongestMatch',
    'user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n',
    'FooBot',
    'http://foo.bar/x/',
    false,
  ),
  row(
    'ID_LongestMatch',
    'user-agent: FooBot\ndisallow: \nallow: \n',
    'FooBot',
    'http://foo.bar/x/page.html',
    true,
  ),
  row(
    'ID_LongestMatch',
    'user-agent: FooBot\ndisallow: /\nallow: /\n',
    'FooBot',
    'http://foo.bar/x/page.html',
    true,
  ),
  row(
    'ID_LongestMatch',
    'user-agent: FooBot\ndisallow: /x\nallow: /x/\n',
    'FooBot',
    'http://foo.bar/x',
    false,
  ),
  row(
    'ID_LongestMatch',
    'user-agent: FooBot\ndisallow: /x\nallow: /x/\n',
    'FooBot',
    'http://foo.bar/x/',
    true,
  ),
  row(
    'ID_LongestMatch',
    'user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n',
    'FooBot',
    'http://foo.bar/x/page.html',
    true,
  ),
  row(
    'ID_LongestMatch',
    'user-agent: FooBot\nallow: /page\ndisallow: /*.html\n',
    'FooBot',
    'http://foo.bar/page.html',
    false,
  ),
  row(
    'ID_LongestMatch',
    'user-agent: FooBot\nallow: /page\ndisallow: /*.html\n',
    'FooBot',
    'http://foo.bar/page',
    true,
  ),
  row(
    'ID_LongestMatch',
    'user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n',
    'FooBot',
    'http://foo.bar/x/page.html',
    true,
  ),
  row(
    'ID_LongestMatch',
    'user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n',
    'FooBot',
    'http://foo.bar/x/y.html',
    false,
  ),
  row(
    'ID_LongestMatch',
    'User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n',
    'FooBot',
    'http://foo.bar/x/page',
    true,
  ),
  row(
    'ID_LongestMatch',
    'User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n',
    'FooBot',
    'http://foo.bar/y/page',
    false,
  ),

  // ID_LinesNumbersAreCountedCorrectly (Google counts directives; we check the rules they give)
  ...Object.values(lines).flatMap((robots) => [
    row('ID_LinesNumbersAreCountedCorrectly', robots, 'foo', 'http://foo.bar/some/path', true),
    row('ID_LinesNumbersAreCountedCorrectly', robots, 'bar', 'http://foo.bar/some/path', false),
    row('ID_LinesNumbersAreCountedCorrectly', robots, 'foo', 'http://foo.bar/other', true),
    row('ID_LinesNumbersAreCountedCorrectly', robots, 'baz', 'http://foo.bar/other', true),
  ]),
];

describeRows(rows);

describe('GoogleOnly_LineTooLong', () => {
  const maxLineLen = 2083 * 8;
  const pad = (prefix: string, directive: string, fill: string) => {
    let line = prefix;
    const max = maxLineLen - prefix.length - directive.length + 1;
    while (line.length < max) line += fill;
    return line;
  };

  it('matches a disallow rule cut off at the line limit', () => {
    const longline = pad('/x/', 'disallow: ', 'a');
    const robots = RobotsTxt.parse(`user-agent: FooBot\ndisallow: ${longline}/qux\n`);
    expect(robots.isAllowed('http://foo.bar/fux', 'FooBot')).toBe(true);
    expect(robots.isAllowed(`http://foo.bar${longline}/fux`, 'FooBot')).toBe(false);
  });

  it('matches allow rules exactly and cut off', () => {
    const a = pad('/x/', 'allow: ', 'a');
    const b = pad('/x/', 'allow: ', 'b');
    const robots = RobotsTxt.parse(
      `user-agent: FooBot\ndisallow: /\nallow: ${a}/qux\nallow: ${b}/qux\n`,
    );
    expect(robots.isAllowed('http://foo.bar/', 'FooBot')).toBe(false);
    expect(robots.isAllowed(`http://foo.bar${a}/qux`, 'FooBot')).toBe(true);
    expect(robots.isAllowed(`http://foo.bar${b}/fux`, 'FooBot')).toBe(true);
  });
});
