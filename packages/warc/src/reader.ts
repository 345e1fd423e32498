/**
 * Reading archives back, through `warcio`'s parser and indexer: a CDXJ index of WARC files
 * (the format pywb and other replay tools read); and one record at a known offset, read with
 * node:zlib and returned byte for byte as stored.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { CDXIndexer } from 'warcio';
import { WarcError, WarcErrorCode } from './errors.js';
import { closedName } from './file-names.js';
import { LineSorter } from './line-sort.js';

/**
 * Writes the CDXJ lines of `paths` to `write`; returns how many were written. In file order as
 * they are read, or with `sort` in byte order of the whole line (`LC_ALL=C sort`), which replay
 * tools need: pywb finds a URL in an index by binary search. Sorting holds up to
 * `sortRunLines` lines (~300 B each; default 500,000) in memory and merges sorted runs of
 * them written under `tmpDir` (the system's by default), removed at the end.
 *
 * warcio's indexer stops quietly at a `.warc.gz` cut inside a record (a pod killed mid-write,
 * a copy cut short); so each file's tail, from its last indexed record on, is decompressed
 * again, and once every whole record's line is written a file that ends inside a record
 * rejects with `SHARDLINE_ERR_WARC_DAMAGED` naming it.
 */
export async function writeCdxj(
  paths: string[],
  write: (line: string) => void,
  options: { sort?: boolean; sortRunLines?: number; tmpDir?: string } = {},
): Promise<number> {
  // warcio indexes any bytes: a file that is not WARC would give one line of `undefined`.
  const notWarc: string[] = [];
  const warcPaths: string[] = [];
  for (const path of paths) ((await startsWithWarc(path)) ? warcPaths : notWarc).push(path);
  const indexer = new CDXIndexer({ format: 'cdxj' });
  const files = warcPaths.map((path) => ({
    filename: basename(path),
    reader: createReadStream(path),
  }));
  const lastOffset = new Map<string, number>();
  const sorter = options.sort
    ? new LineSorter({ runLines: options.sortRunLines, tmpDir: options.tmpDir })
    : undefined;
  let lines = 0;
  try {
    for await (const entry of indexer.iterIndex(files)) {
      const line = indexer.serialize(entry);
      if (sorter) sorter.add(line);
      else write(line);
      lines += 1;
      const file = String(entry.filename);
      lastOffset.set(file, Math.max(lastOffset.get(file) ?? 0, Number(entry.offset)));
    }
    await sorter?.drain(write);
  } finally {
    sorter?.discard();
  }
  const damaged: string[] = [];
  for (const path of warcPaths) {
    if (!path.endsWith('.gz') && !path.endsWith('.gz.open')) continue;
    const from = lastOffset.get(basename(path)) ?? 0;
    const cut = await gzipCutAfter(path, from);
    if (cut) {
      damaged.push(
        `${path} ends inside a record after byte ${from} (gzip: ${cut}); the records before the cut are indexed`,
      );
    }
  }
  if (damaged.length > 0) throw new WarcError(WarcErrorCode.DAMAGED, damaged.join('; '));
  if (notWarc.length > 0) {
    const names = notWarc.join(', ');
    throw new WarcError(
      WarcErrorCode.NOT_WARC,
      `${names}: not a WARC file (it does not start with a WARC/1.x record); not indexed`,
    );
  }
  return lines;
}

/** The gzip magic: a `.warc.gz` is a series of gzip members. */
const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

/**
 * Whether `path` starts with a WARC record head (`WARC/`), read through gunzip when the file
 * is gzip whatever its name. A file the system cannot read throws.
 */
async function startsWithWarc(path: string): Promise<boolean> {
  try {
    const gzip = (await firstBytes(path, GZIP_MAGIC.length, false)).equals(GZIP_MAGIC);
    return (await firstBytes(path, WARC_MAGIC.length, gzip)).equals(WARC_MAGIC);
  } catch (error) {
    // The file system's refusals (EISDIR, EACCES…) are errors; a gzip that is not one is an answer.
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) throw error;
    return false;
  }
}

/** The first `n` bytes of `path`, decompressed when `gunzip` (fewer if it ends first). */
async function firstBytes(path: string, n: number, gunzip: boolean): Promise<Buffer> {
  const source = createReadStream(path);
  const stream = gunzip ? source.pipe(createGunzip()) : source;
  let got = Buffer.alloc(0);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      got = Buffer.concat([got, chunk]);
      if (got.length >= n) break;
    }
  } finally {
    source.destroy();
  }
  return got.subarray(0, n);
}

/** Why the gzip members of `path` from byte `from` on do not end whole, or '' when they do. */
async function gzipCutAfter(path: string, from: number): Promise<string> {
  const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
  try {
    await pipeline(createReadStream(path, { start: from }), createGunzip(), discard);
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

/** One record read back, as stored. */
export interface ReadRecord {
  /** `WARC-Type`. */
  type: string;
  /** The WARC head, as written (status line and fields, CRLF-separated, no blank line). */
  warcHead: string;
  /** The record block: for request/response the HTTP head and the payload, as received. */
  block: Buffer;
  /** The whole record, head, block and the closing CRLF CRLF. */
  bytes: Buffer;
}

const WARC_MAGIC = Buffer.from('WARC/');

/** Longest WARC head accepted before giving up on finding its end. */
const MAX_HEAD_BYTES = 64 * 1024;

/**
 * Reads the record that starts at `offset` of `path` — a gzip member (`.warc.gz`) or a plain
 * record — and stops after it.
 */
export async function readRecordAt(path: string, offset: number): Promise<ReadRecord> {
  const fail = (why: string, cause?: unknown) =>
    new WarcError(WarcErrorCode.NO_RECORD, `${path}:${offset}: ${why}`, cause);
  const { size } = await stat(path);
  if (offset >= size) throw fail(`nothing there: the file has ${size} bytes`);
  const source = createReadStream(path, { start: offset });
  // A file its pod is still writing (`….warc.gz.open`) is gzipped too.
  const gzipped = closedName(path).endsWith('.gz');
  const stream = gzipped ? source.pipe(createGunzip()) : source;
  const chunks: Buffer[] = [];
  let have = 0;
  let total: number | undefined;
  let head: string | undefined;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      have += chunk.length;
      if (total === undefined) {
        const sofar = Buffer.concat(chunks);
        if (have >= WARC_MAGIC.length && !sofar.subarray(0, WARC_MAGIC.length).equals(WARC_MAGIC)) {
          throw fail('no WARC head there (a record starts with "WARC/")');
        }
        const end = sofar.indexOf('\r\n\r\n');
        if (end < 0) {
          if (have > MAX_HEAD_BYTES) throw fail('no WARC head there');
          continue;
        }
        head = sofar.subarray(0, end).toString('utf8');
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
        if (!head.startsWith('WARC/') || length === undefined) throw fail('no WARC head there');
        total = end + 4 + Number(length) + 4;
      }
      if (have >= total) break;
    }
  } catch (error) {
    if (error instanceof WarcError) throw error;
    throw fail(`not the start of a record (${(error as Error).message})`, error);
  } finally {
    source.destroy();
  }
  if (total === undefined || head === undefined || have < total) {
    throw fail('the file ends inside the record');
  }
  const bytes = Buffer.concat(chunks).subarray(0, total);
  const type = /\r\nwarc-type:\s*(\S+)/i.exec(head)?.[1] ?? '';
  const blockStart = Buffer.byteLength(head) + 4;
  return { type, warcHead: head, block: bytes.subarray(blockStart, total - 4), bytes };
}
