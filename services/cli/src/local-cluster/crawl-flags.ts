/**
 * The pod settings as command-line flags, generated from the crawler's settings table
 * (`POD_SETTINGS`): `shardline crawl` parses them into pod options (a flag beats its
 * environment variable); `shardline up` checks the ones every pod shares and hands them to each
 * pod unchanged — declared, not taken as unknown options, so `up --help` lists them and a typo
 * fails at once instead of crash-looping N pods.
 */
import {
  CrawlerError,
  defaultText,
  POD_SETTINGS,
  type PodSettingOptions,
  type PodSettings,
  PROCESS_SETTINGS,
  parseIntText,
  parseSettingText,
  podSettingRows,
  resolvePodSettings,
  type Setting,
  type SettingTextError,
  splitList,
} from '@shardline/crawler/settings';
import { Command, Option } from 'commander';
import { usageError } from '../errors.js';

/** Help group of the pass-through options of `up`. */
const UP_GROUP = 'Crawl options (passed to every pod):';
/** Help group of the pod settings of `crawl`. */
const CRAWL_GROUP = 'Pod settings (each also an environment variable):';

function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/**
 * The parsed value of `--<flag>`: commander keeps a negated flag (`--no-warc`) under the positive
 * name (`warc`), `true` unless given; the setting (`noWarc`) is then `true` when it was given.
 */
function flagValue(flags: Record<string, unknown>, flag: string): unknown {
  if (flag.startsWith('no-')) return flags[camel(flag.slice(3))] === false ? true : undefined;
  return flags[camel(flag)];
}

function flagError(flag: string, value: string): SettingTextError {
  return (expected) => usageError(`--${flag} must be ${expected}, got ${JSON.stringify(value)}`);
}

/** Help of `--config` (on `crawl`, `up` and `config`). */
export const CONFIG_FLAG_HELP =
  'config file (YAML or JSON) of settings by option name, e.g. minDelayMs: 500 (env SHARDLINE_CONFIG, default shardline.yaml in --data-dir, then the working directory); precedence: flag > env > file > default';

/** A flag's parser of a non-negative integer (`--redis-port 6380`). */
export function intFlag(flag: string): (value: string) => number {
  return (value) => parseIntText(value, flagError(flag, value));
}

/** A flag's parser of a TCP port, 0-65535 (`--health-port 8081`). */
export function portFlag(flag: string): (value: string) => number {
  return (value) => {
    const port = parseIntText(value, flagError(flag, value));
    if (port > 65_535) throw flagError(flag, value)('a port number (0-65535)');
    return port;
  };
}

/** `<doc> (env <ENV>, default <value>)`: the help line of a setting. */
export function settingHelp(row: {
  doc: string;
  env: string;
  default?: unknown;
  defaultText?: string;
}): string {
  return `${row.doc} (env ${row.env}, default ${defaultText(row)})`;
}

/**
 * `--exit-when-idle` is a switch (so `crawl --exit-when-idle http://…` keeps its URL); its
 * grace period has its own flag. The environment keeps EXIT_WHEN_IDLE=true|<graceMs>.
 */
export const IDLE_GRACE_FLAG = 'idle-grace-ms';
const IDLE_GRACE_HELP =
  'with --exit-when-idle: how long nothing may be queued or in flight before the pod stops (default 2000)';

function placeholder(setting: Setting): string {
  if (setting.kind === 'duration') return setting.arg ?? 'duration';
  return setting.arg ?? (setting.kind === 'int' || setting.kind === 'number' ? 'n' : 'value');
}

/** The option of one setting; `parse` turns each given value into what the command keeps. */
function settingOption(
  setting: Setting,
  parse: (value: string, previous: unknown) => unknown,
): Option {
  const { flag, kind } = setting;
  const help = settingHelp(setting);
  if (kind === 'bool' || kind === 'exit') return new Option(`--${flag}`, help);
  return new Option(`--${flag} <${placeholder(setting)}>`, help).argParser(parse);
}

/**
 * Shorter spellings users reach for, each switching on the setting it stands for; hidden from
 * the help, which names each setting once.
 */
const SWITCH_ALIASES: readonly (readonly [alias: string, flag: string])[] = [
  ['allow-private', 'allow-private-addresses'],
];

function addSwitchAliases(command: Command): void {
  for (const [alias, flag] of SWITCH_ALIASES) {
    command.addOption(
      new Option(`--${alias}`, `short for --${flag}`).hideHelp().implies({ [camel(flag)]: true }),
    );
  }
}

/** Adds every pod setting's flag to `shardline crawl`; read them with {@link podOptionsFromFlags}. */
export function addPodSettingFlags(command: Command): Command {
  for (const [, setting] of podSettingRows()) {
    const { flag, kind } = setting;
    const option = settingOption(setting, (value, previous) => {
      const fail = flagError(flag, value);
      if (kind === 'list' || kind === 'patterns') {
        // Repeatable and comma-separated.
        return [...((previous as string[] | undefined) ?? []), ...splitList(value)];
      }
      return parseSettingText(kind, value, fail);
    });
    command.addOption(option.helpGroup(CRAWL_GROUP));
    if (kind === 'exit') {
      command.addOption(
        new Option(`--${IDLE_GRACE_FLAG} <ms>`, IDLE_GRACE_HELP)
          .argParser(intFlag(IDLE_GRACE_FLAG))
          .helpGroup(CRAWL_GROUP),
      );
    }
  }
  addSwitchAliases(command);
  return command;
}

/** The pod options the flags of {@link addPodSettingFlags} gave (unset ones left out). */
export function podOptionsFromFlags(flags: Record<string, unknown>): PodSettingOptions {
  const options: Record<string, unknown> = {};
  for (const [name, setting] of podSettingRows()) {
    let value = flagValue(flags, setting.flag);
    if (setting.kind === 'exit') {
      const graceMs = flags[camel(IDLE_GRACE_FLAG)];
      if (graceMs !== undefined && value !== true) {
        throw usageError(`--${IDLE_GRACE_FLAG} needs --${setting.flag}`);
      }
      if (value === true && graceMs !== undefined) value = { graceMs };
    }
    if (value !== undefined) options[name] = value;
  }
  return options as PodSettingOptions;
}

/**
 * Checks the pod settings against the pod's own bounds (`resolvePodSettings`) before Redis or a
 * pod starts, naming where a bad value came from: `--resolve must be …`, not the pod's
 * `CrawlerPodOptions.resolve`. `flagOptions` were given as flags, `configured` by the
 * environment or the config file (whose values were checked when it was read). Returns the
 * effective settings (defaults applied).
 */
export function checkPodSettings(
  flagOptions: PodSettingOptions,
  configured: PodSettingOptions,
): PodSettings {
  try {
    return resolvePodSettings({ ...configured, ...flagOptions });
  } catch (error) {
    if (!(error instanceof CrawlerError) || !error.option) throw error;
    const { name, expected } = error.option;
    const row = POD_SETTINGS[name as keyof typeof POD_SETTINGS] as Setting | undefined;
    // A part of a setting (exitWhenIdle.graceMs) keeps the pod's own words.
    if (!row) throw usageError(error.message);
    const given = flagOptions as Readonly<Record<string, unknown>>;
    const byFlag = given[name] !== undefined;
    const value = (byFlag ? given : (configured as Readonly<Record<string, unknown>>))[name];
    const shown = Array.isArray(value) ? value.join(',') : value;
    const source = byFlag ? `--${row.flag}` : `environment variable ${row.env}`;
    throw usageError(`${source} must be ${expected}, got ${JSON.stringify(shown)}`);
  }
}

/**
 * The pod options `shardline crawl` reads from `args`: what `up` passes each pod (`crawlArgs`),
 * parsed by `crawl`'s own flags (the process settings among them are left to the pod).
 */
export function podOptionsFromArgs(args: readonly string[]): PodSettingOptions {
  const parser = addPodSettingFlags(new Command())
    .allowUnknownOption()
    .allowExcessArguments()
    .exitOverride();
  parser.parse([...args], { from: 'user' });
  return podOptionsFromFlags(parser.opts());
}

/** A flag `up` passes to every pod. */
interface SharedFlag {
  flag: string;
  /** The setting's kind; `text` for a process setting (checked by the pod). */
  kind: Setting['kind'] | 'text';
  arg: string;
  help: string;
  /** The only values a process setting takes. */
  choices?: readonly string[];
}

/** The flags `up` passes to every pod: all settings but a pod's own (id, JSONL file), in order. */
function sharedFlags(): SharedFlag[] {
  const settings = podSettingRows()
    .filter(([, setting]) => !setting.perPod)
    .flatMap(([, s]): SharedFlag[] => {
      const flag: SharedFlag = {
        flag: s.flag,
        kind: s.kind,
        arg: placeholder(s),
        help: settingHelp(s),
      };
      if (s.kind !== 'exit') return [flag];
      const grace: SharedFlag = {
        flag: IDLE_GRACE_FLAG,
        kind: 'int',
        arg: 'ms',
        help: IDLE_GRACE_HELP,
      };
      return [{ ...flag, kind: 'bool' }, grace];
    });
  const processFlags = Object.values(PROCESS_SETTINGS)
    .filter((s) => 'shared' in s && s.shared)
    .map(
      (s): SharedFlag => ({
        flag: s.flag,
        kind: 'text',
        arg: 'value',
        help: settingHelp(s),
        ...('choices' in s ? { choices: s.choices } : {}),
      }),
    );
  return [...settings, ...processFlags];
}

/** Adds the passed-through crawl options to `command` (`up`), checked as `crawl` checks them. */
export function addCrawlOptions(command: Command): Command {
  for (const { flag, kind, arg, help, choices } of sharedFlags()) {
    if (kind === 'bool') {
      command.addOption(new Option(`--${flag}`, help).helpGroup(UP_GROUP));
      continue;
    }
    if (choices) {
      command.addOption(
        new Option(`--${flag} <${arg}>`, help).choices(choices).helpGroup(UP_GROUP),
      );
      continue;
    }
    const option = new Option(`--${flag} <${arg}>`, help);
    option.argParser((value: string, previous: unknown): unknown => {
      // Each value of a list is passed on as given: `crawl` splits and checks it.
      if (kind === 'list' || kind === 'patterns') {
        return [...((previous as string[] | undefined) ?? []), value];
      }
      const fail = flagError(flag, value);
      if (kind !== 'text') parseSettingText(kind, value, fail);
      return value.trim();
    });
    command.addOption(option.helpGroup(UP_GROUP));
  }
  addSwitchAliases(command);
  return command;
}

/** Rebuilds the `shardline crawl` arguments from the parsed options of `up`. */
export function crawlArgs(flags: Record<string, unknown>): string[] {
  const args: string[] = [];
  for (const { flag, kind } of sharedFlags()) {
    const value = flagValue(flags, flag);
    if (value === undefined || value === false) continue;
    if (kind === 'list' || kind === 'patterns') {
      for (const item of value as string[]) args.push(`--${flag}`, item);
    } else if (value === true) args.push(`--${flag}`);
    else args.push(`--${flag}`, String(value));
  }
  return args;
}
