/**
 * Sorts newline-terminated lines in byte order (`LC_ALL=C sort`) with bounded memory: up to
 * `runLines` lines are held and sorted in memory; past that each full batch is written to a
 * temporary file as a sorted run, and the runs are merged at the end. A crawl's CDXJ index
 * has a line per page (~300 B): ten million pages would otherwise hold ~3 GB at once.
 */
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Lines held in memory before a sorted run goes to disk (~150 MB of CDXJ). */
export const DEFAULT_RUN_LINES = 500_000;

export class LineSorter {
  readonly #runLines: number;
  readonly #tmpRoot: string;
  #held: Buffer[] = [];
  #dir: string | undefined;
  readonly #runs: string[] = [];

  constructor(options: { runLines?: number; tmpDir?: string } = {}) {
    this.#runLines = options.runLines ?? DEFAULT_RUN_LINES;
    this.#tmpRoot = options.tmpDir ?? tmpdir();
  }

  /** Adds one line (ending in `\n`). */
  add(line: string): void {
    this.#held.push(Buffer.from(line));
    if (this.#held.length >= this.#runLines) this.#spill();
  }

  /** Writes every line added, in byte order, then removes the runs on disk. */
  async drain(write: (line: string) => void): Promise<void> {
    try {
      if (this.#runs.length === 0) {
        for (const line of this.#held.sort(Buffer.compare)) write(line.toString());
        return;
      }
      if (this.#held.length > 0) this.#spill();
      await mergeRuns(this.#runs, write);
    } finally {
      this.discard();
    }
  }

  /** Drops what was added and the runs on disk (also when the caller gives up). */
  discard(): void {
    this.#held = [];
    if (this.#dir) rmSync(this.#dir, { recursive: true, force: true });
    this.#dir = undefined;
    this.#runs.length = 0;
  }

  #spill(): void {
    this.#dir ??= mkdtempSync(join(this.#tmpRoot, 'shardline-sort-'));
    const file = join(this.#dir, `run-${this.#runs.length}`);
    writeFileSync(file, Buffer.concat(this.#held.sort(Buffer.compare)));
    this.#runs.push(file);
    this.#held = [];
  }
}

/** K-way merge of sorted run files: the smallest head in byte order goes out next. */
async function mergeRuns(files: string[], write: (line: string) => void): Promise<void> {
  const readers = files.map((file) => linesOf(file));
  try {
    const heads = await Promise.all(readers.map(nextLine));
    for (;;) {
      let min = -1;
      for (let i = 0; i < heads.length; i++) {
        const head = heads[i];
        if (head && (min < 0 || Buffer.compare(head, heads[min]!) < 0)) min = i;
      }
      if (min < 0) return;
      write(heads[min]!.toString());
      heads[min] = await nextLine(readers[min]!);
    }
  } finally {
    // Closes the files of runs not read to their end (a write that threw).
    await Promise.all(readers.map((reader) => reader.return(undefined)));
  }
}

async function nextLine(lines: AsyncGenerator<Buffer>): Promise<Buffer | null> {
  const { value, done } = await lines.next();
  return done ? null : value;
}

/** The lines of a run file, each with its `\n`: split on the byte, as the sort compares bytes. */
async function* linesOf(file: string): AsyncGenerator<Buffer> {
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    let data: Buffer = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    for (let end = data.indexOf(10); end >= 0; end = data.indexOf(10)) {
      yield data.subarray(0, end + 1);
      data = data.subarray(end + 1);
    }
    rest = data;
  }
  if (rest.length > 0) yield rest;
}
