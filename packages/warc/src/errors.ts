/** Stable error codes thrown by `@shardline/warc`; callers branch on these, never on messages. */
export const WarcErrorCode = {
  /** A `WarcWriterOptions` value has the wrong type or range. */
  INVALID_OPTION: 'SHARDLINE_ERR_WARC_INVALID_OPTION',
  /** Writing, repairing or closing a WARC file failed (disk full, permissions, …). */
  IO: 'SHARDLINE_ERR_WARC_IO',
  /** `write` after `close`. */
  CLOSED: 'SHARDLINE_ERR_WARC_CLOSED',
  /**
   * The writer's worker thread died (out of memory, an uncaught error) with these records in
   * its hands: they may be partly written; the next write starts a new thread, which repairs.
   */
  THREAD: 'SHARDLINE_ERR_WARC_THREAD',
  /** `readRecordAt` found no complete WARC record at the offset. */
  NO_RECORD: 'SHARDLINE_ERR_WARC_NO_RECORD',
  /** `writeCdxj`: a `.warc.gz` ends inside a record (cut short); the whole records were indexed. */
  DAMAGED: 'SHARDLINE_ERR_WARC_DAMAGED',
  /** `writeCdxj`: a file does not start with a WARC record (the others were indexed). */
  NOT_WARC: 'SHARDLINE_ERR_WARC_NOT_WARC',
} as const;

export type WarcErrorCode = (typeof WarcErrorCode)[keyof typeof WarcErrorCode];

/** The one error class of this package; branch on `code`. */
export class WarcError extends Error {
  override readonly name = 'WarcError';
  readonly code: WarcErrorCode;

  constructor(code: WarcErrorCode, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
  }
}

/** Error for a bad option; names the option, the value and its type. */
export function invalidOption(option: string, value: unknown, expected: string): WarcError {
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return new WarcError(
    WarcErrorCode.INVALID_OPTION,
    `WarcWriterOptions.${option} must be ${expected}; got ${shown} (${type})`,
  );
}
