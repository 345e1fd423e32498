/** Environment settings of the frontier benches (not a bench itself: no `.bench.ts`). */

/**
 * The integer in environment variable `name` (or `fallback` when unset), between `min` and
 * `max`; anything else ends the bench with one line naming the variable, exit code 2.
 */
export function envInt(name: string, fallback: number, min: number, max: number): number {
  const text = process.env[name];
  const value = text === undefined ? fallback : Number(text);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    refuse(`${name} must be an integer from ${min} to ${max}, got ${text}`);
  }
  return value;
}

/** Ends the bench before it starts anything: `message` on stderr, exit code 2. */
export function refuse(message: string): never {
  console.error(message);
  process.exit(2);
}
