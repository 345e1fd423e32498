/**
 * The departures of bare robots-parser 3.0.1 from RFC 9309 that this package closes. Each
 * case asserts what bare robots-parser answers and what we answer, so the README's list of
 * gaps is checked against the pinned dependency: if an upgrade fixes a gap, this test says so.
 */
import robotsParser from 'robots-parser';
import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../src/index.js';

interface Gap {
  gap: string;
  body: string | Buffer;
  ua: string;
  url: string;
  /** The RFC 9309 answer, which is ours. */
  allowed: boolean;
}

const gaps: Gap[] = [
  {
    gap: 'a Sitemap line between user-agent lines ends the group (RFC §2.2.4: MUST NOT)',
    body: 'User-agent: a\nSitemap: https://x.test/s.xml\nUser-agent: b\nDisallow: /private\n\nUser-agent: *\nDisallow: /\n',
    ua: 'a',
    url: 'https://x.test/public',
    allowed: true,
  },
  {
    gap: 'an unknown line between user-agent lines ends the group',
    body: 'User-agent: a\nNoindex: /x\nUser-agent: b\nDisallow: /private\n\nUser-agent: *\nDisallow: /\n',
    ua: 'a',
    url: 'https://x.test/public',
    allowed: true,
  },
  {
    gap: 'an empty group at the end of the file falls back to "*" (RFC §5.1 quxbot)',
    body: 'User-agent: *\nDisallow: /\n\nUser-agent: quxbot\n',
    ua: 'quxbot',
    url: 'https://x.test/page',
    allowed: true,
  },
  {
    gap: 'a user-agent value with more words never matches ("Foo Bar" is token Foo)',
    body: 'User-agent: *\nDisallow: /\n\nUser-agent: Foo Bar\nAllow: /\n',
    ua: 'Foo',
    url: 'https://x.test/page',
    allowed: true,
  },
  {
    gap: 'the crawler UA is cut at "/" only, not to its product token',
    body: 'User-agent: *\nDisallow: /\n\nUser-agent: shardline\nAllow: /\n',
    ua: 'shardline (+https://example.com/bot)',
    url: 'https://x.test/page',
    allowed: true,
  },
  {
    gap: 'percent-encoded unreserved octets are not decoded (RFC §2.2.2 table: %62%61%7A = baz)',
    body: 'User-agent: *\nDisallow: /foo/bar/%62%61%7A\n',
    ua: 'x',
    url: 'https://x.test/foo/bar/baz',
    allowed: false,
  },
  {
    gap: 'a literal "*" in the URL does not match %2A in a pattern (RFC §2.2.3)',
    body: 'User-agent: *\nDisallow: /path/file-with-a-%2A.html\n',
    ua: 'x',
    url: 'https://x.test/path/file-with-a-*.html',
    allowed: false,
  },
  {
    gap: 'characters the URL parser leaves literal are escaped in patterns only ("|")',
    body: 'User-agent: *\nDisallow: /a|b\n',
    ua: 'x',
    url: 'https://x.test/a|b',
    allowed: false,
  },
  {
    gap: 'a Latin-1 (invalid UTF-8) pattern octet cannot match its %XX form',
    body: Buffer.concat([Buffer.from('User-agent: *\nDisallow: /caf'), Buffer.from([0xe9, 0x0a])]),
    ua: 'x',
    url: 'https://x.test/caf%E9',
    allowed: false,
  },
  {
    gap: 'a line without a colon is ignored (Google reads "Disallow /x")',
    body: 'User-agent: *\nDisallow /x\n',
    ua: 'x',
    url: 'https://x.test/x',
    allowed: false,
  },
  {
    gap: 'misspelled keys are ignored (Google reads "Dissallow")',
    body: 'User-agent: *\nDissallow: /x\n',
    ua: 'x',
    url: 'https://x.test/x',
    allowed: false,
  },
  {
    gap: '/robots.txt itself can be disallowed (RFC §2.2.2: implicitly allowed)',
    body: 'User-agent: *\nDisallow: /\n',
    ua: 'x',
    url: 'https://x.test/robots.txt',
    allowed: true,
  },
  {
    gap: 'no size limit: rules past 500 KiB still apply (RFC §2.5)',
    body: `User-agent: *\n${'# pad\n'.repeat(200_000)}Disallow: /late\n`,
    ua: 'x',
    url: 'https://x.test/late',
    allowed: true,
  },
  {
    gap: 'a partial UTF-8 BOM in a Buffer body hides the first line',
    body: Buffer.concat([Buffer.from([0xef, 0xbb]), Buffer.from('User-agent: *\nDisallow: /x\n')]),
    ua: 'x',
    url: 'https://x.test/x',
    allowed: false,
  },
];

describe('gaps of bare robots-parser 3.0.1', () => {
  it.each(gaps)('$gap', ({ body, ua, url, allowed }) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    const bare = robotsParser('https://x.test/robots.txt', text).isAllowed(url, ua);
    expect(bare).toBe(!allowed);
    expect(RobotsTxt.parse(body).isAllowed(url, ua)).toBe(allowed);
  });

  it('crawl-delay: bare robots-parser keeps 1e9 s and reads an empty value as 0', () => {
    const bare = robotsParser(
      'https://x.test/robots.txt',
      'User-agent: a\nCrawl-delay: 1e9\nUser-agent: b\nCrawl-delay:\n',
    );
    expect(bare.getCrawlDelay('a')).toBe(1e9);
    expect(bare.getCrawlDelay('b')).toBe(0);
    const ours = RobotsTxt.parse(
      'User-agent: a\nCrawl-delay: 1000000000\nUser-agent: b\nCrawl-delay:\n',
    );
    expect(ours.crawlDelayMs('a')).toBe(60_000);
    expect(ours.crawlDelayMs('b')).toBeUndefined();
  });

  it('answers undefined for a URL of another origin; we match on path and query only', () => {
    const bare = robotsParser('https://x.test/robots.txt', 'User-agent: *\nDisallow: /x\n');
    expect(bare.isAllowed('https://other.test/x', 'a')).toBeUndefined();
    expect(
      RobotsTxt.parse('User-agent: *\nDisallow: /x\n').isAllowed('https://other.test/x', 'a'),
    ).toBe(false);
  });
});
