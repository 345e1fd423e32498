/**
 * Settings written as text — environment variables and command-line flags — to option values.
 * One parser for both, so `CONCURRENCY=8` and `--concurrency 8` accept the same spellings. It
 * checks syntax only; bounds are the pod's to check (`settings-resolve.ts`), so a value out of
 * range gets the same message whichever way it came in.
 */
import { DURATION_FORMS, parseDuration } from './duration.js';
import type { SettingKind, SettingValue } from './setting-kinds.js';

/** Builds the caller's error from what was expected (e.g. `'a non-negative integer'`). */
export type SettingTextError = (expected: string) => Error;

const TRUE = /^(1|true|yes|on)$/i;
const FALSE = /^(0|false|no|off)$/i;

/** A non-negative integer written in decimal digits (surrounding blanks allowed). */
export function parseIntText(raw: string, fail: SettingTextError): number {
  const value = raw.trim();
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw fail('a non-negative integer');
  }
  return Number(value);
}

function parseBool(value: string, fail: SettingTextError): boolean {
  if (TRUE.test(value)) return true;
  if (FALSE.test(value)) return false;
  throw fail('true/false (1/0, yes/no, on/off)');
}

/**
 * Parses the text of a setting of `kind`. Lists are comma-separated (blanks trimmed, empty
 * items dropped); `exit` takes a grace period in ms or a boolean.
 */
export function parseSettingText<K extends SettingKind>(
  kind: K,
  raw: string,
  fail: SettingTextError,
): SettingValue[K] {
  return parse(kind, raw, fail) as SettingValue[K];
}

function parse(kind: SettingKind, raw: string, fail: SettingTextError): unknown {
  const value = raw.trim();
  switch (kind) {
    case 'int':
      return parseIntText(raw, fail);
    case 'duration': {
      const ms = parseDuration(value);
      if (ms === undefined) throw fail(DURATION_FORMS);
      return ms;
    }
    case 'number': {
      const n = Number(value);
      if (value === '' || !Number.isFinite(n) || n < 0) throw fail('a number ≥ 0');
      return n;
    }
    case 'bool':
      return parseBool(value, fail);
    case 'string':
      if (value === '') throw fail('a non-empty string');
      return value;
    case 'list':
    case 'patterns':
      return splitList(value);
    case 'exit':
      return /^\d+$/.test(value) ? { graceMs: Number(value) } : parseBool(value, fail);
  }
}

/** `a, b,,c` → `['a', 'b', 'c']`. */
export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
