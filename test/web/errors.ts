/** Errors thrown by the test web. Callers branch on `code`. */

/** An option passed to {@link startTestWeb} is invalid. */
export class TestWebOptionsError extends Error {
  override readonly name = 'TestWebOptionsError';
  readonly code = 'SHARDLINE_ERR_TESTWEB_OPTIONS';
  readonly option: string;

  constructor(option: string, value: unknown, expected: string) {
    super(
      `test web option "${option}" must be ${expected}; got ${JSON.stringify(value)} (${typeof value})`,
    );
    this.option = option;
  }
}
