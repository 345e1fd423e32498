import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, createBrotliCompress, createGzip, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCE_NODE_FLAGS } from '../../../test/helpers/source-runtime.js';
import { decodeBody, parseRetryAfter } from '../src/content.js';
import { CrawlerErrorCode, FetchErrorCode } from '../src/errors.js';
import { Fetcher } from '../src/fetcher.js';
import { startTestServer, type TestServer, testDns } from './fixtures/test-server.js';

const MiB = 1024 * 1024;
const UA = 'shardline/0.1 (+https://example.com/bot)';

/** Stream `total` bytes in 64 KiB chunks honouring backpressure; reports what was written. */
function streamBytes(
  res: ServerResponse,
  total: number,
  report: { written: number; closedEarly?: boolean },
) {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  res.on('close', () => {
    report.closedEarly = !res.writableFinished;
  });
  const pump = () => {
    while (report.written < total) {
      if (res.destroyed) return;
      report.written += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    res.end();
  };
  pump();
}

/** gzip (or brotli) of `total` zero bytes, compressed in a stream so the input is never whole. */
async function compressedZeros(total: number, kind: 'gzip' | 'br'): Promise<Buffer> {
  const zip =
    kind === 'gzip'
      ? createGzip({ level: 9 })
      : createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });
  const out: Buffer[] = [];
  zip.on('data', (b: Buffer) => out.push(b));
  const done = new Promise((resolve) => zip.on('end', resolve));
  const zeros = Buffer.alloc(MiB);
  for (let i = 0; i < total / MiB; i++) {
    if (!zip.write(zeros)) await new Promise((resolve) => zip.once('drain', resolve));
  }
  zip.end();
  await done;
  return Buffer.concat(out);
}

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe('Fetcher', () => {
  let server: TestServer;
  let fetcher: Fetcher;
  const big = { written: 0 } as { written: number; closedEarly?: boolean };
  let gzipBomb: Buffer;
  let brBomb: Buffer;

  beforeAll(async () => {
    [gzipBomb, brBomb] = await Promise.all([
      compressedZeros(100 * MiB, 'gzip'),
      compressedZeros(100 * MiB, 'br'),
    ]);
    server = await startTestServer({
      '/page': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<html><body><a href="/x">x</a></body></html>');
      },
      '/redirect': (_req, res) => {
        res.writeHead(301, { location: '../next?a=1', 'content-type': 'text/html' });
        res.end('moved');
      },
      '/next': (_req, res) => res.end('should not be fetched'),
      '/big': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        streamBytes(res, 50 * MiB, big);
      },
      '/drip': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<html>');
        const timer = setInterval(() => res.write('.'), 50);
        res.on('close', () => clearInterval(timer));
      },
      '/bomb-gzip': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
        res.end(gzipBomb);
      },
      '/bomb-br': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'br' });
        res.end(brBomb);
      },
      '/gzip-page': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
        res.end(gzipSync('<p>squeezed</p>'));
      },
      '/corrupt-gzip': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
        res.end(Buffer.from('this is not gzip at all, not even close'));
      },
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
      '/latin1': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=ISO-8859-1' });
        res.end(Buffer.from('<p>caf\u00e9 na\u00efve</p>', 'latin1'));
      },
      '/sjis': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        // "テスト" in Shift_JIS, declared only by the meta tag.
        const text = Buffer.from([0x83, 0x65, 0x83, 0x58, 0x83, 0x67]);
        res.end(
          Buffer.concat([Buffer.from('<html><head><meta charset="shift_jis"></head><p>'), text]),
        );
      },
      '/http-equiv': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(
          Buffer.concat([
            Buffer.from(
              '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252"><p>',
            ),
            Buffer.from([0x93, 0x71, 0x94]), // “q” in windows-1252
          ]),
        );
      },
      '/image-large': (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(MiB) });
        res.end(Buffer.alloc(MiB));
      },
      '/pdf-small': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/pdf' });
        res.end(Buffer.alloc(1000, 0x25));
      },
      '/missing-html': (_req, res) => {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<p>gone</p>');
      },
      '/stall': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<html>');
        // ...and nothing more: the body timeout must end the fetch.
      },
      '/hang': () => {
        // Never answers: the headers timeout must end the fetch.
      },
      '/late': (_req, res) => {
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('late');
        }, 2000);
      },
    });
    fetcher = new Fetcher({
      dns: testDns(),
      productToken: 'shardline',
      productVersion: '0.1',
      contactUrl: 'https://example.com/bot',
      maxBodyBytes: MiB,
    });
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

  it('stops reading a 50 MB body at the default 5 MiB cap and the server sees the abort', async () => {
    const defaults = new Fetcher({ dns: testDns() });
    try {
      const buffersBefore = process.memoryUsage().arrayBuffers;
      const outcome = await defaults.fetch(server.url('/big'));
      expect(outcome.error).toBeUndefined();
      expect(outcome.truncated).toBe(true);
      expect(outcome.body?.length).toBe(5 * MiB);
      expect(outcome.bytes).toBeGreaterThanOrEqual(5 * MiB);
      expect(outcome.bytes).toBeLessThan(6 * MiB);
      await expect.poll(() => big.closedEarly, { timeout: 5000 }).toBe(true);
      expect(big.written).toBeLessThan(30 * MiB);
      // Only the kept prefix (plus socket buffers) may stay alive, never the 50 MB.
      expect(process.memoryUsage().arrayBuffers - buffersBefore).toBeLessThan(25 * MiB);
    } finally {
      await defaults.close();
    }
  });

  it('rejects bad per-call options instead of throwing synchronously', async () => {
    await expect(fetcher.fetch(server.url('/page'), { maxBodyBytes: 0 })).rejects.toMatchObject({
      code: CrawlerErrorCode.INVALID_OPTION,
    });
  });

  it('fails with TOO_LARGE instead of truncating when oversize is "error"', async () => {
    const strict = new Fetcher({ dns: testDns(), maxBodyBytes: 256 * 1024, oversize: 'error' });
    try {
      const outcome = await strict.fetch(server.url('/big'));
      expect(outcome.error?.code).toBe(FetchErrorCode.TOO_LARGE);
      expect(outcome.truncated).toBe(true);
      expect(outcome.body?.length).toBe(256 * 1024);
    } finally {
      await strict.close();
    }
  });

  it('bounds a slow-drip body by maxFetchMs even though every byte resets bodyTimeout', async () => {
    const quick = new Fetcher({ dns: testDns(), maxFetchMs: 600, bodyTimeoutMs: 10_000 });
    try {
      const outcome = await quick.fetch(server.url('/drip'));
      expect(outcome.error?.code).toBe(FetchErrorCode.TIMEOUT);
      expect(outcome.status).toBe(200);
      expect(outcome.truncated).toBe(true);
      expect(outcome.bytes).toBeGreaterThan(6);
      expect(outcome.timings.endAtMs - outcome.timings.startedAtMs).toBeLessThan(5000);
    } finally {
      await quick.close();
    }
  });

  it.each(['gzip', 'br'])('bounds a %s bomb by DECODED bytes', async (kind) => {
    const outcome = await fetcher.fetch(server.url(`/bomb-${kind}`));
    expect(outcome.error).toBeUndefined();
    expect(outcome.truncated).toBe(true);
    expect(outcome.body?.length).toBe(MiB);
    expect(outcome.bytes).toBeLessThan(4 * MiB);
  });

  it('decodes a gzip body and reports a corrupt one as DECODE', async () => {
    const ok = await fetcher.fetch(server.url('/gzip-page'));
    expect(ok.body?.toString()).toBe('<p>squeezed</p>');
    const bad = await fetcher.fetch(server.url('/corrupt-gzip'));
    expect(bad.error?.code).toBe(FetchErrorCode.DECODE);
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

  it('decodes charsets from Content-Type, <meta charset> and http-equiv', async () => {
    const latin = await fetcher.fetch(server.url('/latin1'));
    expect(latin.charset).toBe('windows-1252');
    expect(decodeBody(latin.body!, latin.charset)).toBe('<p>caf\u00e9 na\u00efve</p>');
    const sjis = await fetcher.fetch(server.url('/sjis'));
    expect(sjis.charset).toBe('shift_jis');
    expect(decodeBody(sjis.body!, sjis.charset)).toMatch(/<p>テスト$/);
    const equiv = await fetcher.fetch(server.url('/http-equiv'));
    expect(equiv.charset).toBe('windows-1252');
    expect(decodeBody(equiv.body!, equiv.charset)).toMatch(/<p>\u201cq\u201d$/);
  });

  it('does not buffer non-HTML: large bodies are cut after the head, small ones drained', async () => {
    const image = await fetcher.fetch(server.url('/image-large'));
    expect(image.status).toBe(200);
    expect(image.contentType).toBe('image/png');
    expect(image.body).toBeUndefined();
    expect(image.truncated).toBe(true);
    expect(image.bytes).toBeLessThan(MiB);

    const single = new Fetcher({ dns: testDns(), connectionsPerOrigin: 1 });
    try {
      const pdf = await single.fetch(server.url('/pdf-small'));
      expect(pdf.body).toBeUndefined();
      expect(pdf.truncated).toBe(false);
      expect(pdf.bytes).toBe(1000);
      // Drained, so the socket went back to the pool and carries the next request.
      expect((await single.fetch(server.url('/page?after-pdf'))).status).toBe(200);
      const [pdfSeen, pageSeen] = server.requests.slice(-2);
      expect(pdfSeen?.path).toBe('/pdf-small');
      expect(pageSeen?.socket).toBe(pdfSeen?.socket);
    } finally {
      await single.close();
    }
  });

  it('keeps error bodies only when asked to', async () => {
    const html = await fetcher.fetch(server.url('/missing-html'));
    expect(html.status).toBe(404);
    expect(html.body).toBeUndefined();
    const always = await fetcher.fetch(server.url('/missing-html'), { keepBody: 'always' });
    expect(always.body?.toString()).toBe('<p>gone</p>');
  });

  it('turns a refused connection into a CONNECT outcome with no send time', async () => {
    const port = await closedPort();
    const outcome = await fetcher.fetch(`http://closed.test:${port}/`);
    expect(outcome.error?.code).toBe(FetchErrorCode.CONNECT);
    expect(outcome.status).toBe(0);
    expect(outcome.timings.sentAtMs).toBeUndefined();
  });

  it('refuses private addresses from DNS and for IP-literal hosts', async () => {
    const viaName = await fetcher.fetch(`http://localhost:${server.port}/page`);
    expect(viaName.error?.code).toBe(FetchErrorCode.DNS_REFUSED);
    const viaLiteral = await fetcher.fetch(`http://127.0.0.1:${server.port}/page`);
    expect(viaLiteral.error?.code).toBe(FetchErrorCode.DNS_REFUSED);
    expect(
      server.requests.some((r) => r.host.startsWith('localhost') || r.host.startsWith('127.')),
    ).toBe(false);
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

  it('ends a silent server with HEADERS_TIMEOUT, a stalled body with BODY_TIMEOUT, a caller abort with ABORTED', async () => {
    const quick = new Fetcher({ dns: testDns(), headersTimeoutMs: 300, bodyTimeoutMs: 300 });
    try {
      const hung = await quick.fetch(server.url('/hang'));
      expect(hung.error?.code).toBe(FetchErrorCode.HEADERS_TIMEOUT);
      const stalled = await quick.fetch(server.url('/stall'));
      expect(stalled.error?.code).toBe(FetchErrorCode.BODY_TIMEOUT);
      expect(stalled.truncated).toBe(true);
      expect(stalled.body?.toString()).toBe('<html>');
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const aborted = await fetcher.fetch(server.url('/hang'), { signal: controller.signal });
      expect(aborted.error?.code).toBe(FetchErrorCode.ABORTED);
    } finally {
      await quick.close();
    }
  });

  it('classifies broken HTTP as PROTOCOL and a body cut mid-way as CONNECT', async () => {
    const raw: Server = createServer((socket) => {
      socket.once('data', (request) => {
        if (request.toString().startsWith('GET /garbage')) {
          socket.end('HTTP/1.1 two hundred OK\r\n\r\n');
        } else {
          socket.write(
            'HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 1000\r\n\r\n<html>',
          );
          setTimeout(() => socket.destroy(), 50);
        }
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const { port } = raw.address() as { port: number };
    try {
      const garbage = await fetcher.fetch(`http://raw.test:${port}/garbage`);
      expect(garbage.error?.code).toBe(FetchErrorCode.PROTOCOL);
      const cut = await fetcher.fetch(`http://raw.test:${port}/cut`);
      expect(cut.status).toBe(200);
      expect(cut.error?.code).toBe(FetchErrorCode.CONNECT);
      expect(cut.truncated).toBe(true);
      expect(cut.body?.toString()).toBe('<html>');
    } finally {
      raw.close();
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

  it('classifies an untrusted certificate as TLS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shardline-tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
          '-days',
          '1',
          '-subj',
          '/CN=tls.test',
        ],
        { stdio: 'ignore' },
      );
      const tls = createHttpsServer(
        { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
        (_req, res) => res.end('secret'),
      );
      await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
      const { port } = tls.address() as { port: number };
      try {
        const outcome = await fetcher.fetch(`https://tls.test:${port}/`);
        expect(outcome.error?.code).toBe(FetchErrorCode.TLS);
        expect(outcome.timings.sentAtMs).toBeUndefined();
      } finally {
        tls.closeAllConnections();
        tls.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers non-http(s) and malformed URLs with INVALID_URL', async () => {
    expect((await fetcher.fetch('mailto:a@b.test')).error?.code).toBe(FetchErrorCode.INVALID_URL);
    expect((await fetcher.fetch('not a url')).error?.code).toBe(FetchErrorCode.INVALID_URL);
  });

  it('validates options, naming the option, value and type', () => {
    expect(() => new Fetcher({ maxBodyBytes: -1 })).toThrow(
      /FetcherOptions\.maxBodyBytes.*-1 \(number\)/,
    );
    expect(() => new Fetcher({ productToken: 'bad token/1' })).toThrow(
      expect.objectContaining({ code: CrawlerErrorCode.INVALID_OPTION }),
    );
    expect(() => new Fetcher({ oversize: 'drop' as 'error' })).toThrow(/oversize/);
  });

  it('rejects fetches after close()', async () => {
    const closing = new Fetcher();
    await closing.close();
    await expect(closing.fetch(server.url('/page'))).rejects.toMatchObject({
      code: CrawlerErrorCode.CLOSED,
    });
  });
});

describe('a program that builds a Fetcher', () => {
  it("prints no ExperimentalWarning of undici's decompress interceptor, and keeps every other warning", () => {
    // A process of its own: undici warns once per process, and this worker built fetchers.
    const program = `import { Fetcher } from '@shardline/crawler';
      await new Fetcher().close();
      process.emitWarning('a warning of the program itself');`;
    const run = spawnSync(
      process.execPath,
      [...SOURCE_NODE_FLAGS, '--input-type=module', '-e', program],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('Warning: a warning of the program itself');
    expect(run.stderr).not.toContain('DecompressInterceptor');
  });
});
