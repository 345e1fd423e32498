import { describe, expect, it } from 'vitest';
import { UrlError, UrlOptionsError } from '../src/errors.js';

describe('UrlError', () => {
  it('carries name, code, reason and input', () => {
    const error = new UrlError(
      'SHARDLINE_ERR_URL_SCHEME',
      'scheme "ftp:" is not http or https',
      'ftp://x/',
    );
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('UrlError');
    expect(error.code).toBe('SHARDLINE_ERR_URL_SCHEME');
    expect(error.reason).toBe('scheme "ftp:" is not http or https');
    expect(error.input).toBe('ftp://x/');
    expect(error.message).toBe('scheme "ftp:" is not http or https: "ftp://x/"');
  });

  it('clips long inputs and says how long they were', () => {
    const error = new UrlError('SHARDLINE_ERR_URL_TOO_LONG', 'too long', 'x'.repeat(5000));
    expect(error.input.startsWith('x'.repeat(256))).toBe(true);
    expect(error.input.endsWith('…(5000 chars)')).toBe(true);
  });
});

describe('UrlOptionsError', () => {
  it('names the option, the value and its type', () => {
    const error = new UrlOptionsError('maxUrlBytes', null, 'a positive integer');
    expect(error.name).toBe('UrlOptionsError');
    expect(error.code).toBe('SHARDLINE_ERR_URL_OPTIONS');
    expect(error.option).toBe('maxUrlBytes');
    expect(error.value).toBeNull();
    expect(error.message).toBe('option maxUrlBytes must be a positive integer, got null (null)');
  });
});
