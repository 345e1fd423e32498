/** Queue keys as clients send them, keyed as the frontier keys hosts. */
import { describe, expect, it } from 'vitest';
import { parseQueueKey } from '../src/queue-key.js';

describe('parseQueueKey', () => {
  it('keys case, a trailing dot and Unicode as the frontier does', () => {
    for (const key of ['WWW.Example.COM.', ' www.example.com ']) {
      expect(parseQueueKey(key)).toEqual({ host: 'www.example.com', domain: 'example.com' });
    }
    expect(parseQueueKey('Bücher.example')).toEqual({
      host: 'xn--bcher-kva.example',
      domain: 'xn--bcher-kva.example',
    });
  });

  it('is null for what is not a host name: empty, a URL, a path, a port, a bad label', () => {
    for (const key of [
      '',
      '  ',
      'https://www.example.com/',
      'example.com/a',
      'example.com:80',
      'a..b.com',
    ]) {
      expect(parseQueueKey(key)).toBeNull();
    }
  });
});
