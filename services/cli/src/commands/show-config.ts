/**
 * `shardline config`: every setting's effective value and where it came from (flag, env, the
 * config file's path, or default), with the precedence of `crawl`: flag > env > file > default.
 * It takes the same setting flags as `crawl`, so a command line can be checked before it runs;
 * it needs no Redis.
 */

import { PROCESS_SETTINGS } from '@shardline/crawler/settings';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { DEFAULT_DATA_DIR } from '../lib/data-dir.js';
import { writeJson } from '../lib/json-output.js';
import {
  type EffectiveSetting,
  effectiveSettings,
  loadSettings,
  type ProcessFlagValues,
} from '../lib/settings-sources.js';
import { formatTable } from '../lib/table.js';
import {
  addPodSettingFlags,
  CONFIG_FLAG_HELP,
  intFlag,
  podOptionsFromFlags,
  settingHelp,
} from '../local-cluster/crawl-flags.js';

function shown(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string') return value;
  if (value instanceof RegExp) return String(value);
  return JSON.stringify(value);
}

/** Registers `shardline config`. */
export function registerConfigCommand(program: Command, ctx?: CliContext): void {
  const command = program
    .command('config')
    .description('print every setting of crawl/up: its effective value and where it came from')
    .option('--config <file>', CONFIG_FLAG_HELP)
    .option(
      '--data-dir <dir>',
      'where the default shardline.yaml is looked up first',
      DEFAULT_DATA_DIR,
    )
    .option('--json', 'print the settings as a JSON array of {option, env, flag, value, source}');
  for (const [option, setting] of Object.entries(PROCESS_SETTINGS)) {
    const numeric = option === 'healthPort' || option === 'redisConnectTimeoutMs';
    if (numeric) {
      command.option(`--${setting.flag} <n>`, settingHelp(setting), intFlag(setting.flag));
    } else command.option(`--${setting.flag} <value>`, settingHelp(setting));
  }
  addPodSettingFlags(command).action((flags: Record<string, unknown>) => {
    const loaded = loadSettings(flags as { config?: string; dataDir?: string });
    const processFlags: ProcessFlagValues = {};
    for (const [option, setting] of Object.entries(PROCESS_SETTINGS)) {
      const key = setting.flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
      processFlags[option as keyof ProcessFlagValues] = flags[key];
    }
    const rows = effectiveSettings(loaded, podOptionsFromFlags(flags), processFlags);
    const out = ctx?.stdout ?? process.stdout;
    if (flags.json) {
      writeJson(
        out,
        rows.map((row) => ({ ...row, value: jsonValue(row.value) })),
      );
      return;
    }
    if (loaded.file) out.write(`config file: ${loaded.file.path}\n\n`);
    else out.write('config file: none (no --config, SHARDLINE_CONFIG or shardline.yaml)\n\n');
    out.write(
      formatTable<EffectiveSetting>(rows, [
        { header: 'OPTION', cell: (row) => row.option },
        { header: 'VALUE', cell: (row) => shown(row.value), align: 'left' },
        { header: 'SOURCE', cell: (row) => row.source },
        { header: 'ENV', cell: (row) => row.env },
      ]),
    );
  });
}

/** RegExps (`patterns` settings) as their source text; everything else as is. */
function jsonValue(value: unknown): unknown {
  if (Array.isArray(value))
    return value.map((item) => (item instanceof RegExp ? String(item) : item));
  return value;
}
