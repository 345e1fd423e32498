/**
 * The archive stage with a real Fetcher, a loopback server and a real WARC file: the request
 * record holds the header fields that went out — a refetch's conditional ones included — and the
 * 304 the server answered is the response record.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { completeMemberLength } from '@shardline/warc';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PodArchive } from '../../src/archive/pod-archive.js';
import { Fetcher } from '../../src/fetcher.js';
import { ArchiveStage } from '../../src/pipeline/archive-stage.js';
import { FetchStage } from '../../src/pipeline/fetch-stage.js';
import { SendGate } from '../../src/send-gate.js';
import { startTestServer, type TestServer, testDns } from '../fixtures/test-server.js';
import { contextOf } from './lease-fixture.js';

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
  it("records a conditional refetch's If-None-Match in the request and the 304 as the response", async () => {
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
    const ctx = contextOf(server.url('/page'), { validators: { etag: ETAG } });
    ctx.pass = await new SendGate({ minDelayMs: 0 }).acquire(ctx.lease.host);
    expect(await new FetchStage(fetcher).run(ctx)).toBeUndefined();
    expect(await new ArchiveStage(archive).run(ctx)).toBeUndefined();
    await archive.close();

    // What the server saw: one conditional request, answered 304.
    expect(server.requests.map((r) => r.headers['if-none-match'])).toEqual([ETAG]);
    const files = readdirSync(dir).filter((f) => f.endsWith('.warc.gz'));
    expect(files).toHaveLength(1);
    const records = recordsIn(join(dir, files[0]!));
    const request = records.find((r) => r.type === 'request');
    const response = records.find((r) => r.type === 'response');
    expect(request?.httpHead).toMatch(/^GET \/page HTTP\/1\.1\r\n/);
    expect(request?.httpHead).toMatch(/^if-none-match: "v1"$/im);
    expect(request?.httpHead).toMatch(/^user-agent: /im);
    expect(response?.httpHead).toMatch(/^HTTP\/1\.1 304 /);
  });
});
