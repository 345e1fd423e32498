import { describe, expect, it } from 'vitest';
import { normalizePercentEncoding } from '../src/percent-encoding.js';

describe('normalizePercentEncoding', () => {
  it.each([
    ['/plain/path', '/plain/path'],
    ['/%7e%7E', '/~~'],
    ['/%41%5A%61%7a%30%39', '/AZaz09'],
    ['/%2d%2e%5f', '/-._'],
    ['/%2f%3a%40%21', '/%2F%3A%40%21'],
    ['/%c3%a4', '/%C3%A4'],
    ['/%C3%A4', '/%C3%A4'],
    ['/%25', '/%25'],
    ['/%2541', '/%2541'],
    ['/%', '/%'],
    ['/%4', '/%4'],
    ['/%4g%g4', '/%4g%g4'],
    ['a+b%20c', 'a+b%20c'],
    ['|^[]`{}\\', '%7C%5E%5B%5D%60%7B%7D%5C'],
    ['x%7ey|z', 'x~y%7Cz'],
    ['%7e', '~'],
  ])('%s → %s', (input, expected) => {
    expect(normalizePercentEncoding(input)).toBe(expected);
  });

  it('decodes every unreserved escape and nothing else', () => {
    for (let byte = 0; byte < 256; byte++) {
      const hex = byte.toString(16).padStart(2, '0');
      const char = String.fromCharCode(byte);
      const unreserved = /^[A-Za-z0-9\-._~]$/.test(char);
      const expected = unreserved ? char : `%${hex.toUpperCase()}`;
      expect(normalizePercentEncoding(`%${hex}`)).toBe(expected);
      expect(normalizePercentEncoding(`%${hex.toUpperCase()}`)).toBe(expected);
    }
  });

  it('is idempotent', () => {
    for (const input of ['/%7e%2f|x', '/%zz%', '?a=%5b%5D[]', '/%c3%a4~']) {
      const once = normalizePercentEncoding(input);
      expect(normalizePercentEncoding(once)).toBe(once);
    }
  });
});
