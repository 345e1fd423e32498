/**
 * `shardline warc index FILE|DIR…` prints a CDXJ index of WARC files (what pywb and other
 * replay tools read: SURT key, timestamp, JSON with url, mime, status, digest, offset, length,
 * filename); a directory (a crawl's --warc-dir) stands for its closed WARC files.
 * `shardline warc get FILE:OFFSET` prints the one record at that offset (a result's
 * `warcFile` and `warcOffset`) as stored, decompressed. A result and an index line name the
 * file as it is in its WARC directory once closed, so a bare name is also looked up in
 * --warc-dir (default <data-dir>/warc, as `shardline crawl` writes), and as the `.open` file
 * its pod is still writing.
 */

import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import {
  closedName,
  OPEN_SUFFIX,
  readRecordAt,
  WarcError,
  WarcErrorCode,
  writeCdxj,
} from '@shardline/warc';
import type { Command } from 'commander';
import { CliError, CliErrorCode } from '../errors.js';
import { DEFAULT_DATA_DIR, warcDirOf } from '../lib/data-dir.js';

/** Registers `shardline warc index` and `shardline warc get`. */
export function registerWarcCommands(program: Command): void {
  const warc = program.command('warc').description('read the WARC files a crawl wrote');
  warc
    .command('index')
    .description(
      'print a CDXJ index (pywb format) of WARC files on stdout, sorted as pywb needs (past 500,000 lines in sorted runs under the temp directory, merged)',
    )
    .argument(
      '<files...>',
      '.warc.gz (or .warc) files, or directories (a crawl’s --warc-dir): their closed WARC files',
    )
    .option('--unsorted', 'in file order as read, each line as soon as it is read')
    .action(async (paths: string[], flags: { unsorted?: boolean }) => {
      const files = paths.flatMap(warcFilesOf);
      for (const file of files.filter((f) => f.endsWith(OPEN_SUFFIX))) {
        process.stderr.write(
          `note: ${file} is still open (its pod is writing it, or was killed before closing it and ` +
            `closes it at its next start): its lines name it, the file will be ${basename(closedName(file))}\n`,
        );
      }
      try {
        await writeCdxj(files, (line) => process.stdout.write(line), { sort: !flags.unsorted });
      } catch (error) {
        const input = [WarcErrorCode.DAMAGED, WarcErrorCode.NOT_WARC] as string[];
        if (error instanceof WarcError && input.includes(error.code)) {
          throw new CliError(CliErrorCode.INPUT, error.message);
        }
        throw new CliError(CliErrorCode.IO, `cannot index ${files.join(' ')}: ${message(error)}`);
      }
    });
  warc
    .command('get')
    .description('print the record at FILE:OFFSET (a result’s warcFile:warcOffset) as stored')
    .argument('<location>', 'FILE:OFFSET; a bare file name is looked up in the WARC directory')
    .option(
      '--warc-dir <dir>',
      'the WARC directory of a bare file name (env WARC_DIR, default <data-dir>/warc)',
    )
    .option('--data-dir <dir>', 'the crawl’s state directory', DEFAULT_DATA_DIR)
    .action(async (location: string, flags: { warcDir?: string; dataDir: string }) => {
      const match = /^(.+):(\d+)$/.exec(location);
      if (!match) {
        throw new CliError(
          CliErrorCode.USAGE,
          `warc get: expected FILE:OFFSET (e.g. shardline-….warc.gz:1234), got "${location}"`,
        );
      }
      const warcDir = flags.warcDir ?? process.env.WARC_DIR ?? warcDirOf(flags.dataDir);
      const file = readable(locate(match[1]!, warcDir));
      try {
        const record = await readRecordAt(file, Number(match[2]));
        process.stdout.write(record.bytes);
      } catch (error) {
        const code = error instanceof WarcError ? CliErrorCode.INPUT : CliErrorCode.IO;
        throw new CliError(code, message(error));
      }
    });
}

/** A WARC file's or a directory's stat; a path that is neither is one line. */
function statOf(path: string) {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : message(error);
    throw new CliError(CliErrorCode.IO, `cannot read ${path}: ${why}`);
  }
}

/**
 * The file a location names: the path as given; else, for a bare name (what a result's
 * `warcFile` and an index line's `filename` hold), the file in `warcDir`; else the `.open`
 * file its pod is still writing under that name.
 */
function locate(file: string, warcDir: string): string {
  const candidates = [file, `${file}${OPEN_SUFFIX}`];
  if (dirname(file) === '.')
    candidates.push(join(warcDir, file), join(warcDir, `${file}${OPEN_SUFFIX}`));
  const found = candidates.find((path) => existsSync(path));
  if (found) return found;
  const where =
    dirname(file) === '.' ? ` (nor in ${warcDir}: name its directory with --warc-dir)` : '';
  throw new CliError(CliErrorCode.IO, `cannot read ${file}: no such file${where}`);
}

function readable(file: string): string {
  if (statOf(file).isDirectory()) {
    throw new CliError(
      CliErrorCode.IO,
      `cannot read ${file}: it is a directory; name a WARC file in it`,
    );
  }
  return file;
}

/** WARC files a pod closed (`….warc.gz`, `….warc`), and those it still writes (`.open`). */
const CLOSED_WARC = /\.warc(\.gz)?$/;
const OPEN_WARC = /\.warc(\.gz)?\.open$/;

/**
 * `path` itself when it is a file; a directory's closed WARC files by name (its open ones
 * are being written: left out, with a note, unless named).
 */
function warcFilesOf(path: string): string[] {
  if (!statOf(path).isDirectory()) return [path];
  const names = readdirSync(path).sort();
  const closed = names.filter((name) => CLOSED_WARC.test(name));
  const open = names.filter((name) => OPEN_WARC.test(name));
  if (open.length > 0) {
    process.stderr.write(
      `note: ${path}: ${open.length} WARC file(s) still open left out (${open.join(', ')}): name them to index them\n`,
    );
  }
  if (closed.length === 0) {
    throw new CliError(
      CliErrorCode.INPUT,
      `${path}: no closed WARC file (.warc.gz or .warc) in this directory`,
    );
  }
  return closed.map((name) => join(path, name));
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
