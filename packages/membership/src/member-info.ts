/**
 * What a pod stores in its member record besides weight and session: diagnostics (host/pid)
 * and, optionally, the settings it runs with, so readers that are not pods (the CLI) can say
 * what a pod really does (e.g. the politeness delay) instead of assuming a default. Stored in
 * the heartbeat's `info` field: the bare diagnostics when there are no settings (as before),
 * else `{"info":…,"settings":{…}}`. Written at join, so it always matches the running pod.
 */
import { MembershipOptionsError } from './errors.js';

/** A setting a pod publishes: a number, a flag or a short word. */
export type PublishedSetting = number | boolean | string;
export type PublishedSettings = Readonly<Record<string, PublishedSetting>>;

/** One member's decoded `info`. */
export interface MemberInfo {
  /** Diagnostics (host/pid). */
  info: string;
  settings: Record<string, PublishedSetting>;
}

const MAX_SETTINGS = 16;
const SETTING_NAME = /^[A-Za-z][A-Za-z0-9]{0,63}$/;

/** Checks the `settings` option: at most 16 named numbers, flags or words of ≤ 100 characters. */
export function checkSettings(settings: unknown): PublishedSettings {
  const entries =
    settings !== null && typeof settings === 'object' && !Array.isArray(settings)
      ? Object.entries(settings)
      : undefined;
  const valid =
    entries !== undefined &&
    entries.length <= MAX_SETTINGS &&
    entries.every(
      ([name, value]) =>
        SETTING_NAME.test(name) &&
        ((typeof value === 'number' && Number.isFinite(value)) ||
          typeof value === 'boolean' ||
          (typeof value === 'string' && value.length <= 100)),
    );
  if (!valid) {
    throw new MembershipOptionsError(
      'settings',
      settings,
      `an object of ≤ ${MAX_SETTINGS} entries named [A-Za-z][A-Za-z0-9]* whose values are finite numbers, booleans or strings of ≤ 100 characters`,
    );
  }
  return Object.fromEntries(entries);
}

/** The heartbeat's `info` text (JSON escapes tabs and newlines, which the record separates on). */
export function encodeMemberInfo(info: string, settings: PublishedSettings): string {
  return Object.keys(settings).length === 0 ? info : JSON.stringify({ info, settings });
}

/** Decodes the `info` part of a member record; bare diagnostics (older pods) have no settings. */
export function decodeMemberInfo(text: string): MemberInfo {
  if (text.startsWith('{')) {
    try {
      const parsed = JSON.parse(text) as { info?: unknown; settings?: unknown };
      if (typeof parsed.info === 'string') {
        return { info: parsed.info, settings: { ...checkSettings(parsed.settings) } };
      }
    } catch {
      // Not ours: shown as bare diagnostics below.
    }
  }
  return { info: text, settings: {} };
}
