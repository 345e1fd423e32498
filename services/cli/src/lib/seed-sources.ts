/**
 * Where seed lines come from, for `shardline seed` and `shardline crawl` alike: command-line
 * arguments, a file (`--seeds-file`, streamed) and, for `seed`, stdin. Each source is read
 * lazily by `meaningfulLines`, so a file of any size costs one line and one batch of memory.
 */
import type { ReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { usageError } from '../errors.js';
import { type InputLine, meaningfulLines, openLines } from './lines.js';

/** One input of seed lines. */
export interface SeedSource {
  /** `arg` for command-line URLs, `line` for stdin and files (used in messages). */
  unit: 'arg' | 'line';
  /** `args`, `stdin` or the file's path. */
  name: string;
  lines: () => AsyncIterable<InputLine>;
  totalBytes?: number;
  bytesRead?: () => number;
}

/** What to read: arguments, a file (`-` = stdin), and whether stdin is the default input. */
export interface SeedInputs {
  urls: readonly string[];
  file?: string;
  /** Read stdin when neither URLs nor a file are given (`seed`; not `crawl`). */
  stdin?: Readable & { isTTY?: boolean };
}

async function* argLines(urls: readonly string[]): AsyncGenerator<InputLine> {
  for (let i = 0; i < urls.length; i++) {
    const text = urls[i]!.trim();
    if (text.length > 0 && !text.startsWith('#')) yield { number: i + 1, text };
  }
}

/** The sources named by `inputs`; a file that cannot be read is a CliError before anything. */
export async function seedSources(inputs: SeedInputs): Promise<SeedSource[]> {
  const { urls, file, stdin } = inputs;
  const out: SeedSource[] = [];
  if (urls.length > 0) out.push({ unit: 'arg', name: 'args', lines: () => argLines(urls) });
  if (file !== undefined && file !== '-') {
    const stream = (await openLines(file)) as ReadStream;
    const { size } = await stat(file);
    out.push({
      unit: 'line',
      name: file,
      lines: () => meaningfulLines(stream),
      totalBytes: size,
      bytesRead: () => stream.bytesRead,
    });
  } else if (stdin && (file === '-' || urls.length === 0)) {
    if (stdin.isTTY && file !== '-') {
      throw usageError(
        'no seeds: give URLs as arguments, --seeds-file FILE, or pipe lines on stdin',
      );
    }
    out.push({ unit: 'line', name: 'stdin', lines: () => meaningfulLines(stdin) });
  }
  return out;
}
