/**
 * Appends WARC records to a pod's own `.warc.gz` files: one gzip member per record, a
 * `warcinfo` record first in every file, files rotated at `maxFileBytes` and on close. A file
 * being written is named `….warc.gz.open` and renamed when closed, so a reader never sees half
 * a file. Opening the writer first repairs the pod's own `.open` files a crash left (at most one
 * partial record each, truncated) and closes them.
 */
import { writeSync, writevSync } from 'node:fs';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { invalidOption, WarcError, WarcErrorCode } from './errors.js';
import { closedName, isOwnOpenFile, OPEN_SUFFIX, warcFileName } from './file-names.js';
import { makeDirectory } from './make-directory.js';
import {
  DEFAULT_GZIP_LEVEL,
  exchangeRecords,
  type WarcExchange,
  warcinfoRecord,
} from './records.js';
import { type RepairReport, repairFile } from './repair.js';

type FileHandle = Awaited<ReturnType<typeof open>>;

/** Options of {@link WarcWriter}. */
export interface WarcWriterOptions {
  /** Directory of the WARC files (created if missing). */
  dir: string;
  /** This pod's id, part of every file name. */
  pod: string;
  /** First part of every file name. @default 'shardline' */
  prefix?: string;
  /** A file is closed once the next record would take it past this size. @default 1073741824 (1 GiB) */
  maxFileBytes?: number;
  /** Fields of the `warcinfo` record that opens every file (software, user agent, robots policy…). */
  info?: Record<string, string>;
  /**
   * zlib compression level of each record's gzip member, 1 (fastest) to 9 (smallest).
   * @default 1 (about 40 % less CPU than zlib's default 6, for 2-4 % more bytes on HTML)
   */
  gzipLevel?: number;
}

/** Where a record was written: one seek and one gzip member read it back. */
export interface WarcLocation {
  /** File name (in `dir`), as it is once closed. */
  file: string;
  offset: number;
  length: number;
}

/** Counters since the writer was opened. */
export interface WarcWriterStats {
  records: number;
  /** Compressed bytes written. */
  bytes: number;
  filesClosed: number;
  /** Writes that failed (each one also rejected its `write`). */
  errors: number;
  /** Files repaired at open: partial records truncated, then closed. */
  repaired: RepairReport[];
}

/** The gzipped response and request records of one exchange. */
interface BuiltPair {
  response: Buffer;
  request: Buffer;
}

/** A pair waiting for its append. */
interface PendingPair extends BuiltPair {
  resolve: (location: WarcLocation) => void;
  reject: (error: unknown) => void;
}

function pairBytes(pair: BuiltPair): number {
  return pair.response.length + pair.request.length;
}

function ioError(error: unknown): WarcError {
  return error instanceof WarcError
    ? error
    : new WarcError(WarcErrorCode.IO, `WARC write failed: ${(error as Error).message}`, error);
}

function closedError(): WarcError {
  return new WarcError(WarcErrorCode.CLOSED, 'WarcWriter is closed');
}

interface OpenFile {
  name: string;
  handle: FileHandle;
  size: number;
}

const FILE_PREFIX = /^[A-Za-z0-9._-]{1,64}$/;

/** Writes request/response pairs into rotating WARC files; see the file comment. */
export class WarcWriter {
  readonly #dir: string;
  readonly #pod: string;
  readonly #prefix: string;
  readonly #maxFileBytes: number;
  readonly #info: Record<string, string>;
  readonly #gzipLevel: number;
  #current: OpenFile | undefined;
  #serial = 0;
  // Appends run one at a time in call order, so offsets are exact and records never interleave.
  #tail: Promise<unknown> = Promise.resolve();
  // Pairs built and waiting for the next append.
  #pending: PendingPair[] = [];
  // Tasks (appends, open, close) queued or running: a write appends at once only when none is.
  #queued = 0;
  #closed = false;
  readonly #stats: WarcWriterStats = {
    records: 0,
    bytes: 0,
    filesClosed: 0,
    errors: 0,
    repaired: [],
  };

  private constructor(options: WarcWriterOptions) {
    if (typeof options.dir !== 'string' || options.dir === '') {
      throw invalidOption('dir', options.dir, 'a directory path');
    }
    if (typeof options.pod !== 'string' || !/^[A-Za-z0-9._:-]{1,128}$/.test(options.pod)) {
      throw invalidOption('pod', options.pod, '1-128 characters of [A-Za-z0-9._:-]');
    }
    const prefix = options.prefix ?? 'shardline';
    if (typeof prefix !== 'string' || !FILE_PREFIX.test(prefix)) {
      throw invalidOption('prefix', prefix, '1-64 characters of [A-Za-z0-9._-]');
    }
    const max = options.maxFileBytes ?? 2 ** 30;
    if (!Number.isSafeInteger(max) || max < 1) {
      throw invalidOption('maxFileBytes', max, 'a positive integer');
    }
    this.#dir = options.dir;
    this.#pod = options.pod;
    this.#prefix = prefix;
    this.#maxFileBytes = max;
    this.#info = options.info ?? {};
    const level = options.gzipLevel ?? DEFAULT_GZIP_LEVEL;
    if (!Number.isInteger(level) || level < 1 || level > 9) {
      throw invalidOption('gzipLevel', level, 'an integer from 1 to 9');
    }
    this.#gzipLevel = level;
  }

  /** Creates the directory, repairs and closes this pod's unfinished files, and returns a writer. */
  static async open(options: WarcWriterOptions): Promise<WarcWriter> {
    const writer = new WarcWriter(options);
    await io(`cannot open WARC directory ${writer.#dir}`, async () => {
      makeDirectory(writer.#dir);
      for (const name of await readdir(writer.#dir)) {
        if (!isOwnOpenFile(name, writer.#prefix, writer.#pod)) continue;
        const path = join(writer.#dir, name);
        const report = await repairFile(path);
        writer.#stats.repaired.push(report);
        if (report.bytesAfter === 0) await rm(path);
        else await rename(path, closedName(path));
      }
    });
    return writer;
  }

  /** The directory written to. */
  get dir(): string {
    return this.#dir;
  }

  stats(): WarcWriterStats {
    return { ...this.#stats, repaired: [...this.#stats.repaired] };
  }

  /**
   * Archives one exchange as a response record followed by its request record; resolves, once
   * both are handed to the OS, with where the response record is.
   */
  async write(exchange: WarcExchange): Promise<WarcLocation> {
    if (this.#closed) throw closedError();
    // Built and compressed outside the queue: only the append itself is serialised.
    const built = exchangeRecords(exchange, this.#gzipLevel);
    const [response, request] = Array.isArray(built) ? built : await built;
    if (this.#closed) throw closedError();
    const file = this.#current;
    if (
      this.#queued === 0 &&
      file &&
      file.size + response.length + request.length <= this.#maxFileBytes
    ) {
      // Nothing queued ahead and room in the open file: append at once (the write is
      // synchronous, so nothing can come between the check and the append).
      try {
        return this.#append(file, [{ response, request }])[0]!;
      } catch (error) {
        this.#stats.errors += 1;
        throw ioError(error);
      }
    }
    return new Promise<WarcLocation>((resolve, reject) => {
      this.#pending.push({ response, request, resolve, reject });
      // The first one waiting schedules the append; later ones join its batch.
      if (this.#pending.length === 1) void this.#enqueue(() => this.#appendPending());
    });
  }

  /** Closes the current file (renamed without `.open`); later writes are refused. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#enqueue(() => this.#closeCurrent());
  }

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    this.#queued += 1;
    const run = this.#tail.then(task).finally(() => {
      this.#queued -= 1;
    });
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** Appends `pairs` at the end of `file`, in one write; returns where each response record went. */
  #append(file: OpenFile, pairs: ReadonlyArray<BuiltPair>): WarcLocation[] {
    const buffers: Buffer[] = [];
    const locations: WarcLocation[] = [];
    let size = file.size;
    for (const { response, request } of pairs) {
      buffers.push(response, request);
      locations.push({ file: file.name, offset: size, length: response.length });
      size += response.length + request.length;
    }
    writeAll(file.handle, buffers, file.size);
    this.#stats.bytes += size - file.size;
    this.#stats.records += 2 * pairs.length;
    file.size = size;
    return locations;
  }

  /**
   * Appends every pair waiting, as many per write as the current file takes (group commit: one
   * system call for all the pairs that arrived while the previous write ran). A crash inside a
   * write cuts at most the last member; no pair's `write` has resolved by then.
   */
  async #appendPending(): Promise<void> {
    const batch = this.#pending.splice(0);
    let next = 0;
    try {
      while (next < batch.length) {
        const first = batch[next]!;
        let file = this.#current;
        if (file && file.size + pairBytes(first) > this.#maxFileBytes) {
          await this.#closeCurrent();
          file = undefined;
        }
        file ??= await this.#openNext();
        let end = next + 1;
        let size = file.size + pairBytes(first);
        // As many as the file takes; a pair bigger than a whole file still goes in (alone).
        while (end < batch.length && size + pairBytes(batch[end]!) <= this.#maxFileBytes) {
          size += pairBytes(batch[end]!);
          end += 1;
        }
        const placed = batch.slice(next, end);
        const locations = this.#append(file, placed);
        for (const [k, pair] of placed.entries()) pair.resolve(locations[k]!);
        next = end;
      }
    } catch (error) {
      const failed = batch.slice(next);
      this.#stats.errors += failed.length;
      const wrapped = ioError(error);
      for (const pair of failed) pair.reject(wrapped);
    }
  }

  async #openNext(): Promise<OpenFile> {
    const name = warcFileName(this.#prefix, this.#pod, Date.now(), this.#serial++);
    const handle = await open(join(this.#dir, name + OPEN_SUFFIX), 'wx');
    const info = warcinfoRecord(name, this.#info, this.#gzipLevel);
    writeAll(handle, [info], 0);
    this.#stats.bytes += info.length;
    this.#stats.records += 1;
    this.#current = { name, handle, size: info.length };
    return this.#current;
  }

  async #closeCurrent(): Promise<void> {
    const file = this.#current;
    if (!file) return;
    this.#current = undefined;
    await io(`cannot close WARC file ${file.name}`, async () => {
      await file.handle.sync();
      await file.handle.close();
      const path = join(this.#dir, file.name);
      await rename(path + OPEN_SUFFIX, path);
    });
    this.#stats.filesClosed += 1;
  }
}

/**
 * Hands `buffers` to the OS at `position`, synchronously: a write into the page cache takes a
 * few µs of CPU where the promise API's hop through libuv's thread pool takes ~50 µs per call
 * (`npm run bench -- warc/bench/writer`), and records are small. Durability is the same: the
 * bytes are the kernel's when this returns (a process crash keeps them; fsync at close).
 */
function writeAll(handle: FileHandle, buffers: Buffer[], position: number): void {
  const total = buffers.reduce((sum, b) => sum + b.length, 0);
  let written = writevSync(handle.fd, buffers, position);
  if (written === total) return;
  // A short write (rare, large buffers) goes on where it stopped.
  const all = Buffer.concat(buffers);
  while (written < total) {
    written += writeSync(handle.fd, all, written, total - written, position + written);
  }
}

async function io<T>(what: string, task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    throw new WarcError(WarcErrorCode.IO, `${what}: ${(error as Error).message}`, error);
  }
}
