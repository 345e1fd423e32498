/**
 * What canonicalize-components.test.ts and canonicalize-options.test.ts share: the row type of
 * their tables of accepted URLs, and the `canonicalize accepts` tests run over each table.
 */
import { describe, expect, it } from 'vitest';
import { type CanonicalizeOptions, canonicalize } from '../src/index.js';

/**
 * A URL canonicalize() accepts, and its canonical form. Each expectation was checked against
 * `new URL()` in Node 20 for the WHATWG part; the rest (escapes, tracking parameters, trailing
 * dot, sorting) is what this package adds.
 */
export interface Accepted {
  name: string;
  input: string;
  options?: CanonicalizeOptions;
  url: string;
}

/** The canonical form of each case, and that the canonical form is a fixed point. */
export function describeAccepts(accepted: Accepted[]): void {
  describe('canonicalize accepts', () => {
    it.each(accepted)('$name', ({ input, options, url }) => {
      const result = canonicalize(input, options);
      expect(result.url).toBe(url);
    });

    it.each(accepted)('is idempotent and WHATWG-stable: $name', ({ input, options, url }) => {
      const once = canonicalize(input, options).url;
      expect(canonicalize(once, { ...options, base: undefined }).url).toBe(url);
      expect(new URL(once).href).toBe(once);
    });
  });
}
