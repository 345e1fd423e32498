/**
 * Streams seed lines into the frontier in batches: parse (see `seed-line.ts`), enqueue a
 * batch, count and report its results, read on. One batch is in memory at a time and the
 * line reader pauses its input while a batch is written, so memory stays flat for any
 * number of lines. `shardline seed` and `shardline crawl` both seed through here.
 */
import type { EnqueueItem, EnqueueReport } from '@shardline/frontier';
import type { InputLine } from './lines.js';
import { parseSeedLine, type SeedDefaults } from './seed-line.js';
import type { SeedCounts } from './seed-progress.js';

/** One rejected line: its number, the input (as read), why. */
export interface SeedRejection {
  line: number;
  input: string;
  code: string;
  reason: string;
}

/**
 * Enqueueing failed part-way (Redis refused a write, the connection went): `counts` are the
 * lines of the batches that were fully written before it; the failing batch (`pendingLines`
 * lines) may be partly queued — seeding it again is safe, duplicates are skipped.
 */
export class SeedInterruptedError extends Error {
  override readonly name = 'SeedInterruptedError';
  constructor(
    readonly counts: SeedCounts,
    readonly pendingLines: number,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** What the seeder needs from the frontier. */
export interface SeedTarget {
  enqueue(items: readonly EnqueueItem[]): Promise<EnqueueReport>;
}

/** Options of {@link seedLines}. */
export interface SeedOptions {
  /** Lines per `enqueue` call. @default 1000 */
  batchLines?: number;
  defaults?: SeedDefaults;
  /** Called for each rejected line, in input order (awaited: it may write a file). */
  onReject: (rejection: SeedRejection) => void | Promise<void>;
  /** Called after each batch with the running counts. */
  onProgress?: (counts: SeedCounts) => void;
}

/** Seeds every line of `lines`; returns the counts (also passed to `onProgress`). */
export async function seedLines(
  target: SeedTarget,
  lines: AsyncIterable<InputLine>,
  options: SeedOptions,
): Promise<SeedCounts> {
  const batchLines = options.batchLines ?? 1000;
  const counts: SeedCounts = { lines: 0, queued: 0, duplicates: 0, overCap: 0, rejected: 0 };
  // Parse failures and enqueue results are reported together, in line order.
  let batch: { line: InputLine; item?: Exclude<EnqueueItem, string>; bad?: SeedRejection }[] = [];

  const flush = async () => {
    const items = batch.flatMap((entry) => (entry.item ? [entry.item] : []));
    let report: EnqueueReport | undefined;
    try {
      report = items.length > 0 ? await target.enqueue(items) : undefined;
    } catch (error) {
      throw new SeedInterruptedError({ ...counts }, batch.length, error);
    }
    let k = 0;
    for (const entry of batch) {
      let rejection = entry.bad;
      if (entry.item) {
        const result = report!.results[k++]!;
        if (result.status === 'queued') counts.queued++;
        else if (result.status === 'duplicate') counts.duplicates++;
        else if (result.status === 'over-cap') counts.overCap++;
        else {
          rejection = {
            line: entry.line.number,
            input: entry.line.text,
            code: result.code ?? 'SHARDLINE_ERR_FRONTIER_INPUT',
            reason: result.reason ?? 'rejected',
          };
        }
      }
      if (rejection) {
        counts.rejected++;
        await options.onReject(rejection);
      }
    }
    counts.lines += batch.length;
    batch = [];
    options.onProgress?.({ ...counts });
  };

  for await (const line of lines) {
    const parsed = line.rejection
      ? { ok: false as const, ...line.rejection }
      : parseSeedLine(line.text, options.defaults);
    batch.push(
      parsed.ok
        ? { line, item: parsed.item }
        : {
            line,
            bad: { line: line.number, input: line.text, code: parsed.code, reason: parsed.reason },
          },
    );
    if (batch.length >= batchLines) await flush();
  }
  if (batch.length > 0) await flush();
  return counts;
}
