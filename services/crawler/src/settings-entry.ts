/**
 * `@shardline/crawler/settings`: the settings table, its parsers, the config file and the
 * errors, without the pod (undici, pino, the pipeline). The `shardline` command imports this
 * to define and check its flags, so `shardline --help` or `shardline stats` does not load a
 * crawler it never runs; `runPod` comes from the package root when a command starts a pod.
 */
export {
  type ClusterNode,
  type CrawlerConfig,
  type EnvPodOptions,
  loadConfig,
  parseClusterNodes,
} from './config.js';
export {
  CONFIG_FILE_ENV,
  CONFIG_FILE_NAMES,
  type ConfigFile,
  configFileKeys,
  findConfigFile,
  readConfigFile,
} from './config-file.js';
export { DURATION_FORMS, parseBudget, parseDuration } from './duration.js';
export {
  CrawlerError,
  CrawlerErrorCode,
  CrawlOutcomeCode,
  FetchErrorCode,
  oneLine,
} from './errors.js';
export { PROCESS_SETTINGS, type ProcessSetting } from './process-settings.js';
export { RedisRobotsCache, type RedisRobotsCacheOptions } from './robots-cache.js';
export type { RobotsCacheRecord } from './robots-cache-record.js';
export {
  defaultText,
  type Setting,
  type SettingKind,
  type SettingValue,
} from './setting-kinds.js';
export {
  parseIntText,
  parseSettingText,
  type SettingTextError,
  splitList,
} from './setting-text.js';
export {
  POD_SETTINGS,
  type PodSettingName,
  type PodSettingOptions,
  type PodSettings,
  podSettingRows,
} from './settings.js';
export { resolvePodSettings } from './settings-resolve.js';
export { isTag, TAG_RULE, TAGS_META_PREFIX, tagsMeta, tagsOf } from './tags.js';
