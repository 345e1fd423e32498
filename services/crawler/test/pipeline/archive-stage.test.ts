/**
 * The archive stage with a real Fetcher, a loopback server and a real WARC file: the request
 * record holds the header fields that went out — a refetch's conditional ones included — and the
 * 304 the server answered is a revisit record referring to the first capture (read back by
 * node:zlib member by member and by warcio). When the archive's writer thread dies, the leases
 * whose records it held fail (retried), the death is logged and counted, and the next lease is
 * archived by a new thread.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { completeMemberLength, WarcErrorCode } from '@shardline/warc';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { warcioRecords } from '../../../../packages/warc/test/warc-files.js';
import { PodArchive } from '../../src/archive/pod-archive.js';
import { CrawlOutcomeCode } from '../../src/errors.js';
import { Fetcher } from '../../src/fetcher.js';
import { ArchiveStage } from '../../src/pipeline/archive-stage.js';
import { FetchStage } from '../../src/pipeline/fetch-stage.js';
import { revalidate } from '../../src/pipeline/validators.js';
import { SendGate } from '../../src/send-gate.js';
import { startTestServer, type TestServer, testDns } from '../fixtures/test-server.js';
import { contextOf, outcomeOf } from './lease-fixture.js';

const ETAG = '"v1"';
let server: TestServer;
let fetcher: Fetcher;
let dir: string;

beforeAll(async () => {
  server = await startTestServer({
    '/page': (req, res) => {
      if (req.headers['if-none-match'] === ETAG) {
        res.writeHead(304, { etag: ETAG });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html', etag: ETAG });
      res.end('<p>v1</p>');
    },
  });
  fetcher = new Fetcher({ dns: testDns() });
  dir = mkdtempSync(join(tmpdir(), 'archive-stage-'));
});

afterAll(async () => {
  await fetcher?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Each record's WARC type and its block's HTTP head, read member by member. */
function recordsIn(path: string): { type: string; httpHead: string }[] {
  const bytes = readFileSync(path);
  const out: { type: string; httpHead: string }[] = [];
  for (let offset = 0; offset < bytes.length; ) {
    const length = completeMemberLength(bytes.subarray(offset));
    if (length === undefined) throw new Error(`no complete gzip member at ${offset}`);
    const raw = gunzipSync(bytes.subarray(offset, offset + length)).toString('latin1');
    const [warcHead = '', block = ''] = raw.split('\r\n\r\n');
    const type = /^WARC-Type: (.+)$/m.exec(warcHead)?.[1] ?? '';
    out.push({ type, httpHead: block });
    offset += length;
  }
  return out;
}

describe('ArchiveStage', () => {
  it("archives a first fetch as a response and a conditional refetch's 304 as a revisit of it", async () => {
    const archive = new PodArchive({
      dir,
      pod: 'pod-t',
      maxFileBytes: 1 << 20,
      info: { software: 'test' },
      requestHeaders: fetcher.requestHeaders,
      dns: testDns(),
      logger: pino({ level: 'silent' }),
    });
    await archive.start();
    const gate = new SendGate({ minDelayMs: 0 });
    const first = contextOf(server.url('/page'));
    first.pass = await gate.acquire(first.lease.host);
    expect(await new FetchStage(fetcher).run(first)).toBeUndefined();
    expect(await new ArchiveStage(archive).run(first)).toBeUndefined();
    // What the completion stores for the next refetch: the validators and the capture time.
    const { validators } = revalidate(undefined, first.outcome!);
    expect(validators).toMatchObject({ etag: ETAG, capturedAtMs: first.outcome!.timings.sentAtMs });

    const again = contextOf(server.url('/page'), { validators: validators! });
    again.pass = await gate.acquire(again.lease.host);
    expect(await new FetchStage(fetcher).run(again)).toBeUndefined();
    expect(await new ArchiveStage(archive).run(again)).toBeUndefined();
    await archive.close();

    // What the server saw: a plain request, then a conditional one, answered 304.
    expect(server.requests.map((r) => r.headers['if-none-match'])).toEqual([undefined, ETAG]);
    const files = readdirSync(dir).filter((f) => f.endsWith('.warc.gz'));
    expect(files).toHaveLength(1);
    const records = recordsIn(join(dir, files[0]!));
    expect(records.map((r) => r.type)).toEqual([
      'warcinfo',
      'response',
      'request',
      'revisit',
      'request',
    ]);
    const [, response, , revisit, request] = records;
    expect(request!.httpHead).toMatch(/^GET \/page HTTP\/1\.1\r\n/);
    expect(request!.httpHead).toMatch(/^if-none-match: "v1"$/im);
    expect(request!.httpHead).toMatch(/^user-agent: /im);
    expect(revisit!.httpHead).toMatch(/^HTTP\/1\.1 304 /);

    // warcio, independently: the revisit refers to the first capture, and the result points at it.
    const parsed = await warcioRecords(join(dir, files[0]!));
    const original = parsed[1]!.warcHeaders;
    expect(parsed[3]!.warcHeaders).toMatchObject({
      'warc-type': 'revisit',
      'warc-profile': 'http://netpreserve.org/warc/1.1/revisit/server-not-modified',
      'warc-refers-to-target-uri': original['warc-target-uri'],
      'warc-refers-to-date': original['warc-date'],
    });
    expect(parsed[3]!.warcHeaders['warc-payload-digest']).toBeUndefined();
    expect(parsed[3]!.status).toBe(304);
    expect(again.warc).toMatchObject({ file: files[0], offset: parsed[3]!.offset });
    expect(response!.httpHead).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('a writer thread that dies fails the lease it held (retried), logged and counted; the next lease is archived', async () => {
    const crashDir = mkdtempSync(join(tmpdir(), 'archive-stage-crash-'));
    const lines: { level: number; msg: string; err?: { code?: string } }[] = [];
    const archive = new PodArchive({
      dir: crashDir,
      pod: 'pod-t',
      maxFileBytes: 1 << 20,
      info: { software: 'test' },
      requestHeaders: fetcher.requestHeaders,
      dns: testDns(),
      logger: pino(
        { level: 'warn' },
        { write: (line: string) => void lines.push(JSON.parse(line)) },
      ),
      threadHeapMb: 16,
    });
    await archive.start();
    try {
      const body = Buffer.from('<p>page</p>');
      const page = (path: string, headers: Array<[string, string]>) => {
        const ctx = contextOf(`http://site.test${path}`);
        ctx.outcome = outcomeOf({
          url: ctx.lease.url,
          body,
          bytes: body.length,
          rawHead: { statusText: 'OK', headers },
        });
        return ctx;
      };
      // 200,000 header fields: ~40 MB of strings, past the thread's 16 MB heap.
      const huge = Array.from({ length: 200_000 }, (_, i): [string, string] => [
        `x-${i}`,
        'v'.repeat(100),
      ]);
      const before = page('/before', [['Content-Type', 'text/html']]);
      expect(await new ArchiveStage(archive).run(before)).toBeUndefined();
      const held = page('/held', huge);
      expect(await new ArchiveStage(archive).run(held)).toMatchObject({
        kind: 'fail',
        retryable: true,
        code: CrawlOutcomeCode.WARC,
        message: expect.stringMatching(/writer thread died/),
      });
      expect(held.warc).toBeUndefined();
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 50,
          err: expect.objectContaining({ code: WarcErrorCode.THREAD }),
        }),
      );
      expect(archive.stats()).toMatchObject({ threadCrashes: 1, errors: 1 });

      const next = page('/next', [['Content-Type', 'text/html']]);
      expect(await new ArchiveStage(archive).run(next)).toBeUndefined();
      await archive.close();
      // The dead thread's file was repaired and closed by the next one; nothing is left open.
      expect(readdirSync(crashDir).sort()).toEqual([before.warc!.file, next.warc!.file].sort());
      const parsed = await warcioRecords(join(crashDir, next.warc!.file));
      expect(parsed.find((r) => r.offset === next.warc!.offset)).toMatchObject({
        type: 'response',
        url: 'http://site.test/next',
      });
      expect(archive.stats()).toMatchObject({ threadCrashes: 1, repairedFiles: 1 });
    } finally {
      await archive.close();
      rmSync(crashDir, { recursive: true, force: true });
    }
  });
});
