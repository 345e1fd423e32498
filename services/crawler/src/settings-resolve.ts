/**
 * The pod's option validation, driven by the settings table: each option is checked against
 * its kind and bounds, or takes its default. A bad value throws
 * `SHARDLINE_ERR_CRAWLER_INVALID_OPTION` naming the option, the value and its type.
 */
import { check, invalidOption } from './errors.js';
import type { ResolvedSoFar, Setting, SettingValue } from './setting-kinds.js';
import { type PodSettingOptions, type PodSettings, podSettingRows } from './settings.js';

const OWNER = 'CrawlerPodOptions';
/** Grace period of `exitWhenIdle: true` (and of `{}`). */
const EXIT_GRACE_MS = 2000;

/** Validates the settings among `options` (in table order) and applies the defaults. */
export function resolvePodSettings(options: PodSettingOptions): PodSettings {
  const given = options as Readonly<Record<string, unknown>>;
  const resolved: Record<string, unknown> = {};
  for (const [name, setting] of podSettingRows()) {
    const raw = given[name];
    let value = raw === undefined ? defaultOf(setting, resolved) : checked(name, setting, raw);
    if (setting.kind === 'exit') value = exitGraceMs(value as SettingValue['exit']);
    if (value !== undefined && setting.refine) {
      const expected = (setting.refine as (v: unknown, s: ResolvedSoFar) => string | undefined)(
        value,
        resolved,
      );
      if (expected !== undefined) throw invalidOption(OWNER, name, value, expected);
    }
    resolved[name] = value;
  }
  return resolved as PodSettings;
}

function defaultOf(setting: Setting, resolved: ResolvedSoFar): unknown {
  const fallback = setting.default;
  return typeof fallback === 'function' ? fallback(resolved) : fallback;
}

/** The value of a given option, checked against its kind and bounds. */
function checked(name: string, setting: Setting, value: unknown): unknown {
  const min = setting.min ?? 0;
  switch (setting.kind) {
    case 'int':
    case 'duration':
      return check.int(OWNER, name, value, 0, min, setting.max);
    case 'number': {
      const ok = typeof value === 'number' && Number.isFinite(value);
      if (!ok || (setting.minExclusive ? value <= min : value < min)) {
        const bound = `${setting.minExclusive ? '>' : '≥'} ${min}`;
        throw invalidOption(OWNER, name, value, `a finite number ${bound}`);
      }
      return value;
    }
    case 'bool':
      return check.bool(OWNER, name, value, false);
    case 'string':
      return check.string(OWNER, name, value, '');
    case 'list':
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
        throw invalidOption(OWNER, name, value, 'an array of strings');
      }
      return value;
    case 'patterns':
      if (
        !Array.isArray(value) ||
        !value.every((item) => typeof item === 'string' || item instanceof RegExp)
      ) {
        throw invalidOption(OWNER, name, value, 'an array of strings and RegExps');
      }
      return value;
    case 'exit':
      if (typeof value === 'boolean' || (typeof value === 'object' && value !== null)) {
        return value;
      }
      throw invalidOption(OWNER, name, value, 'a boolean or { graceMs }');
  }
}

function exitGraceMs(exit: SettingValue['exit']): number | undefined {
  if (exit === false) return undefined;
  if (exit === true) return EXIT_GRACE_MS;
  return check.int(OWNER, 'exitWhenIdle.graceMs', exit.graceMs, EXIT_GRACE_MS, 0);
}
