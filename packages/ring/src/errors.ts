/** Stable error codes thrown by `@shardline/ring`; callers branch on these, never on messages. */
export const RingErrorCode = {
  /** A `HashRingOptions` value (or a member's weight) has the wrong type or is out of range. */
  INVALID_OPTION: 'SHARDLINE_ERR_RING_INVALID_OPTION',
  /** A member id is not a non-empty string of at most 255 characters without control characters. */
  INVALID_MEMBER: 'SHARDLINE_ERR_RING_INVALID_MEMBER',
  /** The same member id appears twice in one membership list (or `add` names an existing pod). */
  DUPLICATE_MEMBER: 'SHARDLINE_ERR_RING_DUPLICATE_MEMBER',
  /** `remove` names a pod that is not on the ring. */
  UNKNOWN_MEMBER: 'SHARDLINE_ERR_RING_UNKNOWN_MEMBER',
  /** `owner` / `owners` was asked on a ring without members. */
  EMPTY: 'SHARDLINE_ERR_RING_EMPTY',
  /** The ring would hold more than `MAX_TOKENS` tokens (Σ vnodes × weight). */
  TOO_LARGE: 'SHARDLINE_ERR_RING_TOO_LARGE',
  /** A synchronous constructor ran before `loadHasher()` resolved. */
  HASHER_NOT_LOADED: 'SHARDLINE_ERR_RING_HASHER_NOT_LOADED',
} as const;

export type RingErrorCode = (typeof RingErrorCode)[keyof typeof RingErrorCode];

/** The one error class of this package; branch on `code`. */
export class RingError extends Error {
  override readonly name = 'RingError';
  readonly code: RingErrorCode;

  constructor(code: RingErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** Error for a bad option; names the option, the value and its type. */
export function invalidOption(option: string, value: unknown, expected: string): RingError {
  return new RingError(
    RingErrorCode.INVALID_OPTION,
    `${option} must be ${expected}; got ${show(value)} (${describeType(value)})`,
  );
}

/** Shows a value in an error message without letting a huge string flood the log. */
export function show(value: unknown): string {
  if (typeof value === 'string') {
    const clipped = value.length > 80 ? `${value.slice(0, 80)}…` : value;
    return JSON.stringify(clipped);
  }
  if (typeof value === 'bigint') return `${value}n`;
  try {
    return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
  } catch {
    return String(value);
  }
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isFinite(value)) return 'non-finite number';
  return typeof value;
}
