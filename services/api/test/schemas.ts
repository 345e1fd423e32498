/** Response validation for tests: compiles the same schemas the server serialises with. */
import { Ajv } from 'ajv';
import { expect } from 'vitest';

const ajv = new Ajv({ strict: false, allErrors: true });

/** Asserts `body` matches `schema` (the route's response schema). */
export function expectSchema(schema: object, body: unknown): void {
  const validate = ajv.compile(schema);
  const ok = validate(body);
  expect(ok ? [] : validate.errors).toEqual([]);
}
