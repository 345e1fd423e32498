/** Stable codes of {@link RobotsError}; callers branch on these, never on the message. */
export const RobotsErrorCode = {
  INVALID_OPTION: 'SHARDLINE_ERR_ROBOTS_INVALID_OPTION',
  INVALID_URL: 'SHARDLINE_ERR_ROBOTS_INVALID_URL',
  INVALID_JSON: 'SHARDLINE_ERR_ROBOTS_INVALID_JSON',
} as const;
export type RobotsErrorCode = (typeof RobotsErrorCode)[keyof typeof RobotsErrorCode];

/** The one error class of `@shardline/robots`. */
export class RobotsError extends Error {
  override readonly name = 'RobotsError';
  readonly code: RobotsErrorCode;

  constructor(code: RobotsErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** `"1.5 (number)"`-style rendering of a bad value for error messages. */
export function describeValue(value: unknown): string {
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  let shown: string;
  try {
    shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  } catch {
    shown = '[unprintable]';
  }
  return `${shown.length > 80 ? `${shown.slice(0, 77)}...` : shown} (${type})`;
}
