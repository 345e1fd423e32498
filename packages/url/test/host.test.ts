import { describe, expect, it } from 'vitest';
import { checkHost, stripTrailingDot } from '../src/host.js';

describe('checkHost', () => {
  it.each([
    ['example.com', 'dns'],
    ['localhost', 'dns'],
    ['my_site.example.com', 'dns'],
    ['-edge-.example.com', 'dns'],
    ['xn--bcher-kva.example', 'dns'],
    [`${'a'.repeat(63)}.com`, 'dns'],
    [`${`${'a'.repeat(62)}.`.repeat(4)}c`, 'dns'],
    ['127.0.0.1', 'ipv4'],
    ['a.b1', 'dns'],
    ['web2.example.com9', 'dns'],
    ['[::1]', 'ipv6'],
  ])('%s is %s', (host, kind) => {
    expect(checkHost(host)).toBe(kind);
  });

  it.each([
    ['', /empty host/],
    ['a..b', /empty label/],
    ['.a', /empty label/],
    ['a.', /empty label/],
    ['a!b.com', /characters/],
    ['a b.com', /characters/],
    [`${'a'.repeat(64)}.com`, /label is 64 characters/],
    [`${`${'a'.repeat(62)}.`.repeat(4)}com`, /host is 255 characters/],
  ])('%j is refused (%s)', (host, reason) => {
    const result = checkHost(host);
    expect(['dns', 'ipv4', 'ipv6']).not.toContain(result);
    expect(result).toMatch(reason);
  });
});

describe('stripTrailingDot', () => {
  it.each([
    ['example.com.', 'example.com'],
    ['example.com', 'example.com'],
    ['example.com..', 'example.com.'],
    ['.', '.'],
  ])('%s → %s', (input, expected) => {
    expect(stripTrailingDot(input)).toBe(expected);
  });
});
