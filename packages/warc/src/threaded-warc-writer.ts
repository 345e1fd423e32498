/**
 * A {@link WarcWriter} on its own worker thread. The calling thread only hands over each
 * exchange (one `postMessage` for every write queued within one turn of its event loop) and
 * waits for the answer; building and gzipping the records, their digests, the appends, rotation,
 * the `.open` file and its repair all run on the writer's thread. A crawler pod's one JavaScript
 * thread is its bottleneck at a high fetch rate, so the archive's CPU goes to another core.
 *
 * Same files, same guarantees: `write` resolves once both records are the kernel's, in call
 * order. If the thread dies (out of memory, an uncaught error), the writes it held reject with
 * `SHARDLINE_ERR_WARC_THREAD` (they may be partly written), `onThreadExit` is told, and the
 * next write starts a new thread, which repairs and closes the file the dead one left open.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { invalidOption, WarcError, WarcErrorCode } from './errors.js';
import type { WarcExchange } from './records.js';
import type { RepairReport } from './repair.js';
import type {
  FromWriterThread,
  ThreadCounters,
  ThreadError,
  ToWriterThread,
} from './thread-messages.js';
import type { WarcLocation, WarcWriterOptions, WarcWriterStats } from './warc-writer.js';

/** Options of {@link ThreadedWarcWriter}: those of {@link WarcWriterOptions}, and these. */
export interface ThreadedWarcWriterOptions extends WarcWriterOptions {
  /** Heap limit of the writer's thread (V8 old generation), MB. @default Node's default */
  threadHeapMb?: number;
  /**
   * Told when the writer's thread died (the writes it held reject with the same error). Not
   * called when it ends after a close or after failing to open the directory.
   */
  onThreadExit?: (error: WarcError) => void;
}

/** Counters since the writer was opened, over every thread it started. */
export interface ThreadedWarcWriterStats extends WarcWriterStats {
  /** Times the writer's thread died unexpectedly. */
  threadCrashes: number;
}

interface PendingWrite {
  exchange: WarcExchange;
  resolve: (location: WarcLocation) => void;
  reject: (error: unknown) => void;
}

/** One worker thread and what it holds. */
interface WriterThread {
  worker: Worker;
  /** Batches posted and not yet answered, by batch number. */
  batches: Map<number, PendingWrite[]>;
  counters: ThreadCounters;
  /** The thread's uncaught error, reported before its exit. */
  died?: Error;
  /** Its writer could not open: it exits on its own. */
  failed?: WarcError;
  opened: { resolve: () => void; reject: (error: unknown) => void; done: boolean };
  /** Set once `close` is posted: the exit that follows is expected. */
  closing?: { resolve: () => void; reject: (error: unknown) => void; error?: WarcError };
}

const ZERO: ThreadCounters = { records: 0, bytes: 0, filesClosed: 0, errors: 0 };

function fromThread(error: ThreadError): WarcError {
  return new WarcError(error.code, error.message);
}

function closedError(): WarcError {
  return new WarcError(WarcErrorCode.CLOSED, 'WarcWriter is closed');
}

/**
 * The thread's module: the compiled `writer-thread.js` beside this file, or, when this file
 * runs from its TypeScript source (tests and benches run the sources), the `.ts` source
 * through tsx's `tsImport`, from a one-line bootstrap: Node 20 does not apply a `--import tsx`
 * loader to worker threads.
 */
function threadEntry(): { entry: URL | string; eval: boolean } {
  if (!import.meta.url.endsWith('.ts')) {
    return { entry: new URL('./writer-thread.js', import.meta.url), eval: false };
  }
  const source = JSON.stringify(new URL('./writer-thread.ts', import.meta.url).href);
  // tsx's ESM entry of its API (`require.resolve` would pick the CommonJS one).
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const api = pathToFileURL(join(dirname(manifest), 'dist', 'esm', 'api', 'index.mjs')).href;
  return {
    entry: `import(${JSON.stringify(api)}).then(({ tsImport }) => tsImport(${source}, ${source}))`,
    eval: true,
  };
}

/** Writes request/response pairs into rotating WARC files from a worker thread; see the file comment. */
export class ThreadedWarcWriter {
  readonly #writerOptions: WarcWriterOptions;
  readonly #threadHeapMb: number | undefined;
  readonly #onThreadExit: ((error: WarcError) => void) | undefined;
  #thread: WriterThread | undefined;
  // Writes of this turn of the event loop, posted together at its end.
  #queue: PendingWrite[] = [];
  #nextBatch = 0;
  #closing: Promise<void> | undefined;
  // Counters of the threads that have ended; the live one's are on #thread.
  readonly #past: ThreadCounters = { ...ZERO };
  readonly #repaired: RepairReport[] = [];
  #threadCrashes = 0;

  private constructor(options: ThreadedWarcWriterOptions) {
    const { threadHeapMb, onThreadExit, ...writerOptions } = options;
    if (threadHeapMb !== undefined && (!Number.isInteger(threadHeapMb) || threadHeapMb < 1)) {
      throw invalidOption('threadHeapMb', threadHeapMb, 'a positive integer');
    }
    this.#writerOptions = writerOptions;
    this.#threadHeapMb = threadHeapMb;
    this.#onThreadExit = onThreadExit;
  }

  /**
   * Starts the writer's thread, which creates the directory and repairs and closes this pod's
   * unfinished files (as {@link WarcWriter.open}); resolves once it has, rejects as it would.
   */
  static async open(options: ThreadedWarcWriterOptions): Promise<ThreadedWarcWriter> {
    const writer = new ThreadedWarcWriter(options);
    const thread = writer.#start();
    await new Promise<void>((resolve, reject) => {
      thread.opened = { resolve, reject, done: false };
    });
    return writer;
  }

  /** The directory written to. */
  get dir(): string {
    return this.#writerOptions.dir;
  }

  stats(): ThreadedWarcWriterStats {
    const live = this.#thread?.counters ?? ZERO;
    return {
      records: this.#past.records + live.records,
      bytes: this.#past.bytes + live.bytes,
      filesClosed: this.#past.filesClosed + live.filesClosed,
      errors: this.#past.errors + live.errors,
      repaired: [...this.#repaired],
      threadCrashes: this.#threadCrashes,
    };
  }

  /**
   * Archives one exchange as a response record followed by its request record; resolves, once
   * both are handed to the OS, with where the response record is.
   */
  write(exchange: WarcExchange): Promise<WarcLocation> {
    if (this.#closing) return Promise.reject(closedError());
    return new Promise<WarcLocation>((resolve, reject) => {
      this.#queue.push({ exchange, resolve, reject });
      // The first write of a turn schedules the post; later ones join its batch.
      if (this.#queue.length === 1) setImmediate(() => this.#flush());
    });
  }

  /**
   * Closes the current file (renamed without `.open`) after every earlier write, and ends the
   * thread; later writes are refused. After a thread crash, a new thread repairs and closes the
   * file the dead one left open.
   */
  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve, reject) => {
      this.#flush();
      const thread = this.#thread ?? this.#start();
      thread.closing = { resolve, reject };
      thread.worker.ref();
      this.#post(thread, { type: 'close' });
    });
    return this.#closing;
  }

  #start(): WriterThread {
    const { entry, eval: evaluate } = threadEntry();
    const worker = new Worker(entry, {
      eval: evaluate,
      workerData: this.#writerOptions,
      ...(this.#threadHeapMb === undefined
        ? {}
        : { resourceLimits: { maxOldGenerationSizeMb: this.#threadHeapMb } }),
    });
    const thread: WriterThread = {
      worker,
      batches: new Map(),
      counters: ZERO,
      opened: { resolve: () => undefined, reject: () => undefined, done: false },
    };
    worker.on('message', (message: FromWriterThread) => this.#onMessage(thread, message));
    worker.on('error', (error) => {
      thread.died = error;
    });
    worker.on('exit', (code) => this.#onExit(thread, code));
    this.#thread = thread;
    return thread;
  }

  /** Posts this turn's writes as one batch, starting a thread if the last one died. */
  #flush(): void {
    if (this.#queue.length === 0) return;
    const writes = this.#queue;
    this.#queue = [];
    const thread = this.#thread ?? this.#start();
    const batch = this.#nextBatch++;
    thread.batches.set(batch, writes);
    thread.worker.ref();
    // Each body copied into a buffer of its own and moved, not cloned: the caller still reads
    // its body, and a structured clone of the bytes costs the posting thread several times
    // more than one copy (`npm run bench -- warc/bench/writer`).
    const bodies: ArrayBuffer[] = [];
    const exchanges = writes.map(({ exchange }): WarcExchange => {
      const body = new Uint8Array(exchange.response.body);
      bodies.push(body.buffer);
      return { ...exchange, response: { ...exchange.response, body } };
    });
    this.#post(thread, { type: 'write', batch, exchanges }, bodies);
  }

  #post(thread: WriterThread, message: ToWriterThread, transfer: ArrayBuffer[] = []): void {
    try {
      thread.worker.postMessage(message, transfer);
    } catch (error) {
      // Not cloneable (a caller's bad exchange): only this batch fails.
      const failed = new WarcError(
        WarcErrorCode.IO,
        `WARC write failed: ${(error as Error).message}`,
        error,
      );
      if (message.type === 'write') this.#rejectBatch(thread, message.batch, failed);
      else thread.closing?.reject(failed);
    }
  }

  #onMessage(thread: WriterThread, message: FromWriterThread): void {
    switch (message.type) {
      case 'opened':
        this.#repaired.push(...message.repaired);
        thread.opened.done = true;
        thread.opened.resolve();
        break;
      case 'failed':
        thread.failed = fromThread(message.error);
        thread.opened.done = true;
        thread.opened.reject(thread.failed);
        break;
      case 'written': {
        const writes = thread.batches.get(message.batch) ?? [];
        thread.batches.delete(message.batch);
        thread.counters = message.counters;
        for (const [i, write] of writes.entries()) {
          const result = message.results[i]!;
          if ('error' in result) write.reject(fromThread(result.error));
          else write.resolve(result);
        }
        break;
      }
      case 'closed':
        thread.counters = message.counters;
        if (thread.closing && message.error) thread.closing.error = fromThread(message.error);
        break;
    }
    // An idle thread does not keep the process alive (a pod that exits without close() leaves
    // an `.open` file, repaired at its next start, as after a crash).
    if (thread.batches.size === 0 && !thread.closing && thread.opened.done) thread.worker.unref();
  }

  #onExit(thread: WriterThread, code: number): void {
    if (this.#thread === thread) this.#thread = undefined;
    for (const key of Object.keys(ZERO) as Array<keyof ThreadCounters>) {
      this.#past[key] += thread.counters[key];
    }
    // Ends on its own after a failed open or a close; anything else (an uncaught error, out of
    // memory, any exit before a close) is a crash, during a close too.
    const crashed = !thread.failed && (thread.died !== undefined || code !== 0 || !thread.closing);
    const error =
      thread.failed ??
      new WarcError(
        WarcErrorCode.THREAD,
        `WARC writer thread died: ${thread.died?.message ?? `exit code ${code}`}`,
        thread.died,
      );
    if (!thread.opened.done) thread.opened.reject(error);
    for (const batch of [...thread.batches.keys()]) this.#rejectBatch(thread, batch, error);
    if (crashed) {
      this.#threadCrashes += 1;
      this.#onThreadExit?.(error);
    }
    const closing = thread.closing;
    if (!closing) return;
    if (closing.error) closing.reject(closing.error);
    else if (crashed || thread.failed) closing.reject(error);
    else closing.resolve();
  }

  /** Fails every write of `batch` (they count as write errors). */
  #rejectBatch(thread: WriterThread, batch: number, error: WarcError): void {
    const writes = thread.batches.get(batch) ?? [];
    thread.batches.delete(batch);
    this.#past.errors += writes.length;
    for (const write of writes) write.reject(error);
  }
}
