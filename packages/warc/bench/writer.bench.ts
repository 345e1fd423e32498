/**
 * `npm run bench -- warc/bench/writer`: what one archived page costs the writer. Baseline: the
 * same request/response pair built and serialised by warcio's `WARCRecord` / `WARCSerializer`
 * (how the writer built records until it wrote them directly; digests preset from node:crypto
 * as it did then), gzipped alike. Measured in the same run, alternating rounds so load on a
 * shared machine hits both: records built per second, CPU µs per pair (process CPU, so zlib's
 * and the GC's threads count too), and `WarcWriter.write` end to end (build + append to a file).
 * Bodies: HTML-like text of 5 KB (the test web's pages) and 50 KB.
 *
 *   npm run bench -- warc/bench/writer
 *   BENCH_WARC_PAIRS=20000 BENCH_WARC_ROUNDS=5 npm run bench -- warc/bench/writer
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { WARCRecord, WARCSerializer } from 'warcio';
import { type WarcExchange, WarcWriter } from '../src/index.js';
import { exchangeRecords, newRecordId } from '../src/records.js';

const PAIRS = Number(process.env.BENCH_WARC_PAIRS ?? 5000);
const ROUNDS = Number(process.env.BENCH_WARC_ROUNDS ?? 3);

function page(bytes: number, seed: number): Buffer {
  let x = seed + 1;
  const next = () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x;
  };
  let text = '<!doctype html><html><head><title>Page</title></head><body><h1>Heading</h1>';
  while (text.length < bytes) {
    const word = (next() % 0xfffff).toString(36);
    text += next() % 10 === 0 ? ` <a href="/p/${next() % 1000}">${word}</a>` : ` ${word}`;
  }
  return Buffer.from(`${text.slice(0, bytes - 14)}</body></html>`);
}

function exchange(body: Buffer, i: number): WarcExchange {
  return {
    url: `http://host${i % 1000}.test/p/${i}`,
    sentAtMs: Date.now(),
    ipAddress: '127.0.0.1',
    request: {
      headers: [
        ['user-agent', 'shardline/0.1 (+https://example.com/bot)'],
        ['accept', 'text/html,application/xhtml+xml,*/*;q=0.8'],
        ['accept-encoding', 'gzip, deflate, br'],
      ],
    },
    response: {
      status: 200,
      statusText: 'OK',
      headers: [
        ['Content-Type', 'text/html; charset=utf-8'],
        ['Date', new Date().toUTCString()],
        ['X-Archive-Orig-Content-Length', String(body.length)],
        ['Connection', 'keep-alive'],
        ['Keep-Alive', 'timeout=5'],
      ],
      body,
    },
  };
}

/** The baseline: the pair as warcio builds and serialises it. */
async function warcioPair(exchange: WarcExchange): Promise<[Buffer, Buffer]> {
  const date = new Date(exchange.sentAtMs).toISOString();
  const responseId = newRecordId();
  const target = new URL(exchange.url);
  const common: Array<[string, string]> = [['WARC-IP-Address', exchange.ipAddress!]];
  const { response, request } = exchange;
  const responseRecord = WARCRecord.create(
    {
      url: exchange.url,
      date,
      type: 'response',
      warcVersion: 'WARC/1.1',
      warcHeaders: [['WARC-Record-ID', responseId], ...common],
      statusline: `HTTP/1.1 ${response.status} ${response.statusText}`,
      httpHeaders: response.headers,
    },
    [response.body],
  );
  presetDigests(responseRecord, response.body);
  const requestRecord = WARCRecord.create({
    url: exchange.url,
    date,
    type: 'request',
    warcVersion: 'WARC/1.1',
    warcHeaders: [['WARC-Record-ID', newRecordId()], ['WARC-Concurrent-To', responseId], ...common],
    statusline: `GET ${target.pathname}${target.search} HTTP/1.1`,
    httpHeaders: [['Host', target.host], ...request.headers],
  });
  presetDigests(requestRecord, new Uint8Array(0));
  const digest = { algo: 'sha-1', prefix: 'sha1:', base32: true } as const;
  return [
    gzipSync(await WARCSerializer.serialize(responseRecord, { digest })),
    gzipSync(await WARCSerializer.serialize(requestRecord, { digest })),
  ];
}

function presetDigests(record: WARCRecord, payload: Uint8Array): void {
  const head = Buffer.from(`${record.httpHeaders?.toString() ?? ''}\r\n`, 'utf8');
  const b32 = (bytes: Buffer) => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
    let out = '';
    let value = 0;
    let bits = 0;
    for (const byte of bytes) {
      value = ((value << 8) | byte) & 0xffff;
      bits += 8;
      while (bits >= 5) {
        out += alphabet[(value >>> (bits - 5)) & 31];
        bits -= 5;
      }
    }
    return out;
  };
  const headers = record.warcHeaders.headers;
  headers.set('WARC-Payload-Digest', `sha1:${b32(createHash('sha1').update(payload).digest())}`);
  headers.set(
    'WARC-Block-Digest',
    `sha1:${b32(createHash('sha1').update(head).update(payload).digest())}`,
  );
}

interface Figure {
  pairsPerSec: number;
  cpuUsPerPair: number;
}

async function measure(run: (i: number) => unknown): Promise<Figure> {
  for (let i = 0; i < 200; i++) await run(i);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < PAIRS; i++) await run(i);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { pairsPerSec: (PAIRS / ms) * 1000, cpuUsPerPair: (used.user + used.system) / PAIRS };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const dir = mkdtempSync(join(tmpdir(), 'warc-writer-bench-'));
try {
  console.log(
    `${PAIRS} request/response pairs per round, ${ROUNDS} alternating rounds, median of the rounds`,
  );
  console.log(
    'body    contender                          pairs/s   CPU µs/pair  ratio to warcio (CPU)',
  );
  for (const size of [5_000, 50_000]) {
    const bodies = Array.from({ length: 16 }, (_, i) => page(size, i));
    const exchanges = bodies.map((body, i) => exchange(body, i));
    const figures: Record<string, Figure[]> = { warcio: [], direct: [], writer: [] };
    for (let round = 0; round < ROUNDS; round++) {
      global.gc?.();
      figures.warcio!.push(await measure((i) => warcioPair(exchanges[i % 16]!)));
      global.gc?.();
      figures.direct!.push(await measure((i) => exchangeRecords(exchanges[i % 16]!)));
      global.gc?.();
      const writer = await WarcWriter.open({ dir, pod: `bench-${size}-${round}` });
      figures.writer!.push(await measure((i) => writer.write(exchanges[i % 16]!)));
      await writer.close();
    }
    const base = median(figures.warcio!.map((f) => f.cpuUsPerPair));
    const labels: Record<string, string> = {
      warcio: 'baseline: warcio build + serialise',
      direct: 'direct serialiser (exchangeRecords)',
      writer: 'WarcWriter.write (build + append)',
    };
    for (const [name, list] of Object.entries(figures)) {
      const rate = median(list.map((f) => f.pairsPerSec));
      const cpu = median(list.map((f) => f.cpuUsPerPair));
      console.log(
        `${`${size / 1000} KB`.padEnd(7)} ${labels[name]!.padEnd(34)} ${rate.toFixed(0).padStart(7)}   ${cpu.toFixed(1).padStart(11)}  ${(cpu / base).toFixed(2)}`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
