import { createReadStream } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { CliError, CliErrorCode } from '../errors.js';

/** One meaningful input line: blank lines and `#` comments are already skipped. */
export interface InputLine {
  /** 1-based line number in the input. */
  number: number;
  /** The line without surrounding whitespace. */
  text: string;
}

/**
 * Streams the meaningful lines of `input` (blank lines and lines starting with `#` are
 * skipped), without reading it whole. Handles `\n` and `\r\n`.
 */
export async function* meaningfulLines(input: Readable): AsyncGenerator<InputLine> {
  const reader = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  for await (const raw of reader) {
    number++;
    const text = raw.trim();
    if (text.length === 0 || text.startsWith('#')) continue;
    yield { number, text };
  }
}

/** Opens `path` for {@link meaningfulLines}; a missing or unreadable file is a CliError. */
export async function openLines(path: string): Promise<Readable> {
  try {
    await access(path, constants.R_OK);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CliError(CliErrorCode.IO, `cannot read ${JSON.stringify(path)} (${reason})`);
  }
  return createReadStream(path, { encoding: 'utf8' });
}
