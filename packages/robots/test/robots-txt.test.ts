import { describe, expect, it } from 'vitest';
import { RobotsError, RobotsTxt, type RobotsTxtJson } from '../src/index.js';

const UA = 'shardline/0.1 (+https://example.com/bot)';
const url = (path: string) => `https://site.test${path}`;

describe('RobotsTxt.parse', () => {
  it('uses the product token of a full User-Agent string, case-insensitively', () => {
    const robots = RobotsTxt.parse(
      'User-agent: *\nDisallow: /\n\nUser-agent: ShardLine\nDisallow: /private\n',
    );
    expect(robots.isAllowed(url('/public'), UA)).toBe(true);
    expect(robots.isAllowed(url('/private'), UA)).toBe(false);
    expect(robots.isAllowed(url('/public'), 'otherbot/1.0')).toBe(false);
  });

  it('takes "* anything" as the global group (Google)', () => {
    const robots = RobotsTxt.parse('User-agent: * everyone\nDisallow: /x\n');
    expect(robots.isAllowed(url('/x'), UA)).toBe(false);
  });

  it('ignores user-agent values that are not product tokens', () => {
    const robots = RobotsTxt.parse('User-agent: ツ\nDisallow: /\n\nUser-agent: *\nDisallow: /x\n');
    expect(robots.isAllowed(url('/y'), UA)).toBe(true);
    expect(robots.isAllowed(url('/x'), UA)).toBe(false);
  });

  it('reports source, reason and truncation of a parsed body', () => {
    const robots = RobotsTxt.parse('');
    expect(robots.source).toBe('parsed');
    expect(robots.reason).toBeUndefined();
    expect(robots.truncated).toBe(false);
    expect(robots.isAllowed(url('/anything'), UA)).toBe(true);
  });

  it('accepts a path as well as an absolute URL, and throws on anything else', () => {
    const robots = RobotsTxt.parse('User-agent: *\nDisallow: /x\n');
    expect(robots.isAllowed('/x?y', UA)).toBe(false);
    expect(() => robots.isAllowed('not a url', UA)).toThrow(
      expect.objectContaining({ name: 'RobotsError', code: 'SHARDLINE_ERR_ROBOTS_INVALID_URL' }),
    );
  });

  it('ignores the fragment and matches on path plus query', () => {
    const robots = RobotsTxt.parse('User-agent: *\nDisallow: /*?session=\n');
    expect(robots.isAllowed(url('/a?session=1'), UA)).toBe(false);
    expect(robots.isAllowed(url('/a#?session=1'), UA)).toBe(true);
  });

  it('canonicalises the request URL like the fetcher will (dot segments, case of escapes)', () => {
    const robots = RobotsTxt.parse('User-agent: *\nDisallow: /private/\nDisallow: /a%7cb\n');
    expect(robots.isAllowed(url('/public/../private/x'), UA)).toBe(false);
    expect(robots.isAllowed(url('/a|b'), UA)).toBe(false);
    expect(robots.isAllowed(url('/a%7Cb'), UA)).toBe(false);
  });
});

describe('crawl-delay', () => {
  it('reads decimal seconds per group and caps them', () => {
    const robots = RobotsTxt.parse(
      'User-agent: shardline\nCrawl-delay: 2.5\n\nUser-agent: slowbot\nCrawl-delay: 3600\n\nUser-agent: *\nCrawl-delay: .5\nDisallow: /x\n',
      { maxCrawlDelayMs: 10_000 },
    );
    expect(robots.crawlDelayMs(UA)).toBe(2500);
    expect(robots.crawlDelayMs('slowbot')).toBe(10_000);
    expect(robots.crawlDelayMs('anybot')).toBe(500);
  });

  it('uses the default cap of 60 s', () => {
    expect(
      RobotsTxt.parse('User-agent: *\nCrawl-delay: 99999999999999999999999\n').crawlDelayMs(UA),
    ).toBe(60_000);
  });

  it('ignores values that are not non-negative decimals', () => {
    for (const value of ['', '-1', 'abc', '1e3', '0x10', '5s', 'Infinity']) {
      expect(
        RobotsTxt.parse(`User-agent: *\nCrawl-delay: ${value}\n`).crawlDelayMs(UA),
      ).toBeUndefined();
    }
  });

  it('does not fall back to the "*" delay when a specific group applies', () => {
    const robots = RobotsTxt.parse(
      'User-agent: *\nCrawl-delay: 10\n\nUser-agent: shardline\nDisallow: /x\n',
    );
    expect(robots.crawlDelayMs(UA)).toBeUndefined();
    expect(robots.crawlDelayMs('other')).toBe(10_000);
  });

  it('takes the largest delay of merged groups', () => {
    const robots = RobotsTxt.parse(
      'User-agent: a\nCrawl-delay: 1\n\nUser-agent: a\nCrawl-delay: 4\n\nUser-agent: a\nCrawl-delay: 2\n',
    );
    expect(robots.crawlDelayMs('a')).toBe(4000);
  });

  it('ends the user-agent list like a rule, so a delay-only group keeps its own rules', () => {
    const robots = RobotsTxt.parse('User-agent: a\nCrawl-delay: 5\n\nUser-agent: b\nDisallow: /\n');
    expect(robots.crawlDelayMs('a')).toBe(5000);
    expect(robots.isAllowed(url('/x'), 'a')).toBe(true);
    expect(robots.isAllowed(url('/x'), 'b')).toBe(false);
    expect(robots.crawlDelayMs('b')).toBeUndefined();
  });
});

describe('sitemaps', () => {
  it.each([
    [
      'after the groups',
      'User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nSitemap: http://foo.bar/sitemap.xml\n',
    ],
    [
      'before the groups',
      'Sitemap: http://foo.bar/sitemap.xml\nUser-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\n',
    ],
  ])('reads a sitemap %s (ID_NonStandardLineExample_Sitemap)', (_, body) => {
    expect(RobotsTxt.parse(body).sitemaps).toEqual(['http://foo.bar/sitemap.xml']);
  });

  it('collects absolute http(s) sitemaps from anywhere in the file, once each', () => {
    const robots = RobotsTxt.parse(
      [
        'Sitemap: https://site.test/a.xml',
        'User-agent: *',
        'Disallow: /x',
        'sitemap: http://other.test/b.xml # comment',
        'Site-map: https://site.test/a.xml',
        'Sitemap: /relative.xml',
        'Sitemap: ftp://site.test/c.xml',
        'Sitemap: https://site.test/ü.xml',
      ].join('\n'),
    );
    expect(robots.sitemaps).toEqual([
      'https://site.test/a.xml',
      'http://other.test/b.xml',
      'https://site.test/%C3%BC.xml',
    ]);
    expect(robots.isAllowed(url('/x'), UA)).toBe(false);
  });
});

describe('blanket answers', () => {
  it('allowAll allows everything and has no delay', () => {
    const robots = RobotsTxt.allowAll('HTTP 404');
    expect(robots.source).toBe('allow-all');
    expect(robots.reason).toBe('HTTP 404');
    expect(robots.isAllowed(url('/anything'), UA)).toBe(true);
    expect(robots.crawlDelayMs(UA)).toBeUndefined();
    expect(robots.sitemaps).toEqual([]);
  });

  it('disallowAll disallows everything but /robots.txt', () => {
    const robots = RobotsTxt.disallowAll('HTTP 503');
    expect(robots.source).toBe('disallow-all');
    expect(robots.isAllowed(url('/'), UA)).toBe(false);
    expect(robots.isAllowed(url('/robots.txt'), UA)).toBe(true);
  });
});

describe('RobotsTxt.fromResponse', () => {
  it.each([
    [200, 'parsed', false],
    [204, 'parsed', true],
    [301, 'allow-all', true],
    [404, 'allow-all', true],
    [401, 'allow-all', true],
    [410, 'allow-all', true],
    [429, 'disallow-all', false],
    [500, 'disallow-all', false],
    [503, 'disallow-all', false],
    [99, 'disallow-all', false],
  ] as const)('HTTP %i → %s', (status, source, allowed) => {
    const robots = RobotsTxt.fromResponse({
      status,
      body: status === 204 ? '' : 'User-agent: *\nDisallow: /x\n',
    });
    expect(robots.source).toBe(source);
    expect(robots.isAllowed(url('/x'), UA)).toBe(allowed);
    if (source !== 'parsed') expect(robots.reason).toContain(String(status));
  });

  it('treats a network error as unreachable', () => {
    const robots = RobotsTxt.fromResponse({ error: 'ECONNREFUSED' });
    expect(robots.source).toBe('disallow-all');
    expect(robots.reason).toContain('ECONNREFUSED');
    expect(robots.isAllowed(url('/'), UA)).toBe(false);
  });

  it('passes options to the parser', () => {
    const body = `User-agent: *\nCrawl-delay: 30\n${'#'.repeat(600_000)}\nDisallow: /late\n`;
    const robots = RobotsTxt.fromResponse({ status: 200, body }, { maxCrawlDelayMs: 1000 });
    expect(robots.truncated).toBe(true);
    expect(robots.crawlDelayMs(UA)).toBe(1000);
    expect(robots.isAllowed(url('/late'), UA)).toBe(true);
  });
});

describe('options', () => {
  it.each([
    [{ maxBytes: 1000 }, 'maxBytes', '1000 (number)'],
    [{ maxBytes: 600_000.5 }, 'maxBytes', '600000.5 (number)'],
    [{ maxBytes: '600000' }, 'maxBytes', '"600000" (string)'],
    [{ maxCrawlDelayMs: -1 }, 'maxCrawlDelayMs', '-1 (number)'],
    [{ maxCrawlDelayMs: Number.NaN }, 'maxCrawlDelayMs', 'NaN (number)'],
  ])('rejects %j naming the option, value and type', (options, name, shown) => {
    const attempt = () => RobotsTxt.parse('', options as never);
    expect(attempt).toThrow(RobotsError);
    expect(attempt).toThrow(
      expect.objectContaining({ code: 'SHARDLINE_ERR_ROBOTS_INVALID_OPTION' }),
    );
    expect(attempt).toThrow(name);
    expect(attempt).toThrow(shown);
  });

  it('rejects bad options in fromResponse even for blanket answers', () => {
    expect(() => RobotsTxt.fromResponse({ status: 404 }, { maxBytes: 10 })).toThrow(RobotsError);
  });
});

describe('toJSON / fromJSON', () => {
  const body = [
    'Sitemap: https://site.test/sitemap.xml',
    'User-agent: *',
    'Disallow: /private/',
    'Allow: /private/open$',
    'Disallow: /*.pdf$',
    'Crawl-delay: 1.5',
    '',
    'User-agent: shardline',
    'User-agent: otherbot',
    'Disallow: /ツ/',
    'Allow: /docs/index.html',
    'Disallow: /docs/',
    '',
    'User-agent: emptybot',
    '',
    'User-agent: shardline',
    'Disallow: /merged',
  ].join('\n');
  const paths = [
    '/',
    '/private/x',
    '/private/open',
    '/private/open/x',
    '/a.pdf',
    '/a.pdf?x',
    '/ツ/x',
    '/%E3%83%84/x',
    '/docs/',
    '/docs/index.html',
    '/docs/other',
    '/merged/x',
    '/robots.txt',
  ];
  const agents = [UA, 'otherbot', 'emptybot', 'nobody'];

  it.each([
    ['parsed', RobotsTxt.parse(body, { maxCrawlDelayMs: 1000 })],
    ['truncated', RobotsTxt.parse(`${body}\n${'#'.repeat(600_000)}\nDisallow: /`)],
    ['allow-all', RobotsTxt.allowAll('HTTP 404')],
    ['disallow-all', RobotsTxt.disallowAll('HTTP 503')],
  ])('round-trips a %s instance through JSON text', (_, original) => {
    const copy = RobotsTxt.fromJSON(JSON.parse(JSON.stringify(original)) as RobotsTxtJson);
    expect(copy.source).toBe(original.source);
    expect(copy.reason).toBe(original.reason);
    expect(copy.truncated).toBe(original.truncated);
    expect(copy.sitemaps).toEqual(original.sitemaps);
    for (const ua of agents) {
      expect(copy.crawlDelayMs(ua)).toBe(original.crawlDelayMs(ua));
      for (const path of paths)
        expect([ua, path, copy.isAllowed(url(path), ua)]).toEqual([
          ua,
          path,
          original.isAllowed(url(path), ua),
        ]);
    }
    expect(copy.toJSON()).toEqual(original.toJSON());
  });

  it('stores the parsed groups, smaller than a padded body', () => {
    const padded = `${body}\n${'# comment line\n'.repeat(1000)}`;
    const json = JSON.stringify(RobotsTxt.parse(padded));
    expect(json.length).toBeLessThan(padded.length / 10);
    expect(JSON.parse(json)).toMatchObject({
      v: 1,
      source: 'parsed',
      sitemaps: ['https://site.test/sitemap.xml'],
    });
  });

  it.each([
    ['not an object', 'x'],
    ['another version', { ...RobotsTxt.allowAll('x').toJSON(), v: 2 }],
    ['an unknown source', { ...RobotsTxt.allowAll('x').toJSON(), source: 'maybe' }],
    [
      'a bad group',
      { ...RobotsTxt.parse('').toJSON(), groups: [{ agents: ['*'], allow: 'x', disallow: [] }] },
    ],
    [
      'a pattern with a newline',
      {
        ...RobotsTxt.parse('').toJSON(),
        groups: [{ agents: ['*'], allow: ['/\nUser-agent: x'], disallow: [] }],
      },
    ],
    [
      'an agent with a space',
      { ...RobotsTxt.parse('').toJSON(), groups: [{ agents: ['a b'], allow: [], disallow: [] }] },
    ],
    [
      'a negative delay',
      {
        ...RobotsTxt.parse('').toJSON(),
        groups: [{ agents: ['a'], allow: [], disallow: [], crawlDelayMs: -1 }],
      },
    ],
  ])('rejects %s', (_, json) => {
    expect(() => RobotsTxt.fromJSON(json as never)).toThrow(
      expect.objectContaining({ name: 'RobotsError', code: 'SHARDLINE_ERR_ROBOTS_INVALID_JSON' }),
    );
  });
});
