import { createReadStream } from 'node:fs';
import { access, constants, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { CliError, CliErrorCode } from '../errors.js';

/** Code of a line longer than {@link MAX_LINE_BYTES} (reported with its number and length). */
export const LINE_TOO_LONG_CODE = 'SHARDLINE_ERR_CLI_LINE_TOO_LONG';
/** Code of a line that is not valid UTF-8 (never rewritten into a different URL). */
export const LINE_ENCODING_CODE = 'SHARDLINE_ERR_URL_ENCODING';

/**
 * The longest line kept. A URL is at most a few KiB (the canonicaliser's bound is 2 KiB plus
 * attributes); a longer line is rejected as a whole, whatever its size, without holding it.
 */
export const MAX_LINE_BYTES = 64 * 1024;

/** How much of a rejected line is kept for messages. */
const PREVIEW_BYTES = 120;

/** One meaningful input line: blank lines and `#` comments are already skipped. */
export interface InputLine {
  /** 1-based line number in the input. */
  number: number;
  /** The line without surrounding whitespace (a preview when the line is rejected). */
  text: string;
  /** Set when the line cannot be used at all (too long, not UTF-8). */
  rejection?: { code: string; reason: string };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Collects one line's bytes up to a bound; past it only counts them. */
class LineBuffer {
  #parts: Buffer[] = [];
  #total = 0;

  constructor(private readonly max: number) {}

  get empty(): boolean {
    return this.#total === 0;
  }

  add(piece: Buffer): void {
    const wasOver = this.#total > this.max;
    this.#total += piece.length;
    if (wasOver) return;
    if (this.#total <= this.max) {
      this.#parts.push(piece);
      return;
    }
    // Now over the bound: keep a copied preview only, so no chunk stays referenced.
    this.#parts = [Buffer.from(Buffer.concat([...this.#parts, piece]).subarray(0, PREVIEW_BYTES))];
  }

  /** The finished line, then resets. */
  take(number: number): InputLine | undefined {
    const total = this.#total;
    let bytes = Buffer.concat(this.#parts);
    this.#parts = [];
    this.#total = 0;
    if (total > this.max) {
      return {
        number,
        text: bytes.subarray(0, PREVIEW_BYTES).toString('utf8'),
        rejection: {
          code: LINE_TOO_LONG_CODE,
          reason: `line is ${total.toLocaleString('en-US')} bytes, over the ${this.max.toLocaleString('en-US')}-byte limit`,
        },
      };
    }
    if (bytes.at(-1) === 13) bytes = bytes.subarray(0, -1);
    let text: string;
    try {
      text = UTF8.decode(bytes).trim();
    } catch {
      return {
        number,
        text: bytes.subarray(0, PREVIEW_BYTES).toString('utf8').trim(),
        rejection: {
          code: LINE_ENCODING_CODE,
          reason: 'not valid UTF-8 (save the file as UTF-8, or percent-encode the bytes)',
        },
      };
    }
    if (text.length === 0 || text.startsWith('#')) return undefined;
    return { number, text };
  }
}

/**
 * Streams the meaningful lines of `input` (blank lines and lines starting with `#` are
 * skipped), without reading it whole: memory is bounded by `maxLineBytes` whatever the input.
 * Handles `\n` and `\r\n`. A line over `maxLineBytes` or not valid UTF-8 is yielded with a
 * `rejection` (its number and length or why), and reading goes on with the next line.
 */
export async function* meaningfulLines(
  input: Readable,
  maxLineBytes = MAX_LINE_BYTES,
): AsyncGenerator<InputLine> {
  const line = new LineBuffer(maxLineBytes);
  let number = 0;
  for await (const chunk of input) {
    const buf: Buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl < 0) {
        if (start < buf.length) line.add(buf.subarray(start));
        break;
      }
      line.add(buf.subarray(start, nl));
      number++;
      const done = line.take(number);
      if (done) yield done;
      start = nl + 1;
    }
  }
  if (!line.empty) {
    const done = line.take(number + 1);
    if (done) yield done;
  }
}

/**
 * Opens `path` (as bytes) for {@link meaningfulLines}; a missing or unreadable file, or a
 * directory, is a CliError before anything else starts (a directory opens, and failed only at
 * the first read: in `shardline crawl`, after Redis and the pod had started).
 */
export async function openLines(path: string): Promise<Readable> {
  try {
    await access(path, constants.R_OK);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CliError(CliErrorCode.IO, `cannot read ${JSON.stringify(path)} (${reason})`);
  }
  if ((await stat(path)).isDirectory()) {
    throw new CliError(
      CliErrorCode.IO,
      `cannot read ${JSON.stringify(path)} (EISDIR: a directory; give a file of one URL per line)`,
    );
  }
  return createReadStream(path);
}
