/** Stable error codes of the `shardline` command; callers branch on these, never on messages. */
export const CliErrorCode = {
  /** An option or argument is missing, malformed or contradicts another (exit status 2). */
  USAGE: 'SHARDLINE_ERR_CLI_USAGE',
  /** Some input lines could not be used; the good ones were still processed (exit status 1). */
  INPUT: 'SHARDLINE_ERR_CLI_INPUT',
  /** A file named on the command line cannot be read (exit status 1). */
  IO: 'SHARDLINE_ERR_CLI_IO',
} as const;

export type CliErrorCode = (typeof CliErrorCode)[keyof typeof CliErrorCode];

/** Exit statuses: 0 success, 1 failed (bad input, unreadable file), 2 usage error. */
export const ExitCode = { OK: 0, FAILED: 1, USAGE: 2, INTERNAL: 70 } as const;

/**
 * An error the user caused. `run` prints its message as one line on stderr (no stack) and
 * exits with `exitCode`.
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly code: CliErrorCode;
  readonly exitCode: number;

  constructor(code: CliErrorCode, message: string) {
    super(message);
    this.code = code;
    this.exitCode = code === CliErrorCode.USAGE ? ExitCode.USAGE : ExitCode.FAILED;
  }
}

/** Shorthand for a usage error. */
export function usageError(message: string): CliError {
  return new CliError(CliErrorCode.USAGE, message);
}
