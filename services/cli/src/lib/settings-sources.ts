/**
 * The settings of `crawl`, `up` and `config` from their four layers — flag > environment >
 * config file > default — and, for `shardline config`, where each effective value came from.
 * The file is `--config FILE`, else SHARDLINE_CONFIG, else `shardline.yaml` (.yml, .json) in
 * the data dir, then the working directory (`findConfigFile`).
 */
import {
  type ConfigFile,
  type CrawlerConfig,
  CrawlerError,
  CrawlerErrorCode,
  findConfigFile,
  loadConfig,
  type PodSettingOptions,
  PROCESS_SETTINGS,
  podSettingRows,
  readConfigFile,
} from '@shardline/crawler/settings';
import { CliError, CliErrorCode } from '../errors.js';
import { checkPodSettings } from '../local-cluster/crawl-flags.js';

/** The environment and config file layers, merged (flags are the command's). */
export interface LoadedSettings {
  config: CrawlerConfig;
  file?: ConfigFile;
}

/** A bad variable, file or option is a usage error (one line, exit status 2). */
function asUsage(error: unknown): unknown {
  const bad =
    error instanceof CrawlerError &&
    (error.code === CrawlerErrorCode.CONFIG || error.code === CrawlerErrorCode.INVALID_OPTION);
  return bad ? new CliError(CliErrorCode.USAGE, error.message) : error;
}

/** Finds and reads the config file, then the environment over it. */
export function loadSettings(
  flags: { config?: string; dataDir?: string },
  env: NodeJS.ProcessEnv = process.env,
): LoadedSettings {
  try {
    const path = findConfigFile(flags.config, env, flags.dataDir);
    const file = path === undefined ? undefined : readConfigFile(path);
    return { config: loadConfig(env, file), file };
  } catch (error) {
    throw asUsage(error);
  }
}

/** One row of `shardline config`. */
export interface EffectiveSetting {
  option: string;
  env: string;
  flag: string;
  value: unknown;
  /** `flag`, `env`, the config file's path, or `default`. */
  source: string;
}

/** Flag values of the process settings, by option name (`redisUrl`: `--redis`…). */
export type ProcessFlagValues = Partial<Record<keyof typeof PROCESS_SETTINGS, unknown>>;

/**
 * Every setting's effective value and its source. `podFlags` are the pod options given as
 * flags (`podOptionsFromFlags`), `processFlags` the process settings given as flags.
 */
export function effectiveSettings(
  loaded: LoadedSettings,
  podFlags: PodSettingOptions,
  processFlags: ProcessFlagValues,
  env: NodeJS.ProcessEnv = process.env,
): EffectiveSetting[] {
  const sourceOf = (option: string, envName: string, flagGiven: boolean): string => {
    if (flagGiven) return 'flag';
    if (env[envName]?.trim()) return 'env';
    if (loaded.file?.values.has(option)) return loaded.file.path;
    return 'default';
  };
  const given = podFlags as Readonly<Record<string, unknown>>;
  const pod = checkPodSettings(podFlags, loaded.config.pod) as Record<string, unknown>;
  const rows = podSettingRows().map(
    ([option, setting]): EffectiveSetting => ({
      option,
      env: setting.env,
      flag: `--${setting.flag}`,
      value: pod[option] ?? null,
      source: sourceOf(option, setting.env, given[option] !== undefined),
    }),
  );
  const config = loaded.config as unknown as Record<string, unknown>;
  for (const [option, setting] of Object.entries(PROCESS_SETTINGS)) {
    const flagValue = processFlags[option as keyof typeof PROCESS_SETTINGS];
    const source = sourceOf(option, setting.env, flagValue !== undefined);
    const value = flagValue ?? config[option];
    rows.push({
      option,
      env: setting.env,
      flag: `--${setting.flag}`,
      value: value ?? null,
      source,
    });
  }
  return rows;
}
