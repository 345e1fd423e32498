/**
 * Errors of the Redis-backed commands (seed, stats, domains, …). Like `CliError` they are
 * printed by `run` as one `error: …` line with no stack trace; they carry codes that
 * `CliErrorCode` does not list (yet), so they live apart until the lead merges them.
 */

/** Stable codes of {@link CommandError}. */
export const CommandErrorCode = {
  /** Redis did not answer (refused, timed out, closed), or none is configured. Exit 1. */
  REDIS_UNREACHABLE: 'SHARDLINE_ERR_CLI_REDIS_UNREACHABLE',
  /** The command needs something the frontier or membership does not provide yet. Exit 1. */
  UNSUPPORTED: 'SHARDLINE_ERR_CLI_UNSUPPORTED',
  /** The frontier never saw the domain named on the command line. Exit 1. */
  UNKNOWN_DOMAIN: 'SHARDLINE_ERR_CLI_UNKNOWN_DOMAIN',
  /** No pod can own new URLs: no pods registered and no `--pods`. Exit 1. */
  NO_PODS: 'SHARDLINE_ERR_CLI_NO_PODS',
} as const;

export type CommandErrorCode = (typeof CommandErrorCode)[keyof typeof CommandErrorCode];

/** A failure of a Redis-backed command: one line on stderr, exit status 1. */
export class CommandError extends Error {
  override readonly name = 'CommandError';
  readonly code: CommandErrorCode;
  readonly exitCode = 1;

  constructor(code: CommandErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
