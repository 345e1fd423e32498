/**
 * shardline's state directory (`--data-dir`) of `crawl`, `up` and the commands that read what
 * they left: its default, where WARC files go in it, and creating it with one clear error.
 */
import { join } from 'node:path';
import { makeDirectory } from '@shardline/warc';
import { CliError, CliErrorCode } from '../errors.js';

/** `--data-dir` when none is given. */
export const DEFAULT_DATA_DIR = './.shardline';

/** Where a crawl with this state directory writes its WARC files unless told (`--warc-dir`). */
export function warcDirOf(dataDir: string): string {
  return join(dataDir, 'warc');
}

/** Creates `dir` and its parents; a refusal is one `CliError` naming the directory and why. */
export function createDataDir(dir: string): void {
  try {
    makeDirectory(dir);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new CliError(
      CliErrorCode.IO,
      `cannot create the directory ${dir} (${code ?? message}): give --data-dir a directory you can write to`,
    );
  }
}
