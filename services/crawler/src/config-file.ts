/**
 * The config file (`shardline.yaml` / `.json`, or `--config FILE` / `SHARDLINE_CONFIG`): keys are
 * the settings' option names (`minDelayMs: 500`, `redisUrl: redis://…`), parsed with the `yaml`
 * package (YAML is a superset of JSON, so one parser reads both). Its values go through the
 * same text parsers as environment variables (`loadConfig`) and the same bounds as the pod's
 * options, so a value the file accepts is one the environment would. Precedence is the
 * caller's: flag > env > file > default.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { CrawlerError, CrawlerErrorCode } from './errors.js';
import { PROCESS_SETTINGS } from './process-settings.js';
import { podSettingRows } from './settings.js';

/** The default file names, looked up in the data dir, then the working directory. */
export const CONFIG_FILE_NAMES = ['shardline.yaml', 'shardline.yml', 'shardline.json'] as const;
/** The variable naming the config file (a `--config` flag beats it). */
export const CONFIG_FILE_ENV = 'SHARDLINE_CONFIG';

/** A parsed config file: each value as written, under its option name. */
export interface ConfigFile {
  /** Absolute path, named in errors and by `shardline config`. */
  path: string;
  /** Scalars as text (as if from the environment); arrays kept, for list settings. */
  values: ReadonlyMap<string, string | string[]>;
}

/** One line naming the file, the key and what to do; the CLI exits 2 with it. */
export function configFileError(path: string, key: string | undefined, what: string): CrawlerError {
  const where = key === undefined ? `config file ${path}` : `config file ${path}: key ${key}`;
  return new CrawlerError(CrawlerErrorCode.CONFIG, `${where}: ${what}`);
}

/** Every key a config file may hold: the pod settings then the process settings. */
export function configFileKeys(): string[] {
  return [...podSettingRows().map(([name]) => name), ...Object.keys(PROCESS_SETTINGS)];
}

/**
 * The file to read: `explicit` (a flag), else `env.SHARDLINE_CONFIG`, else the first default
 * name found in `dataDir` then `cwd`; `undefined` when none applies. An explicit path must exist.
 */
export function findConfigFile(
  explicit: string | undefined,
  env: NodeJS.ProcessEnv,
  dataDir: string | undefined,
  cwd = process.cwd(),
): string | undefined {
  const named = explicit ?? (env[CONFIG_FILE_ENV]?.trim() || undefined);
  if (named !== undefined) {
    const path = resolve(cwd, named);
    if (!existsSync(path)) {
      const how = explicit === undefined ? `${CONFIG_FILE_ENV}=${named}` : `--config ${named}`;
      throw configFileError(path, undefined, `not found (from ${how}); check the path`);
    }
    return path;
  }
  const dirs = dataDir === undefined ? [cwd] : [resolve(cwd, dataDir), cwd];
  for (const dir of dirs) {
    for (const name of CONFIG_FILE_NAMES) {
      const path = join(dir, name);
      if (existsSync(path)) return path;
    }
  }
  return undefined;
}

/** Reads and checks the shape of `path`: a mapping of known keys to scalars or string lists. */
export function readConfigFile(path: string): ConfigFile {
  let document: unknown;
  try {
    document = parse(readFileSync(path, 'utf8'));
  } catch (error) {
    // The parser's first line; the source excerpt it points at with a trailing ':' is dropped.
    const reason =
      error instanceof Error ? error.message.split('\n')[0]!.replace(/:$/, '') : String(error);
    throw configFileError(path, undefined, `cannot be read as YAML or JSON: ${reason}`);
  }
  if (document === null || document === undefined) return { path, values: new Map() };
  if (typeof document !== 'object' || Array.isArray(document)) {
    throw configFileError(path, undefined, 'must be a mapping of option names to values');
  }
  const known = new Set(configFileKeys());
  const values = new Map<string, string | string[]>();
  for (const [key, value] of Object.entries(document)) {
    if (!known.has(key)) {
      const meant = closestKey(key, known);
      throw configFileError(
        path,
        key,
        meant === undefined
          ? 'unknown option; use an option name from `shardline config` (e.g. minDelayMs)'
          : `unknown option; did you mean ${meant}? (\`shardline config\` lists the options)`,
      );
    }
    if (value === null || value === undefined) continue;
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
      values.set(key, value);
    } else if (['string', 'number', 'boolean'].includes(typeof value)) {
      values.set(key, String(value));
    } else {
      throw configFileError(path, key, 'must be a number, boolean, string or list of strings');
    }
  }
  return { path, values };
}

/** A key as compared: case, '-' and '_' dropped, so `min-delay-ms` and `MIN_DELAY_MS` match. */
function folded(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, '');
}

/**
 * The known key `key` most likely meant: the same letters written another way (kebab case, an
 * environment variable's name), or one within two edits of it; undefined when none is close.
 */
function closestKey(key: string, known: ReadonlySet<string>): string | undefined {
  const typed = folded(key);
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(typed, folded(candidate));
    if (distance < (best?.distance ?? 3)) best = { key: candidate, distance };
  }
  return best?.key;
}

/** Levenshtein distance (insert, delete, substitute), row by row. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, substitute));
    }
    previous = row;
  }
  return previous[b.length]!;
}
