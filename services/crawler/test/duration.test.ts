import { describe, expect, it } from 'vitest';
import { parseBudget, parseDuration } from '../src/duration.js';

describe('durations and budgets as operators write them', () => {
  it('reads units and bare ms', () => {
    expect(parseDuration('250')).toBe(250);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration(' 15m ')).toBe(900_000);
    expect(parseDuration('2h')).toBe(7_200_000);
    expect(parseDuration('7d')).toBe(604_800_000);
    expect(parseDuration('1w')).toBe(604_800_000);
    for (const bad of ['', '-1s', '1y', 'ms', '1 d', 'soon', '1e3']) {
      expect(parseDuration(bad), bad).toBeUndefined();
    }
  });

  it('reads <pages>/<period> budgets', () => {
    expect(parseBudget('1000/1d')).toEqual({ pages: 1000, periodMs: 86_400_000 });
    expect(parseBudget('5/500ms')).toEqual({ pages: 5, periodMs: 500 });
    for (const bad of ['1000', '0/1d', '10/0', 'x/1d', '10/', '1.5/1d']) {
      expect(parseBudget(bad), bad).toBeUndefined();
    }
  });
});
