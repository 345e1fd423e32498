/** The examples of RFC 9309 itself, section by section. */
import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../src/index.js';

const check = (robots: RobotsTxt, ua: string, path: string) =>
  robots.isAllowed(`https://www.example.com${path}`, ua);

describe('RFC 9309 §5.1 simple example', () => {
  const robots = RobotsTxt.parse(
    [
      'User-Agent: *',
      'Disallow: *.gif$',
      'Disallow: /example/',
      'Allow: /publications/',
      '',
      'User-Agent: foobot',
      'Disallow:/',
      'Allow:/example/page.html',
      'Allow:/example/allowed.gif',
      '',
      'User-Agent: barbot',
      'User-Agent: bazbot',
      'Disallow: /example/page.html',
      '',
      'User-Agent: quxbot',
      '',
    ].join('\n'),
  );

  it.each([
    // "*": /publications/ allowed, /example/ and *.gif disallowed
    ['otherbot', '/', true],
    ['otherbot', '/publications/report.html', true],
    ['otherbot', '/example/', false],
    ['otherbot', '/example/page.html', false],
    ['otherbot', '/images/logo.gif', false],
    ['otherbot', '/logo.gif?size=2', true], // `$` anchors the pattern at the end of path+query
    ['otherbot', '/publications/cover.gif', true], // Allow /publications/ (14 octets) beats *.gif$ (6)
    // foobot: only /example/page.html and /example/allowed.gif
    ['foobot', '/', false],
    ['foobot', '/example/page.html', true],
    ['foobot', '/example/allowed.gif', true],
    ['foobot', '/example/other.html', false],
    ['foobot', '/publications/', false],
    ['FooBot/2.1 (+https://foo.example/bot)', '/example/page.html', true],
    // barbot and bazbot share one group
    ['barbot', '/example/page.html', false],
    ['bazbot', '/example/page.html', false],
    ['barbot', '/example/other.html', true],
    ['bazbot', '/images/logo.gif', true],
    // quxbot: an empty group at the end of the file allows everything
    ['quxbot', '/example/page.html', true],
    ['quxbot', '/images/logo.gif', true],
  ] as const)('%s %s → %s', (ua, path, allowed) => {
    expect(check(robots, ua, path)).toBe(allowed);
  });
});

describe('RFC 9309 §5.2 longest match', () => {
  const robots = RobotsTxt.parse(
    'User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n',
  );
  it.each([
    ['/example/page/disallowed.gif', false],
    ['/example/page/allowed.gif', true],
    ['/example/page/', true],
  ] as const)('%s → %s', (path, allowed) => {
    expect(check(robots, 'foobot', path)).toBe(allowed);
  });
});

describe('RFC 9309 §2.2.1 the user-agent line', () => {
  it('matches the product token of the User-Agent header (Table 1)', () => {
    const robots = RobotsTxt.parse('user-agent: ExampleBot\ndisallow: /\n');
    expect(check(robots, 'ExampleBot/0.1 (https://www.example.com/bot.html)', '/x')).toBe(false);
    expect(check(robots, 'examplebot', '/x')).toBe(false);
    expect(check(robots, 'OtherBot', '/x')).toBe(true);
  });

  it('merges groups that match the same product token (Table 2)', () => {
    const robots = RobotsTxt.parse(
      'user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: ExampleBot\ndisallow: /baz\n',
    );
    for (const path of ['/foo', '/bar', '/baz'])
      expect(check(robots, 'ExampleBot', path)).toBe(false);
    expect(check(robots, 'ExampleBot', '/qux')).toBe(true);
  });

  it('falls back to the "*" group only when no group matches (Table 3)', () => {
    const robots = RobotsTxt.parse(
      'user-agent: *\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: BazBot\ndisallow: /baz\n',
    );
    expect(check(robots, 'ExampleBot', '/foo')).toBe(false);
    expect(check(robots, 'ExampleBot', '/bar')).toBe(false);
    expect(check(robots, 'ExampleBot', '/baz')).toBe(true);
    expect(check(robots, 'BazBot', '/foo')).toBe(true);
  });

  it('applies no rules when neither a matching nor a "*" group exists', () => {
    const robots = RobotsTxt.parse('user-agent: BazBot\ndisallow: /\n');
    expect(check(robots, 'ExampleBot', '/anything')).toBe(true);
  });

  it('merges several "*" groups too', () => {
    const robots = RobotsTxt.parse(
      'user-agent: *\ndisallow: /a\nuser-agent: BazBot\ndisallow: /\nuser-agent: *\ndisallow: /b\n',
    );
    expect(check(robots, 'x', '/a')).toBe(false);
    expect(check(robots, 'x', '/b')).toBe(false);
    expect(check(robots, 'x', '/c')).toBe(true);
  });
});

describe('RFC 9309 §2.2.2 allow and disallow lines', () => {
  it('always allows /robots.txt', () => {
    const robots = RobotsTxt.parse('user-agent: *\ndisallow: /\n');
    expect(check(robots, 'x', '/robots.txt')).toBe(true);
    expect(check(robots, 'x', '/robots.txt?x=1')).toBe(true);
    expect(check(robots, 'x', '/robots.txt.bak')).toBe(false);
  });

  it('treats an empty disallow as allowing everything', () => {
    const robots = RobotsTxt.parse('user-agent: *\ndisallow:\n');
    expect(check(robots, 'x', '/private')).toBe(true);
  });

  it('ignores rules outside any group', () => {
    const robots = RobotsTxt.parse('disallow: /\nuser-agent: *\ndisallow: /private\n');
    expect(check(robots, 'x', '/public')).toBe(true);
    expect(check(robots, 'x', '/private')).toBe(false);
  });

  // Table 4, "Examples of matching percent-encoded URI components"
  it.each([
    ['/foo/bar?baz=quz', '/foo/bar?baz=quz'],
    ['/foo/bar?baz=https://foo.bar', '/foo/bar?baz=https://foo.bar'],
    ['/foo/bar/ツ', '/foo/bar/%E3%83%84'],
    ['/foo/bar/%E3%83%84', '/foo/bar/%E3%83%84'],
    ['/foo/bar/%e3%83%84', '/foo/bar/%E3%83%84'],
    ['/foo/bar/%62%61%7A', '/foo/bar/baz'],
    ['/foo/bar/baz', '/foo/bar/%62%61%7A'],
  ])('pattern %s matches %s', (pattern, path) => {
    const robots = RobotsTxt.parse(`user-agent: *\ndisallow: /\nallow: ${pattern}$\n`);
    expect(check(robots, 'x', path)).toBe(true);
    expect(check(robots, 'x', `${path}-more`)).toBe(false);
  });

  it('does not decode reserved characters: %2F is not /', () => {
    const robots = RobotsTxt.parse('user-agent: *\ndisallow: /a/b\n');
    expect(check(robots, 'x', '/a/b')).toBe(false);
    expect(check(robots, 'x', '/a%2Fb')).toBe(true);
  });
});

describe('RFC 9309 §2.2.3 special characters', () => {
  it('matches "*" and "$" in a URI through %2A and %24 (Table 6)', () => {
    const robots = RobotsTxt.parse(
      'user-agent: *\ndisallow: /path/file-with-a-%2A.html\ndisallow: /path/foo-%24\n',
    );
    expect(robots.isAllowed('https://www.example.com/path/file-with-a-*.html', 'x')).toBe(false);
    expect(robots.isAllowed('https://www.example.com/path/file-with-a-b.html', 'x')).toBe(true);
    expect(robots.isAllowed('https://www.example.com/path/foo-$', 'x')).toBe(false);
    expect(robots.isAllowed('https://www.example.com/path/foo-', 'x')).toBe(true);
  });

  it('supports the examples of Table 5', () => {
    const robots = RobotsTxt.parse(
      'user-agent: *\ndisallow: /\nallow: / # comment in line\n# comment on its own line\n',
    );
    expect(check(robots, 'x', '/anything')).toBe(true);
    const exact = RobotsTxt.parse(
      'user-agent: *\ndisallow: /\nallow: /this/path/exactly$\nallow: /that/*/exactly\n',
    );
    expect(check(exact, 'x', '/this/path/exactly')).toBe(true);
    expect(check(exact, 'x', '/this/path/exactly/not')).toBe(false);
    expect(check(exact, 'x', '/that/any/thing/exactly')).toBe(true);
    expect(check(exact, 'x', '/that/exactly')).toBe(false);
  });
});

describe('RFC 9309 §2.2.4 other records', () => {
  it('does not end a group at a Sitemap line', () => {
    const robots = RobotsTxt.parse(
      'user-agent: a\nsitemap: https://example.com/s.xml\nuser-agent: b\ndisallow: /private\n\nuser-agent: *\ndisallow: /\n',
    );
    expect(check(robots, 'a', '/public')).toBe(true);
    expect(check(robots, 'a', '/private')).toBe(false);
    expect(robots.sitemaps).toEqual(['https://example.com/s.xml']);
  });
});
