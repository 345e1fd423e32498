import { describe, expect, it } from 'vitest';
import { ROBOTS_CACHE_TTL_MS, ROBOTS_MAX_REDIRECTS, robotsTxtStatusPolicy } from '../src/index.js';

describe('robotsTxtStatusPolicy (RFC 9309 §2.3.1)', () => {
  it.each([
    [200, 'parse'],
    [203, 'parse'],
    [299, 'parse'],
    [301, 'redirect'],
    [308, 'redirect'],
    [400, 'allow-all'],
    [403, 'allow-all'],
    [404, 'allow-all'],
    [451, 'allow-all'],
    [429, 'disallow-all'],
    [500, 'disallow-all'],
    [599, 'disallow-all'],
    [100, 'disallow-all'],
    [0, 'disallow-all'],
    [600, 'disallow-all'],
    [200.5, 'disallow-all'],
    [Number.NaN, 'disallow-all'],
  ])('%s → %s', (status, policy) => {
    expect(robotsTxtStatusPolicy(status)).toBe(policy);
  });

  it('exports the RFC bounds', () => {
    expect(ROBOTS_MAX_REDIRECTS).toBe(5);
    expect(ROBOTS_CACHE_TTL_MS).toBeLessThanOrEqual(24 * 60 * 60 * 1000);
  });
});
