/**
 * The errors of the `shardline` command: one class ({@link CliError}) with a stable code
 * ({@link CliErrorCode}); callers branch on `code`, never on messages. `run` prints each as
 * one `error: …` line on stderr (no stack) and exits with its `exitCode`.
 */

/** Stable error codes of the `shardline` command (rows in `docs/errors.md`). */
export const CliErrorCode = {
  /** An option or argument is missing, malformed or contradicts another (exit status 2). */
  USAGE: 'SHARDLINE_ERR_CLI_USAGE',
  /** Some input lines could not be used; the good ones were still processed (exit status 1). */
  INPUT: 'SHARDLINE_ERR_CLI_INPUT',
  /** A file named on the command line cannot be read or written (exit status 1). */
  IO: 'SHARDLINE_ERR_CLI_IO',
  /** The embedded `redis-server` of `shardline crawl` could not start (exit status 1). */
  REDIS: 'SHARDLINE_ERR_CLI_REDIS',
  /** Redis did not answer (refused, timed out, closed), or none is configured (exit status 1). */
  REDIS_UNREACHABLE: 'SHARDLINE_ERR_CLI_REDIS_UNREACHABLE',
  /** The command needs something the frontier does not provide yet (exit status 1). */
  UNSUPPORTED: 'SHARDLINE_ERR_CLI_UNSUPPORTED',
  /** The frontier never saw the domain named on the command line (exit status 1). */
  UNKNOWN_DOMAIN: 'SHARDLINE_ERR_CLI_UNKNOWN_DOMAIN',
  /** Seeding stopped part-way (Redis refused a write); the counts before it were printed (1). */
  SEED_INTERRUPTED: 'SHARDLINE_ERR_CLI_SEED_INTERRUPTED',
  /** `crawl` was given seeds and fetched nothing (each failure was logged and summarised) (1). */
  NOTHING_FETCHED: 'SHARDLINE_ERR_CLI_NOTHING_FETCHED',
  /** A server of the command cannot listen on the address given (port taken) (exit status 1). */
  LISTEN: 'SHARDLINE_ERR_CLI_LISTEN',
  /** No live pod can own new URLs and no `--pods` was given (exit status 1). */
  NO_PODS: 'SHARDLINE_ERR_CLI_NO_PODS',
  /**
   * A crawl refused the command: it is being deleted (seeding, pausing), does not exist, has
   * live pods (`crawl delete` without `--force`), or is the default crawl (`crawl delete`) (1).
   */
  CRAWL: 'SHARDLINE_ERR_CLI_CRAWL',
} as const;

export type CliErrorCode = (typeof CliErrorCode)[keyof typeof CliErrorCode];

/** Exit statuses: 0 success, 1 failed, 2 usage error, 70 internal error. */
export const ExitCode = { OK: 0, FAILED: 1, USAGE: 2, INTERNAL: 70 } as const;

/**
 * An error the user or the environment caused (not a bug). `run` prints its message as one
 * line on stderr (no stack) and exits with `exitCode`: 2 for `USAGE`, else 1.
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
