/**
 * How the Fetcher reports what went wrong: outcome error codes for refused, private,
 * timed-out, broken, TLS and malformed fetches; thrown errors for bad options and a closed
 * fetcher; and the one warning a program that builds a Fetcher must not print.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCE_NODE_FLAGS } from '../../../test/helpers/source-runtime.js';
import { CrawlerErrorCode, FetchErrorCode } from '../src/errors.js';
import { Fetcher } from '../src/fetcher.js';
import { closedPort, linkPage, standardFetcher } from './fetcher-fixture.js';
import { startTestServer, type TestServer, testDns } from './fixtures/test-server.js';

describe('Fetcher', () => {
  let server: TestServer;
  let fetcher: Fetcher;

  beforeAll(async () => {
    server = await startTestServer({
      '/page': linkPage,
      '/stall': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<html>');
        // ...and nothing more: the body timeout must end the fetch.
      },
      '/hang': () => {
        // Never answers: the headers timeout must end the fetch.
      },
    });
    fetcher = standardFetcher();
  });

  afterAll(async () => {
    await fetcher.close();
    await server.close();
  });

  it('rejects bad per-call options instead of throwing synchronously', async () => {
    await expect(fetcher.fetch(server.url('/page'), { maxBodyBytes: 0 })).rejects.toMatchObject({
      code: CrawlerErrorCode.INVALID_OPTION,
    });
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
