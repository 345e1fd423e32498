import { describe, expect, it } from 'vitest';
import { canonicalize, domainKey, hostKey, UrlError, type UrlErrorCode } from '../src/index.js';

const keys: [input: string, key: string][] = [
  // Registrable domain (eTLD+1)
  ['news.bbc.co.uk', 'bbc.co.uk'],
  ['bbc.co.uk', 'bbc.co.uk'],
  ['www.example.com', 'example.com'],
  ['a.b.c.example.org', 'example.org'],
  ['www.xn--85x722f.xn--55qx5d.cn', 'xn--85x722f.xn--55qx5d.cn'],
  // Private suffixes count: different owners, different shards
  ['a.github.io', 'a.github.io'],
  ['b.github.io', 'b.github.io'],
  ['deep.a.github.io', 'a.github.io'],
  ['foo.blogspot.com', 'foo.blogspot.com'],
  ['bucket.s3.amazonaws.com', 'bucket.s3.amazonaws.com'],
  // A host that is itself a public suffix keys by itself
  ['github.io', 'github.io'],
  ['co.uk', 'co.uk'],
  // No known public suffix: the whole host
  ['localhost', 'localhost'],
  ['site1.test', 'site1.test'],
  ['www.site3.test', 'www.site3.test'],
  ['printer.local', 'printer.local'],
  ['www.a.b1', 'www.a.b1'],
  ['WWW.A.B1', 'www.a.b1'],
  ['www.web2.com', 'web2.com'],
  ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
  // IP literals
  ['127.0.0.1', '127.0.0.1'],
  ['127.1', '127.0.0.1'],
  ['0x7f.1', '127.0.0.1'],
  ['[::1]', '[::1]'],
  ['::1', '[::1]'],
  ['2001:DB8:0:0::1', '[2001:db8::1]'],
  // Case, Unicode, trailing dot
  ['A.GitHub.IO', 'a.github.io'],
  ['News.BBC.co.uk', 'bbc.co.uk'],
  ['Bücher.example', 'xn--bcher-kva.example'],
  ['www.Müller.de', 'xn--mller-kva.de'],
  ['example.com.', 'example.com'],
  // URLs
  ['http://x.y.bbc.co.uk:8080/p?q#f', 'bbc.co.uk'],
  ['https://A.GITHUB.IO/', 'a.github.io'],
  ['http://[::1]:3000/', '[::1]'],
  ['http://0x7f.1/', '127.0.0.1'],
  ['http://www.site3.test/', 'www.site3.test'],
  ['http://u:p@example.com/', 'example.com'],
];

describe('domainKey', () => {
  it.each(keys)('%s → %s', (input, key) => {
    expect(domainKey(input)).toBe(key);
  });

  it.each(keys.filter(([input]) => input.includes('://')))(
    'agrees with canonicalize().domain where both accept: %s',
    (input) => {
      const result = canonicalize(input.replace('u:p@', ''));
      expect(result.domain).toBe(domainKey(input));
      expect(domainKey(result.host)).toBe(result.domain);
    },
  );

  const refused: [input: string, code: UrlErrorCode][] = [
    ['', 'SHARDLINE_ERR_URL_HOST'],
    ['a..b.com', 'SHARDLINE_ERR_URL_HOST'],
    ['.example.com', 'SHARDLINE_ERR_URL_HOST'],
    ['example.com:80', 'SHARDLINE_ERR_URL_HOST'],
    ['[::1]:80', 'SHARDLINE_ERR_URL_HOST'],
    ['example.com/path', 'SHARDLINE_ERR_URL_HOST'],
    ['user@example.com', 'SHARDLINE_ERR_URL_HOST'],
    [' example.com', 'SHARDLINE_ERR_URL_HOST'],
    ['a!b.com', 'SHARDLINE_ERR_URL_HOST'],
    [`${'a'.repeat(64)}.com`, 'SHARDLINE_ERR_URL_HOST'],
    ['xn--a.com', 'SHARDLINE_ERR_URL_HOST'],
    ['999.1.1.1', 'SHARDLINE_ERR_URL_HOST'],
    ['foo.0x1', 'SHARDLINE_ERR_URL_HOST'],
    ['ftp://example.com/', 'SHARDLINE_ERR_URL_SCHEME'],
    ['http://', 'SHARDLINE_ERR_URL_INVALID'],
    ['http://a..b.com/', 'SHARDLINE_ERR_URL_HOST'],
  ];

  it.each(refused)('refuses %j with %s', (input, code) => {
    expect(() => domainKey(input)).toThrow(UrlError);
    try {
      domainKey(input);
    } catch (error) {
      expect((error as UrlError).code).toBe(code);
    }
  });
});

describe('hostKey', () => {
  it.each(keys)('%s names the host canonicalize() writes, of domain %s', (input, key) => {
    const url = input.includes('://')
      ? input.replace('u:p@', '')
      : `http://${input.includes(':') && !input.startsWith('[') ? `[${input}]` : input}/`;
    expect(hostKey(input)).toEqual({ host: canonicalize(url).host, domain: key });
  });

  it('keys the forms a user types for one host alike', () => {
    for (const input of [
      'WWW.Example.COM.',
      'www.example.com',
      'https://www.example.com:8443/x?y',
    ]) {
      expect(hostKey(input)).toEqual({ host: 'www.example.com', domain: 'example.com' });
    }
  });

  it('refuses what domainKey refuses', () => {
    expect(() => hostKey('example.com/path')).toThrow(UrlError);
    expect(() => hostKey('ftp://example.com/')).toThrow(/scheme/);
  });
});

describe('domainKey memo', () => {
  it('stays correct past its bound (more hosts than it keeps)', () => {
    // 20,000 distinct hosts overflow both generations of the memo several times.
    const wrong: string[] = [];
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 20_000; i++) {
        const key = domainKey(`www.d${i}.co.uk`);
        if (key !== `d${i}.co.uk`) wrong.push(key);
      }
    }
    expect(wrong).toEqual([]);
    expect(domainKey('a.github.io')).toBe('a.github.io');
  });
});
