/** Hostile and broken bodies: none may throw, and what is valid in them still applies. */
import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../src/index.js';

const url = (path: string) => `https://site.test${path}`;

describe('byte order mark', () => {
  it.each([
    ['full BOM', [0xef, 0xbb, 0xbf]],
    ['partial BOM (2 octets)', [0xef, 0xbb]],
    ['partial BOM (1 octet)', [0xef]],
  ])('skips a %s before the first line', (_, bom) => {
    const body = Buffer.concat([Buffer.from(bom), Buffer.from('User-Agent: foo\nDisallow: /x\n')]);
    expect(RobotsTxt.parse(body).isAllowed(url('/x'), 'foo')).toBe(false);
  });

  it('skips a U+FEFF at the start of a string body', () => {
    expect(
      RobotsTxt.parse('\uFEFFUser-Agent: foo\nDisallow: /x\n').isAllowed(url('/x'), 'foo'),
    ).toBe(false);
  });

  it('treats a broken BOM as garbage on the first line (ID_UTF8ByteOrderMarkIsSkipped)', () => {
    const body = Buffer.concat([
      Buffer.from([0xef, 0x11, 0xbf]),
      Buffer.from('User-Agent: foo\nDisallow: /x\n'),
    ]);
    // The user-agent line is lost, so the disallow belongs to no group.
    expect(RobotsTxt.parse(body).isAllowed(url('/x'), 'foo')).toBe(true);
  });

  it('does not skip a BOM in the middle of the file (ID_UTF8ByteOrderMarkIsSkipped)', () => {
    const body = Buffer.concat([
      Buffer.from('User-Agent: foo\n'),
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('Disallow: /x\n'),
    ]);
    expect(RobotsTxt.parse(body).isAllowed(url('/x'), 'foo')).toBe(true);
  });
});

describe('line endings and comments', () => {
  it.each([
    ['LF', '\n'],
    ['CR', '\r'],
    ['CRLF', '\r\n'],
  ])('splits lines on %s', (_, eol) => {
    const robots = RobotsTxt.parse(
      ['User-agent: a', 'Disallow: /a', '', 'User-agent: b', 'Disallow: /b'].join(eol),
    );
    expect(robots.isAllowed(url('/a'), 'a')).toBe(false);
    expect(robots.isAllowed(url('/b'), 'a')).toBe(true);
    expect(robots.isAllowed(url('/b'), 'b')).toBe(false);
  });

  it('strips comments, including a "#" right after the value', () => {
    const robots = RobotsTxt.parse(
      'User-agent: *   # all\nDisallow: /private#secret\n#Disallow: /\n',
    );
    expect(robots.isAllowed(url('/private'), 'x')).toBe(false);
    expect(robots.isAllowed(url('/public'), 'x')).toBe(true);
  });
});

describe('lines without a colon and misspelled keys (Google)', () => {
  it.each([
    ['User-agent *\nDisallow /x', false],
    ['User-agent\t*\nDisallow\t/x', false],
    ['User-agent: *\nDisallow /x /y', true], // three words: not a rule
    ['User-agent: *\nDissallow: /x', false],
    ['User-agent: *\nDisalow: /x', false],
    ['Useragent: *\nDisallow: /x', false],
    ['User agent: *\nDisallow: /x', false],
    ['User-agent: *\nNoindex: /x', true],
  ])('%j → /x allowed: %s', (body, allowed) => {
    expect(RobotsTxt.parse(body).isAllowed(url('/x'), 'bot')).toBe(allowed);
  });
});

describe('size limits', () => {
  it('parses only the first maxBytes of a 2 MB file and says so', () => {
    const head = 'User-agent: *\nDisallow: /early\n';
    const filler = '# padding padding padding padding padding padding padding padding\n';
    let body = head;
    while (body.length < 2 * 1024 * 1024) body += filler;
    body += 'Disallow: /late\n';
    const robots = RobotsTxt.parse(body);
    expect(robots.truncated).toBe(true);
    expect(robots.isAllowed(url('/early'), 'x')).toBe(false);
    expect(robots.isAllowed(url('/late'), 'x')).toBe(true);
    expect(RobotsTxt.parse(body, { maxBytes: 4 * 1024 * 1024 }).isAllowed(url('/late'), 'x')).toBe(
      false,
    );
  });

  describe('the line at the maxBytes boundary', () => {
    const maxBytes = 512_000;
    const head = 'User-agent: *\nDisallow: /\n';
    /** `head`, then comment padding so that `line` starts at octet `maxBytes - before`. */
    const bodyWith = (line: string, before: number) =>
      `${head}${'#'.repeat(maxBytes - before - head.length - 1)}\n${line}`;

    it('drops a rule cut in half, which could otherwise open the site', () => {
      // "Allow: /images/" cut after "Allow: /" would tie "Disallow: /" and allow everything.
      const robots = RobotsTxt.parse(bodyWith('Allow: /images/\n', 'Allow: /'.length));
      expect(robots.truncated).toBe(true);
      expect(robots.isAllowed(url('/'), 'x')).toBe(false);
      expect(robots.isAllowed(url('/images/a.png'), 'x')).toBe(false);
    });

    it('keeps a rule whose newline is the last octet read', () => {
      const line = 'Allow: /images/\n';
      const robots = RobotsTxt.parse(`${bodyWith(line, line.length)}Allow: /more/\n`);
      expect(robots.truncated).toBe(true);
      expect(robots.isAllowed(url('/images/a.png'), 'x')).toBe(true);
      expect(robots.isAllowed(url('/more/'), 'x')).toBe(false);
    });

    it('keeps a rule that ends exactly at maxBytes when a line break follows', () => {
      const line = 'Allow: /images/';
      const robots = RobotsTxt.parse(`${bodyWith(line, line.length)}\nAllow: /more/\n`);
      expect(robots.truncated).toBe(true);
      expect(robots.isAllowed(url('/images/a.png'), 'x')).toBe(true);
    });
  });

  it('is not truncated at exactly maxBytes', () => {
    const head = 'User-agent: *\nDisallow: /x\n';
    const body = `${head}${'#'.repeat(512_000 - head.length)}`;
    expect(Buffer.byteLength(body)).toBe(512_000);
    const robots = RobotsTxt.parse(body);
    expect(robots.truncated).toBe(false);
    expect(robots.isAllowed(url('/x'), 'x')).toBe(false);
    expect(RobotsTxt.parse(`${body}\n`).truncated).toBe(true);
  });

  it('survives a single 1 MB line', () => {
    const body = `User-agent: *\nDisallow: /${'a'.repeat(1024 * 1024)}\nDisallow: /b\n`;
    const robots = RobotsTxt.parse(body, { maxBytes: 2 * 1024 * 1024 });
    expect(robots.truncated).toBe(false);
    expect(robots.isAllowed(url('/b'), 'x')).toBe(false);
    expect(robots.isAllowed(url(`/${'a'.repeat(100)}`), 'x')).toBe(true);
  });
});

describe('binary and invalid UTF-8', () => {
  it('does not throw on random bytes and allows everything when no rule survives', () => {
    let seed = 42;
    const bytes = new Uint8Array(64 * 1024);
    for (let i = 0; i < bytes.length; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      bytes[i] = seed >>> 24;
    }
    const robots = RobotsTxt.parse(bytes);
    expect(robots.source).toBe('parsed');
    expect(robots.isAllowed(url('/index.html'), 'shardline')).toBe(true);
    expect(robots.crawlDelayMs('shardline')).toBeUndefined();
  });

  it('parses the valid lines among garbage, NULs and lone continuation bytes', () => {
    const body = Buffer.concat([
      Buffer.from([0x00, 0xff, 0xfe, 0x0a, 0x80, 0x81, 0x0d, 0x0a]),
      Buffer.from('User-agent: *\n'),
      Buffer.from([0xc3, 0x28, 0x0a]),
      Buffer.from('Disallow: /secret\0/ignored-after-nul\n'),
      Buffer.from([0xf0, 0x28, 0x8c, 0x28, 0x0a]),
    ]);
    const robots = RobotsTxt.parse(body);
    expect(robots.isAllowed(url('/secret'), 'x')).toBe(false);
    expect(robots.isAllowed(url('/other'), 'x')).toBe(true);
  });

  it('matches a Latin-1 pattern octet against its percent-encoded form', () => {
    // "Disallow: /café" saved as ISO-8859-1: é is the single octet 0xE9.
    const body = Buffer.concat([
      Buffer.from('User-agent: *\nDisallow: /caf'),
      Buffer.from([0xe9]),
      Buffer.from('\n'),
    ]);
    const robots = RobotsTxt.parse(body);
    expect(robots.isAllowed(url('/caf%E9'), 'x')).toBe(false);
    expect(robots.isAllowed(url('/caf%C3%A9'), 'x')).toBe(true);
  });

  it('keeps a string body byte-exact (UTF-8)', () => {
    const robots = RobotsTxt.parse('User-agent: *\nDisallow: /café\n');
    expect(robots.isAllowed(url('/café'), 'x')).toBe(false);
    expect(robots.isAllowed(url('/caf%C3%A9'), 'x')).toBe(false);
  });

  it('handles a pattern-heavy line without blowing up (wildcards × long path)', () => {
    const robots = RobotsTxt.parse(`User-agent: *\nDisallow: /${'*a'.repeat(2000)}$\n`);
    expect(robots.isAllowed(url(`/${'a'.repeat(1999)}b`), 'x')).toBe(true);
  });
});
