/**
 * The shape of a row of the settings table (`settings.ts`): kinds, their value types, and what
 * a row may say about defaults, bounds and its flag.
 */

/** How a setting's value is written and checked. */
export type SettingKind =
  | 'int'
  | 'duration'
  | 'number'
  | 'bool'
  | 'string'
  | 'list'
  | 'patterns'
  | 'exit';

/** The option type of each kind. */
export interface SettingValue {
  int: number;
  /** Milliseconds; from text also `30s`, `15m`, `2h`, `7d` (see `duration.ts`). */
  duration: number;
  number: number;
  bool: boolean;
  string: string;
  /** From text: comma-separated (a flag may also repeat). */
  list: string[];
  /** Like `list`; an option may also hold RegExps. */
  patterns: (string | RegExp)[];
  /** `true`, or a grace period (text: a number of ms, or a boolean). */
  exit: boolean | { graceMs?: number };
}

/** The settings resolved before the one being resolved (table order), by option name. */
export type ResolvedSoFar = Readonly<Record<string, unknown>>;

export interface SettingRow<K extends SettingKind> {
  /** Environment variable read by `loadConfig`. */
  env: string;
  /** `shardline crawl` flag, without the leading `--`. */
  flag: string;
  kind: K;
  /** One line for `--help` and the README; the unit is in the option name. */
  doc: string;
  /**
   * Value when the option is not given: a value, or a function of the settings before it
   * (table order). Without one an unset option stays `undefined`.
   */
  default?: SettingValue[K] | ((resolved: ResolvedSoFar) => SettingValue[K]);
  /** How help and README show the default when it is not a plain value. */
  defaultText?: string;
  /** Least value (`int`, `duration`, `number`). @default 0 */
  min?: number;
  /** `min` itself is refused (`number`). */
  minExclusive?: boolean;
  /** Greatest value (`int`, `duration`). @default Number.MAX_SAFE_INTEGER */
  max?: number;
  /** A check after the kind's: returns what was expected when the value is refused. */
  refine?: (value: SettingValue[K], resolved: ResolvedSoFar) => string | undefined;
  /** The value placeholder in help (`--pod-id <id>`). @default `n` for numbers, else `value` */
  arg?: string;
  /** Belongs to one pod: `shardline up` does not pass it to every pod. */
  perPod?: boolean;
}

/** One row of {@link POD_SETTINGS}. */
export type Setting = { [K in SettingKind]: SettingRow<K> }[SettingKind];

/** How help and the README show a row's default: its `defaultText`, else its value. */
export function defaultText(row: { default?: unknown; defaultText?: string }): string {
  if (row.defaultText !== undefined) return row.defaultText;
  const value = row.default;
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(',');
  return String(value);
}
