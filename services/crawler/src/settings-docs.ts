/**
 * The options table of the crawler README, generated from the settings table. Run
 * `npx tsx services/crawler/src/settings-docs.ts` after changing a setting: it rewrites the
 * table between the markers in `services/crawler/README.md`. A test fails while they differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CrawlerError, CrawlerErrorCode } from './errors.js';
import { PROCESS_SETTINGS } from './process-settings.js';
import { defaultText } from './setting-kinds.js';
import { podSettingRows } from './settings.js';

/** The line before the generated table. */
export const SETTINGS_TABLE_START =
  '<!-- settings-table: generated from src/settings.ts by src/settings-docs.ts; do not edit -->';
/** The line after it. */
export const SETTINGS_TABLE_END = '<!-- settings-table: end -->';

/** The crawler README. */
export const CRAWLER_README = fileURLToPath(new URL('../README.md', import.meta.url));

/** A plain value in code style; words (`hostname`, `none`) as they are. */
function shownDefault(row: { default?: unknown; defaultText?: string }): string {
  const text = defaultText(row);
  return row.defaultText !== undefined || Array.isArray(row.default) ? text : `\`${text}\``;
}

/** The markdown table: every pod setting, then the process settings. */
export function renderSettingsTable(): string {
  const lines = ['| option | env | flag | default | meaning |', '| --- | --- | --- | --- | --- |'];
  for (const [name, s] of podSettingRows()) {
    lines.push(`| \`${name}\` | \`${s.env}\` | \`--${s.flag}\` | ${shownDefault(s)} | ${s.doc} |`);
  }
  for (const s of Object.values(PROCESS_SETTINGS)) {
    lines.push(`| — | \`${s.env}\` | \`--${s.flag}\` | ${s.defaultText} | ${s.doc} |`);
  }
  return lines.join('\n');
}

/** `readme` with the generated table between its markers (which must be there, once each). */
export function withSettingsTable(readme: string): string {
  const start = readme.indexOf(SETTINGS_TABLE_START);
  const end = readme.indexOf(SETTINGS_TABLE_END);
  if (start < 0 || end < start) {
    throw new CrawlerError(
      CrawlerErrorCode.INVALID_ARGUMENT,
      `the README has no ${SETTINGS_TABLE_START} … ${SETTINGS_TABLE_END} section`,
    );
  }
  const before = readme.slice(0, start + SETTINGS_TABLE_START.length);
  return `${before}\n${renderSettingsTable()}\n${readme.slice(end)}`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(CRAWLER_README, withSettingsTable(readFileSync(CRAWLER_README, 'utf8')));
  process.stdout.write(`updated the settings table in ${CRAWLER_README}\n`);
}
