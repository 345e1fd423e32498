import { describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES, parseDirectives, readBody } from '../src/lines.js';

const parse = (body: string | Buffer) => parseDirectives(readBody(body, 512_000).text);
const known = (body: string | Buffer) => parse(body).filter((d) => d.kind !== 'unknown').length;
const unknown = (body: string | Buffer) => parse(body).filter((d) => d.kind === 'unknown').length;

describe('parseDirectives', () => {
  // ID_LinesNumbersAreCountedCorrectly: four directives in every line-ending style
  it.each([
    ['unix', 'User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n'],
    ['dos', 'User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n'],
    ['mac', 'User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r'],
    ['no final newline', 'User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /'],
    ['mixed', 'User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /'],
  ])('reads 4 directives from a %s file (ID_LinesNumbersAreCountedCorrectly)', (_, body) => {
    expect(parse(body).map((d) => d.kind)).toEqual([
      'user-agent',
      'allow',
      'user-agent',
      'disallow',
    ]);
  });

  // ID_UTF8ByteOrderMarkIsSkipped
  const rest = Buffer.from('User-Agent: foo\nAllow: /AnyValue\n');
  it.each([
    ['full BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), rest]), 2, 0],
    ['2-octet BOM', Buffer.concat([Buffer.from([0xef, 0xbb]), rest]), 2, 0],
    ['1-octet BOM', Buffer.concat([Buffer.from([0xef]), rest]), 2, 0],
    ['broken BOM', Buffer.concat([Buffer.from([0xef, 0x11, 0xbf]), rest]), 1, 1],
    [
      'BOM mid-file',
      Buffer.from('User-Agent: foo\n\xEF\xBB\xBFAllow: /AnyValue\n', 'latin1'),
      1,
      1,
    ],
  ])('%s: %i known and %i unknown directives (ID_UTF8ByteOrderMarkIsSkipped)', (_, body, k, u) => {
    expect(known(body)).toBe(k);
    expect(unknown(body)).toBe(u);
  });

  it('keeps values with inner spaces and colons, strips the rest', () => {
    expect(parse(' \tDisallow :  /a b:c  # x\n')).toEqual([{ kind: 'disallow', value: '/a b:c' }]);
  });

  it('accepts a missing colon only between exactly two words', () => {
    expect(parse('Disallow /x\nDisallow /x y\nDisallow\n')).toEqual([
      { kind: 'disallow', value: '/x' },
    ]);
  });

  it('skips lines with an empty key', () => {
    expect(parse(': /x\n   : y\n')).toEqual([]);
  });

  it('cuts a line at a NUL octet', () => {
    expect(parse('Disallow: /a\0/b\n')).toEqual([{ kind: 'disallow', value: '/a' }]);
  });

  it(`reads at most ${MAX_LINE_BYTES} octets of a line`, () => {
    const [d] = parse(`Disallow: /${'a'.repeat(MAX_LINE_BYTES * 2)}\nAllow: /b\n`);
    expect(d?.value.length).toBe(MAX_LINE_BYTES - 'Disallow: '.length);
    expect(parse(`Disallow: /${'a'.repeat(MAX_LINE_BYTES * 2)}\nAllow: /b\n`)[1]).toEqual({
      kind: 'allow',
      value: '/b',
    });
  });

  it('classifies keys by prefix, with Google typos and our crawl-delay', () => {
    const kinds = parse(
      [
        'user-agentx: a',
        'USERAGENT: a',
        'allowed: /a',
        'disallaw: /a',
        'diasllow: /a',
        'site-map: x',
        'Crawl-delay: 1',
        'crawldelay: 1',
        'host: x',
      ].join('\n'),
    ).map((d) => d.kind);
    expect(kinds).toEqual([
      'user-agent',
      'user-agent',
      'allow',
      'disallow',
      'disallow',
      'sitemap',
      'crawl-delay',
      'crawl-delay',
      'unknown',
    ]);
  });
});

describe('readBody', () => {
  it('measures strings in UTF-8 octets', () => {
    const body = `${'é'.repeat(300_000)}\nx`;
    const { text, truncated } = readBody(body, 512_000);
    expect(truncated).toBe(true);
    expect(text).toBe(''); // the one long line was cut, so nothing complete remains
  });

  it('keeps a whole body that fits', () => {
    const { text, truncated } = readBody(new Uint8Array([0x41, 0xff, 0x0a]), 512_000);
    expect(truncated).toBe(false);
    expect(text).toBe('A\u00ff\n');
  });
});
