/** Creating shardline's state directories (`--data-dir`, the embedded Redis's) with one clear error. */
import { makeDirectory } from '@shardline/warc';
import { CliError, CliErrorCode } from '../errors.js';

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
