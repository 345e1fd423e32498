/**
 * What {@link ThreadedWarcWriter} and its worker thread (`writer-thread.ts`) say to each other.
 * Exchanges cross by structured clone, each body in a copy of its own that is transferred (the
 * pipeline still reads the original after the archive stage); errors cross as code and message.
 */
import type { WarcErrorCode } from './errors.js';
import type { WarcExchange } from './records.js';
import type { RepairReport } from './repair.js';
import type { WarcLocation, WarcWriterStats } from './warc-writer.js';

/** The thread's counters, sent with every answer. */
export type ThreadCounters = Omit<WarcWriterStats, 'repaired'>;

/** An error as it crosses the thread boundary. */
export interface ThreadError {
  code: WarcErrorCode;
  message: string;
}

/** To the thread. */
export type ToWriterThread =
  /** Exchanges to append in this order; answered by one `written` with the same `batch`. */
  | { type: 'write'; batch: number; exchanges: WarcExchange[] }
  /** After every write sent before it: close the current file, answer `closed`, then exit. */
  | { type: 'close' };

/** From the thread. */
export type FromWriterThread =
  /** The writer opened (its repairs done); writes are taken. */
  | { type: 'opened'; repaired: RepairReport[] }
  /** The writer could not open; the thread exits. */
  | { type: 'failed'; error: ThreadError }
  /** Where each exchange of `batch` went, or why it was not written, in the batch's order. */
  | {
      type: 'written';
      batch: number;
      results: Array<WarcLocation | { error: ThreadError }>;
      counters: ThreadCounters;
    }
  /** The current file is closed (or `error` says why not); the thread exits. */
  | { type: 'closed'; counters: ThreadCounters; error?: ThreadError };
