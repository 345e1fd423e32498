/**
 * `npm run bench -- warc/bench/writer`: what one archived page costs the writer. Baseline: the
 * same request/response pair built and serialised by warcio's `WARCRecord` / `WARCSerializer`
 * (how the writer built records until it wrote them directly; digests preset from node:crypto
 * as it did then) and gzipped at zlib's default level 6, as it was. Then the direct serialiser
 * at level 6 (the serialiser's share) and at level 1 (the default now: the level's share), and
 * `WarcWriter.write` end to end (build + append to a file) on the calling thread, and
 * `ThreadedWarcWriter.write` (the pod's writer: the same work on a worker thread). The two
 * writers get WAVE (32) writes at a time, as a pod's concurrent leases hand them over. Measured
 * in the same run, alternating rounds so load on a shared machine hits all: pairs per second,
 * CPU µs per pair of the whole process (zlib's, the GC's and the writer's threads count too)
 * and of the main thread alone (what a pod's one JavaScript thread pays), gzipped bytes per
 * pair. Then what handing an exchange to a thread costs the main thread: structured clone of
 * the whole exchange (the body copied) against the body copied once and transferred.
 * Bodies: HTML-like text of 2 KB (about the test web's pages), 5 KB and 50 KB.
 *
 *   npm run bench -- warc/bench/writer
 *   BENCH_WARC_PAIRS=20000 BENCH_WARC_ROUNDS=5 npm run bench -- warc/bench/writer
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { WARCRecord, WARCSerializer } from 'warcio';
import { ThreadedWarcWriter, type WarcExchange, WarcWriter } from '../src/index.js';
import { exchangeRecords, newRecordId } from '../src/records.js';

const PAIRS = Number(process.env.BENCH_WARC_PAIRS ?? 5000);
const ROUNDS = Number(process.env.BENCH_WARC_ROUNDS ?? 3);
const WAVE = 32;
// Linux's USER_HZ: the unit of a thread's times in /proc.
const TICK_US = 10_000;

/** CPU of the main thread alone (its task id is the process id), µs, 10 ms resolution. */
function mainThreadCpuUs(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}

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
  mainCpuUsPerPair: number;
}

/** Runs `run` `pairs` times, `wave` at a time (each wave awaited). */
async function measure(pairs: number, run: (i: number) => unknown, wave = 1): Promise<Figure> {
  const all = async (from: number, to: number) => {
    for (let i = from; i < to; i += wave) {
      await Promise.all(Array.from({ length: Math.min(wave, to - i) }, (_, k) => run(i + k)));
    }
  };
  await all(0, 100);
  const cpu = process.cpuUsage();
  const mainCpu = mainThreadCpuUs();
  const started = performance.now();
  await all(0, pairs);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return {
    pairsPerSec: (pairs / ms) * 1000,
    cpuUsPerPair: (used.user + used.system) / pairs,
    mainCpuUsPerPair: (mainThreadCpuUs() - mainCpu) / pairs,
  };
}

/**
 * Main-thread µs per exchange of posting `exchanges` to a thread that drops them, WAVE per
 * message: cloned whole, or with each body copied into its own buffer and transferred.
 */
async function postCost(exchanges: WarcExchange[], pairs: number, transfer: boolean) {
  const sink = new Worker(
    "require('node:worker_threads').parentPort.on('message', (m) => { if (m.last) process.exit(0); })",
    { eval: true },
  );
  const exited = new Promise((resolve) => sink.once('exit', resolve));
  const mainCpu = mainThreadCpuUs();
  for (let i = 0; i < pairs; i += WAVE) {
    const batch = exchanges.slice(0, WAVE);
    if (!transfer) {
      sink.postMessage({ batch });
      continue;
    }
    const bodies = batch.map((e) => new Uint8Array(e.response.body));
    const moved = batch.map((e, k) => ({ ...e, response: { ...e.response, body: bodies[k]! } }));
    sink.postMessage(
      { batch: moved },
      bodies.map((b) => b.buffer),
    );
  }
  const used = mainThreadCpuUs() - mainCpu;
  sink.postMessage({ last: true });
  await exited;
  return used / pairs;
}

async function bytesOf(pair: Promise<[Buffer, Buffer]> | [Buffer, Buffer]): Promise<number> {
  const [response, request] = await pair;
  return response.length + request.length;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const dir = mkdtempSync(join(tmpdir(), 'warc-writer-bench-'));
try {
  console.log(
    `${PAIRS} request/response pairs per round (50 KB: a tenth), ${ROUNDS} alternating rounds, median of the rounds`,
  );
  console.log(
    'body    contender                              pairs/s  CPU µs/pair  ratio (CPU)  main-thread µs/pair  gz bytes/pair',
  );
  for (const size of [2_000, 5_000, 50_000]) {
    const pairs = size > 10_000 ? Math.ceil(PAIRS / 10) : PAIRS;
    const bodies = Array.from({ length: 16 }, (_, i) => page(size, i));
    const exchanges = bodies.map((body, i) => exchange(body, i));
    const contenders: Array<[string, (i: number) => unknown, number | undefined]> = [
      ['baseline: warcio build, gzip 6 (before)', (i) => warcioPair(exchanges[i % 16]!), undefined],
      ['direct serialiser, gzip 6', (i) => exchangeRecords(exchanges[i % 16]!, 6), 6],
      ['direct serialiser, gzip 1 (now)', (i) => exchangeRecords(exchanges[i % 16]!, 1), 1],
    ];
    const figures = new Map<string, Figure[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, run] of contenders) {
        global.gc?.();
        figures.set(name, [...(figures.get(name) ?? []), await measure(pairs, run)]);
      }
      global.gc?.();
      const writer = await WarcWriter.open({ dir, pod: `bench-${size}-${round}` });
      const name = 'WarcWriter.write, this thread';
      figures.set(name, [
        ...(figures.get(name) ?? []),
        await measure(pairs, (i) => writer.write(exchanges[i % 16]!), WAVE),
      ]);
      await writer.close();
      global.gc?.();
      const threaded = await ThreadedWarcWriter.open({ dir, pod: `bench-t-${size}-${round}` });
      const threadedName = 'ThreadedWarcWriter.write (pod)';
      figures.set(threadedName, [
        ...(figures.get(threadedName) ?? []),
        await measure(pairs, (i) => threaded.write(exchanges[i % 16]!), WAVE),
      ]);
      await threaded.close();
    }
    const sizes = new Map<string, number>([
      [contenders[0]![0], await bytesOf(warcioPair(exchanges[0]!))],
      [contenders[1]![0], await bytesOf(exchangeRecords(exchanges[0]!, 6))],
      [contenders[2]![0], await bytesOf(exchangeRecords(exchanges[0]!, 1))],
      ['WarcWriter.write, this thread', await bytesOf(exchangeRecords(exchanges[0]!, 1))],
      ['ThreadedWarcWriter.write (pod)', await bytesOf(exchangeRecords(exchanges[0]!, 1))],
    ]);
    const base = median(figures.get(contenders[0]![0])!.map((f) => f.cpuUsPerPair));
    for (const [name, list] of figures) {
      const rate = median(list.map((f) => f.pairsPerSec));
      const cpu = median(list.map((f) => f.cpuUsPerPair));
      const main = median(list.map((f) => f.mainCpuUsPerPair));
      console.log(
        `${`${size / 1000} KB`.padEnd(7)} ${name.padEnd(39)} ${rate.toFixed(0).padStart(7)}  ${cpu.toFixed(1).padStart(11)}  ${(cpu / base).toFixed(2).padStart(11)}  ${main.toFixed(1).padStart(19)}  ${String(sizes.get(name)).padStart(13)}`,
      );
    }
    const copied: number[] = [];
    const moved: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      copied.push(await postCost(exchanges, pairs * 20, false));
      moved.push(await postCost(exchanges, pairs * 20, true));
    }
    console.log(
      `${`${size / 1000} KB`.padEnd(7)} posting to a thread, main-thread µs/exchange: cloned ${median(copied).toFixed(1)}, body copied + transferred ${median(moved).toFixed(1)}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
