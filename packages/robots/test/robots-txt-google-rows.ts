/**
 * The row format and the table-driven tests shared by robots-txt-google-groups.test.ts and
 * robots-txt-google-paths.test.ts, the port of google/robotstxt `robots_test.cc`.
 */
import { describe, expect, it } from 'vitest';
import { RobotsTxt } from '../src/index.js';

export interface Row {
  test: string;
  robots: string;
  ua: string;
  url: string;
  allowed: boolean;
  differs?: string;
}

export const row = (
  test: string,
  robots: string,
  ua: string,
  url: string,
  allowed: boolean,
  differs?: string,
): Row =>
  differs === undefined
    ? { test, robots, ua, url, allowed }
    : { test, robots, ua, url, allowed, differs };

/** Each row: whether `ua` may fetch `url` under `robots`. */
export function describeRows(rows: Row[]): void {
  describe('google/robotstxt robots_test.cc', () => {
    it.each(rows)('$test: $ua $url → $allowed', ({ robots, ua, url, allowed }) => {
      expect(RobotsTxt.parse(robots).isAllowed(url, ua)).toBe(allowed);
    });
  });
}
