/**
 * What the Fetcher puts on the wire and reports back about it: request headers, keep-alive
 * socket reuse, redirects (reported, never followed), Retry-After, the real send time, and
 * the response head exactly as received. What the server can observe is asserted there,
 * not at the client.
 */
import { createServer, type Server } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBody, parseRetryAfter } from '../src/content.js';
import { FetchErrorCode } from '../src/errors.js';
import { Fetcher } from '../src/fetcher.js';
import { closedPort, linkPage, standardFetcher, UA } from './fetcher-fixture.js';
import { startTestServer, type TestServer, testDns } from './fixtures/test-server.js';

describe('Fetcher', () => {
  let server: TestServer;
  let fetcher: Fetcher;

  beforeAll(async () => {
    server = await startTestServer({
      '/page': linkPage,
      '/redirect': (_req, res) => {
        res.writeHead(301, { location: '../next?a=1', 'content-type': 'text/html' });
        res.end('moved');
      },
      '/next': (_req, res) => res.end('should not be fetched'),
      '/retry-seconds': (_req, res) => {
        res.writeHead(503, { 'retry-after': '120' });
        res.end();
      },
      '/retry-date': (_req, res) => {
        res.writeHead(429, { 'retry-after': new Date(Date.now() + 90_000).toUTCString() });
        res.end();
      },
      '/retry-huge': (_req, res) => {
        res.writeHead(503, { 'retry-after': '99999999' });
        res.end();
      },
      '/late': (_req, res) => {
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('late');
        }, 2000);
      },
    });
    fetcher = standardFetcher();
  });

  afterAll(async () => {
    await fetcher.close();
    await server.close();
  });

  it('sends a clear User-Agent, Accept and Accept-Encoding and reuses keep-alive sockets', async () => {
    const before = server.sockets();
    for (let i = 0; i < 10; i++) {
      const outcome = await fetcher.fetch(server.url('/page'));
      expect(outcome.error).toBeUndefined();
      expect(outcome.status).toBe(200);
      expect(decodeBody(outcome.body!, outcome.charset)).toContain('<a href="/x">');
    }
    // Ten sequential fetches never need more sockets than the pool size (2 by default).
    expect(server.sockets() - before).toBeLessThanOrEqual(2);
    const seen = server.requests.filter((r) => r.path === '/page');
    expect(seen).toHaveLength(10);
    expect(seen[0]?.headers['user-agent']).toBe(UA);
    expect(seen[0]?.headers['accept-encoding']).toMatch(/gzip/);
    expect(seen[0]?.headers.accept).toMatch(/text\/html/);
    expect(fetcher.userAgent).toBe(UA);
  });

  it('puts sequential fetches on one socket when connectionsPerOrigin is 1', async () => {
    const single = new Fetcher({ dns: testDns(), connectionsPerOrigin: 1 });
    try {
      const before = server.sockets();
      for (let i = 0; i < 5; i++) {
        expect((await single.fetch(server.url('/page?single'))).status).toBe(200);
      }
      expect(server.sockets() - before).toBe(1);
      const seen = server.requests.filter((r) => r.path === '/page?single');
      expect(new Set(seen.map((r) => r.socket)).size).toBe(1);
    } finally {
      await single.close();
    }
  });

  it('reports a redirect with an absolute Location and never follows it', async () => {
    const outcome = await fetcher.fetch(server.url('/redirect'));
    expect(outcome.status).toBe(301);
    expect(outcome.redirectTo).toBe(server.url('/next?a=1'));
    expect(outcome.body).toBeUndefined();
    expect(server.requests.some((r) => r.path.startsWith('/next'))).toBe(false);
  });

  it('parses Retry-After as delta-seconds, as an HTTP-date, and caps it', async () => {
    const seconds = await fetcher.fetch(server.url('/retry-seconds'));
    expect(seconds.status).toBe(503);
    expect(seconds.retryAfterMs).toBe(120_000);
    const date = await fetcher.fetch(server.url('/retry-date'));
    expect(date.status).toBe(429);
    // HTTP-dates have one-second resolution; allow generous slack for a loaded machine.
    expect(date.retryAfterMs).toBeGreaterThan(85_000);
    expect(date.retryAfterMs).toBeLessThanOrEqual(90_000);
    const huge = await fetcher.fetch(server.url('/retry-huge'));
    expect(huge.retryAfterMs).toBe(3_600_000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.now(), 1000)).toBe(0);
    expect(parseRetryAfter('soon', Date.now(), 1000)).toBeUndefined();
  });

  it('reports the real send time: before the headers and at the server arrival', async () => {
    let observed: number | undefined;
    const outcome = await fetcher.fetch(server.url('/page?timing'), {
      onSent: (at) => {
        observed = at;
      },
    });
    const { sentAtMs, headersAtMs } = outcome.timings;
    expect(sentAtMs).toBeDefined();
    expect(observed).toBe(sentAtMs);
    expect(headersAtMs).toBeGreaterThanOrEqual(sentAtMs!);
    const arrival = server.requests.find((r) => r.path === '/page?timing')!.atMs;
    // Same clock: the server parses the head no earlier than we wrote it, and soon after.
    expect(arrival).toBeGreaterThanOrEqual(sentAtMs!);
    expect(arrival - sentAtMs!).toBeLessThan(1000);
  });

  it('counts an onSent observer that throws and still completes the fetch', async () => {
    const before = fetcher.stats().onSentErrors;
    const outcome = await fetcher.fetch(server.url('/page'), {
      onSent: () => {
        throw new Error('observer bug');
      },
    });
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe(200);
    expect(outcome.timings.sentAtMs).toBeDefined();
    expect(fetcher.stats().onSentErrors).toBe(before + 1);
  });

  it('sets sentAtMs when the request leaves, not when fetch() is called (queued behind a busy socket)', async () => {
    const single = new Fetcher({ dns: testDns(), connectionsPerOrigin: 1 });
    try {
      const [first, second] = await Promise.all([
        single.fetch(server.url('/late')),
        single.fetch(server.url('/page?queued')),
      ]);
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      // The second waited for the only connection, so it was sent after the first finished.
      expect(second.timings.sentAtMs!).toBeGreaterThanOrEqual(first.timings.headersAtMs!);
      expect(second.timings.sentAtMs! - second.timings.startedAtMs).toBeGreaterThan(1000);
    } finally {
      await single.close();
    }
  });

  it('keeps the response head as received: reason phrase, header order, case, repeats, encoding headers', async () => {
    const body = gzipSync('<p>archived</p>');
    const head = Buffer.concat([
      Buffer.from(
        'HTTP/1.1 203 Quite Alright\r\n' +
          'X-Mixed-Case: one\r\n' +
          'Set-Cookie: a=1\r\n' +
          'Content-Type: text/html\r\n' +
          'Set-Cookie: b=2\r\n' +
          'Content-Encoding: gzip\r\n' +
          `Content-Length: ${body.length}\r\n` +
          'X-Latin: caf',
      ),
      Buffer.from([0xe9]),
      Buffer.from('\r\n\r\n'),
    ]);
    const raw: Server = createServer((socket) => {
      socket.once('data', () => socket.end(Buffer.concat([head, body])));
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const { port } = raw.address() as { port: number };
    try {
      const outcome = await fetcher.fetch(`http://raw.test:${port}/archived`);
      expect(outcome.error).toBeUndefined();
      expect(outcome.status).toBe(203);
      // The decoded view: body decoded, encoding headers gone.
      expect(outcome.body?.toString()).toBe('<p>archived</p>');
      expect(outcome.headers['content-encoding']).toBeUndefined();
      expect(outcome.headers['set-cookie']).toBe('a=1, b=2');
      // The wire view: everything the server sent, in its order and spelling.
      expect(outcome.rawHead).toEqual({
        statusText: 'Quite Alright',
        headers: [
          ['X-Mixed-Case', 'one'],
          ['Set-Cookie', 'a=1'],
          ['Content-Type', 'text/html'],
          ['Set-Cookie', 'b=2'],
          ['Content-Encoding', 'gzip'],
          ['Content-Length', String(body.length)],
          ['X-Latin', 'caf\u00e9'],
        ],
      });
      const latin = outcome.rawHead?.headers[6]?.[1] ?? '';
      expect([...Buffer.from(latin, 'latin1')].at(-1)).toBe(0xe9);
    } finally {
      raw.close();
    }
  });

  it('has no raw head when no response arrived', async () => {
    const refused = await fetcher.fetch(`http://nobody.test:${await closedPort()}/`);
    expect(refused.error?.code).toBe(FetchErrorCode.CONNECT);
    expect(refused.rawHead).toBeUndefined();
  });
});
