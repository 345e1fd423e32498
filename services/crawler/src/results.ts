/**
 * Crawl results: one record per lease outcome, appended to a Redis Stream (bounded with
 * `MAXLEN ~`) that downstream consumers read with consumer groups, and optionally to a JSONL
 * file. Writes are buffered and pipelined; a failing stream write is counted, never fatal.
 */
import { createWriteStream, openSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { makeDirectory } from '@shardline/warc';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CrawlerError, CrawlerErrorCode, check } from './errors.js';

/** What happened to one claimed URL. */
export type CrawlOutcome =
  /** Fetched and completed (any HTTP status that is not retried: 2xx, 3xx, 4xx but 429). */
  | 'fetched'
  /** A failed attempt that will be retried (5xx, 429, timeout, network). */
  | 'retry'
  /** Dead-lettered: retries exhausted or a non-retryable failure (see `errorCode`). */
  | 'dead'
  /** Given back untouched (the pod stopped); the URL is queued again. */
  | 'released'
  /**
   * Given back untouched to wait: the host's robots.txt is unreachable, so the host is held
   * until robots.txt is retried (`errorCode` `SHARDLINE_ERR_CRAWLER_ROBOTS_UNREACHABLE`).
   */
  | 'deferred'
  /** The lease expired before the outcome was recorded. */
  | 'lost';

/** One result record (also the JSONL line). Times are epoch ms. */
export interface CrawlResult {
  url: string;
  host: string;
  domain: string;
  depth: number;
  /** 1 for the first try. */
  attempt: number;
  pod: string;
  outcome: CrawlOutcome;
  /** HTTP status, 0 when no response (or not fetched). */
  status: number;
  /** Decoded body bytes received. */
  bytes: number;
  /** Media type of the response. */
  contentType?: string;
  /** Reading stopped before the end (body cap, drain limit, timeout). */
  truncated: boolean;
  /** Target of a 3xx (enqueued, never followed inline). */
  redirectTo?: string;
  /** Links kept on the page after scope and robots checks. */
  links: number;
  /** Of those, new to the frontier. */
  linksQueued: number;
  /** Bounds hit, comma-separated (e.g. `body-cap,links-per-page`). */
  bounds?: string;
  /** Time the pod started on the lease. */
  startedAtMs: number;
  sentAtMs?: number;
  headersAtMs?: number;
  endAtMs: number;
  /** send → end (or start → end when nothing was sent). */
  durationMs: number;
  /** `SHARDLINE_ERR_FETCH_*`, `SHARDLINE_ERR_CRAWLER_*` or `http-<status>`. */
  errorCode?: string;
  error?: string;
  retryAfterMs?: number;
  /** WARC file (name in the pod's WARC directory) holding the response record, when archived. */
  warcFile?: string;
  /** Byte offset of the response record's gzip member in `warcFile`. */
  warcOffset?: number;
  /** Length of that member: one seek and one read give the record. */
  warcLength?: number;
}

const NUMBER_FIELDS = new Set([
  'depth',
  'attempt',
  'status',
  'bytes',
  'links',
  'linksQueued',
  'startedAtMs',
  'sentAtMs',
  'headersAtMs',
  'endAtMs',
  'durationMs',
  'retryAfterMs',
  'warcOffset',
  'warcLength',
]);

/** Stream entry fields (`[name, value, …]`) of a result; absent fields are left out. */
export function encodeResult(result: CrawlResult): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(result)) {
    if (value === undefined) continue;
    out.push(name, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  }
  return out;
}

/** The inverse of {@link encodeResult}, for stream consumers. */
export function decodeResult(fields: readonly string[]): CrawlResult {
  const out: Record<string, unknown> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = fields[i]!;
    const value = fields[i + 1]!;
    if (NUMBER_FIELDS.has(name)) out[name] = Number(value);
    else if (name === 'truncated') out[name] = value === '1';
    else out[name] = value;
  }
  return out as unknown as CrawlResult;
}

/** Options of {@link ResultSink}. */
export interface ResultSinkOptions<T extends object = CrawlResult> {
  /** Stream entry fields of a record. @default encodeResult */
  encode?: (record: T) => string[];
  /** Client for the stream; without it only the JSONL file (if any) is written. */
  redis?: Redis | Cluster;
  /** Stream key. @default 'sl:results' */
  streamKey?: string;
  /** Approximate length bound of the stream (`XADD … MAXLEN ~`); 0 = unbounded. @default 1000000 */
  maxLen?: number;
  /**
   * Append one JSON line per result to this file (its directory created if missing); one that
   * cannot be opened throws `SHARDLINE_ERR_CRAWLER_CONFIG` at construction. @default undefined
   */
  jsonlPath?: string;
  /** What the JSONL file is, in errors. @default 'JSONL file' */
  jsonlLabel?: string;
  /** Told of the first error writing the JSONL file (later ones are only counted). */
  onFileError?: (error: Error) => void;
  /** Longest a result waits in the buffer. @default 50 */
  flushMs?: number;
  /** Results buffered before a flush is forced. @default 256 */
  maxBuffered?: number;
  /** Told of every result as it is written (a process's failure log and summary). */
  onResult?: (result: T) => void;
}

/**
 * Buffers results (or other records: the pod's items use one too) and writes them to the
 * stream (pipelined) and the JSONL file.
 */
export class ResultSink<T extends object = CrawlResult> {
  readonly streamKey: string;
  readonly #redis: Redis | Cluster | undefined;
  readonly #maxLen: number;
  readonly #flushMs: number;
  readonly #maxBuffered: number;
  readonly #file: WriteStream | undefined;
  readonly #encode: (record: T) => string[];
  readonly #onResult: ((result: T) => void) | undefined;
  #buffer: T[] = [];
  #timer: NodeJS.Timeout | undefined;
  readonly #running = new Set<Promise<void>>();
  #written = 0;
  #errors = 0;
  #lastError: unknown;

  constructor(options: ResultSinkOptions<T> = {}) {
    const owner = 'ResultSinkOptions';
    this.#redis = options.redis;
    this.#encode = options.encode ?? (encodeResult as unknown as (record: T) => string[]);
    this.#onResult = options.onResult;
    this.streamKey = check.string(owner, 'streamKey', options.streamKey, 'sl:results');
    this.#maxLen = check.int(owner, 'maxLen', options.maxLen, 1_000_000, 0);
    this.#flushMs = check.int(owner, 'flushMs', options.flushMs, 50, 0);
    this.#maxBuffered = check.int(owner, 'maxBuffered', options.maxBuffered, 256, 1);
    if (options.jsonlPath !== undefined) {
      check.string(owner, 'jsonlPath', options.jsonlPath, '');
      this.#file = openJsonl(options.jsonlPath, options.jsonlLabel ?? 'JSONL file');
      let told = false;
      this.#file.on('error', (error) => {
        // Once: a full disk fails every later write the same way (each is counted).
        if (!told) options.onFileError?.(error);
        told = true;
        this.#errors += 1;
        this.#lastError = error;
      });
    }
  }

  /** Queues one result. */
  write(result: T): void {
    this.#onResult?.(result);
    this.#buffer.push(result);
    if (this.#buffer.length >= this.#maxBuffered) this.flush();
    else if (!this.#timer) this.#timer = setTimeout(() => this.flush(), this.#flushMs);
  }

  /** Writes what is buffered now. */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#buffer.length === 0) return;
    const batch = this.#buffer;
    this.#buffer = [];
    if (this.#file) {
      let text = '';
      for (const r of batch) text += `${JSON.stringify(r)}\n`;
      this.#file.write(text);
    }
    if (!this.#redis) {
      this.#written += batch.length;
      return;
    }
    const pipeline = this.#redis.pipeline();
    for (const r of batch) {
      const bound = this.#maxLen > 0 ? ['MAXLEN', '~', this.#maxLen] : [];
      pipeline.xadd(this.streamKey, ...(bound as ['MAXLEN', '~', number]), '*', ...this.#encode(r));
    }
    const done = pipeline.exec().then(
      (replies) => {
        for (const [error] of replies ?? []) {
          if (error) {
            this.#errors += 1;
            this.#lastError = error;
          } else this.#written += 1;
        }
      },
      (error: unknown) => {
        this.#errors += batch.length;
        this.#lastError = error;
      },
    );
    this.#running.add(done);
    void done.finally(() => this.#running.delete(done));
  }

  /** Results written, write errors, and the last error. */
  stats(): { written: number; errors: number; lastError: unknown } {
    return { written: this.#written, errors: this.#errors, lastError: this.#lastError };
  }

  /** Flushes, waits for the writes, closes the file. */
  async close(): Promise<void> {
    this.flush();
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
    const file = this.#file;
    if (file && !file.closed) await new Promise<void>((resolve) => file.end(resolve));
  }
}

/** The JSONL part of a sink's options. */
export type JsonlOptions = Pick<ResultSinkOptions, 'jsonlPath' | 'jsonlLabel' | 'onFileError'>;

/**
 * A pod's JSONL options for its `--results-jsonl` / `--items-jsonl` setting (none when unset):
 * errors name the setting, and the first failed write is logged.
 */
export function jsonlOptions(
  path: string | undefined,
  kind: 'results' | 'items',
  log: Logger,
): JsonlOptions {
  if (path === undefined) return {};
  const label = `${kind} JSONL file (${kind}Jsonl, --${kind}-jsonl)`;
  return {
    jsonlPath: path,
    jsonlLabel: label,
    onFileError: (error) =>
      log.error(
        { err: error, path },
        `${label}: a write failed; later failures are counted in ${kind === 'results' ? 'stats().results.errors' : 'stats().faults.itemWrites'}`,
      ),
  };
}

/**
 * The JSONL file opened to append now, not on the first write: a path that cannot be written is
 * one error before the pod starts, not records counted as failed while the crawl looks fine.
 */
function openJsonl(path: string, label: string): WriteStream {
  try {
    makeDirectory(dirname(path));
    return createWriteStream('', { fd: openSync(path, 'a') });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new CrawlerError(
      CrawlerErrorCode.CONFIG,
      `${label} ${path}: cannot open it to append (${code ?? message})`,
      { cause: error },
    );
  }
}
