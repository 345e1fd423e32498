import type { Readable, Writable } from 'node:stream';

/** The streams a command reads and writes, and the exit status it reports. */
export interface CliContext {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Set by a command that finished but must exit non-zero (e.g. some bad input lines). */
  exitCode: number;
}
