/**
 * What the Fetcher keeps of a response body: size caps (raw and decoded), the overall fetch
 * bound, decompression, charset detection, non-HTML and error bodies. The large bodies are
 * streamed, and the server counts what it wrote, so a cap is seen to stop the transfer
 * itself, not only the copy the client keeps.
 */
import type { ServerResponse } from 'node:http';
import { constants, createBrotliCompress, createGzip, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBody } from '../src/content.js';
import { FetchErrorCode } from '../src/errors.js';
import { Fetcher } from '../src/fetcher.js';
import { linkPage, MiB, standardFetcher } from './fetcher-fixture.js';
import { startTestServer, type TestServer, testDns } from './fixtures/test-server.js';

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
      '/page': linkPage,
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
    });
    fetcher = standardFetcher();
  });

  afterAll(async () => {
    await fetcher.close();
    await server.close();
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
});
