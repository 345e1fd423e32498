import { describe, expect, it } from 'vitest';
import { DnsErrorCode, overrideProblem, parseOverride } from '../src/index.js';
import { OverrideTable } from '../src/overrides.js';

describe('parseOverride', () => {
  it.each([
    ['site1.test:127.0.0.1', { pattern: 'site1.test', address: '127.0.0.1' }],
    ['*.test:127.0.0.1', { pattern: '*.test', address: '127.0.0.1' }],
    ['*:10.0.0.1', { pattern: '*', address: '10.0.0.1' }],
    ['Site1.Test.:127.0.0.2', { pattern: 'site1.test', address: '127.0.0.2' }],
    ['site1.test:8080:127.0.0.1', { pattern: 'site1.test', address: '127.0.0.1', port: 8080 }],
    ['site1.test:[::1]', { pattern: 'site1.test', address: '::1' }],
    ['site1.test:443:[::1]', { pattern: 'site1.test', address: '::1', port: 443 }],
    ['site1.test:::1', { pattern: 'site1.test', address: '::1' }],
    ['site1.test:[FD00::1]', { pattern: 'site1.test', address: 'fd00::1' }],
  ])('%s', (spec, expected) => {
    expect(parseOverride(spec)).toEqual(expected);
  });

  it.each([
    'site1.test',
    ':127.0.0.1',
    'site1.test:',
    'site1.test:not-an-ip',
    'site1.test:80:not-an-ip',
    'site1.test:99999:127.0.0.1',
    'site1.test:0:127.0.0.1',
    'bad host:127.0.0.1',
    'a.*.test:127.0.0.1',
    'site1.test:[127.0.0.1]',
  ])('rejects %j with INVALID_OVERRIDE', (spec) => {
    expect(() => parseOverride(spec)).toThrow(
      expect.objectContaining({ code: DnsErrorCode.INVALID_OVERRIDE }),
    );
  });
});

describe('overrideProblem', () => {
  it('says what is wrong with a spec in words, and nothing for a good one', () => {
    expect(overrideProblem('site1.test')).toBe('no address after the host');
    expect(overrideProblem(':127.0.0.1')).toBe('no host before ":"');
    expect(overrideProblem('site1.test:999.1.1.1')).toBe('"999.1.1.1" is not an IP address');
    expect(overrideProblem('site1.test:0:127.0.0.1')).toBe('port 0 out of range');
    expect(overrideProblem('site1.test:8080:127.0.0.1')).toBeUndefined();
    expect(() => parseOverride('site1.test')).toThrow(
      'invalid DNS override "site1.test": no address after the host; expected',
    );
  });
});

describe('OverrideTable precedence', () => {
  const table = new OverrideTable([
    '*:192.0.2.99',
    '*.test:127.0.0.1',
    '*.a.test:127.0.0.2',
    'exact.a.test:127.0.0.3',
    'exact.a.test:[::1]',
  ]);
  const first = (host: string) => table.match(host)?.[0]?.address;

  it('an exact host wins over every wildcard and keeps all its addresses', () => {
    expect(table.match('exact.a.test')).toEqual([
      { address: '127.0.0.3', family: 4 },
      { address: '::1', family: 6 },
    ]);
  });

  it('the longest wildcard wins', () => {
    expect(first('x.a.test')).toBe('127.0.0.2');
    expect(first('y.x.a.test')).toBe('127.0.0.2');
    expect(first('b.test')).toBe('127.0.0.1');
  });

  it('*.test matches subdomains but not test itself (which falls to the catch-all)', () => {
    expect(first('deep.b.test')).toBe('127.0.0.1');
    expect(first('a.test')).toBe('127.0.0.1');
    expect(first('test')).toBe('192.0.2.99');
    expect(first('nottest')).toBe('192.0.2.99');
  });

  it('without a catch-all an unknown host is not overridden', () => {
    const narrow = new OverrideTable(['*.test:127.0.0.1']);
    expect(narrow.match('example.com')).toBeUndefined();
    expect(narrow.match('test')).toBeUndefined();
    expect(narrow.match('xtest')).toBeUndefined();
  });
});

describe('OverrideTable ports', () => {
  it('applies a port form to its port only, and a port-less one to every port by default', () => {
    const table = new OverrideTable(['a.test:8080:127.0.0.1', 'b.test:127.0.0.2']);
    expect(table.match('a.test', 8080)?.[0]?.address).toBe('127.0.0.1');
    expect(table.match('a.test', 9090)).toBeUndefined();
    expect(table.match('b.test', 9090)?.[0]?.address).toBe('127.0.0.2');
  });

  it("with 'allowed', a port-less override applies only to the ports allowed under its rule", () => {
    const table = new OverrideTable(
      ['*.test:127.0.0.1', 'c.test:81:127.0.0.3', 'd.test:127.0.0.4', '*.other:127.0.0.5'],
      'allowed',
    );
    expect(table.match('a.test', 8080)).toBeUndefined();
    table.allowPort('a.test', 8080);
    expect(table.match('a.test', 8080)?.[0]?.address).toBe('127.0.0.1');
    expect(table.match('a.test', 8081)).toBeUndefined();
    // Every host under the same wildcard, on that port only.
    expect(table.match('www.b.test', 8080)?.[0]?.address).toBe('127.0.0.1');
    expect(table.match('www.b.test', 8081)).toBeUndefined();
    // Not a host under another rule: an exact override, another wildcard.
    expect(table.match('d.test', 8080)).toBeUndefined();
    expect(table.match('a.other', 8080)).toBeUndefined();
    expect([table.ruleOf('www.b.test'), table.ruleOf('d.test'), table.ruleOf('x.y')]).toEqual([
      '*.test',
      'd.test',
      undefined,
    ]);
    // A host whose overrides all name their port gains nothing from allowPort.
    table.allowPort('c.test', 82);
    expect(table.match('c.test', 82)).toBeUndefined();
    expect(table.match('c.test', 81)?.[0]?.address).toBe('127.0.0.3');
  });
});
