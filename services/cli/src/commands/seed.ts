/**
 * `shardline seed [urls...] [--file FILE]`: queues seed URLs from arguments, a file or
 * stdin (streamed, batched), with a priority and tags per line (format in
 * `lib/seed-line.ts`). Every rejected line is reported with its number and reason on
 * stderr and, with `--report FILE`, as JSONL; the status is 1 when any line was rejected
 * unless `--allow-rejects`. Duplicates and over-cap URLs are summarised, not rejections.
 */
import { once } from 'node:events';
import type { ReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { type Command, Option } from 'commander';
import type { CliContext } from '../context.js';
import { CliError, CliErrorCode, ExitCode, usageError } from '../errors.js';
import { clip } from '../lib/domains.js';
import { type InputLine, meaningfulLines, openLines } from '../lib/lines.js';
import { integerIn } from '../lib/parse.js';
import { isTag } from '../lib/seed-line.js';
import { createSeedProgress } from '../lib/seed-progress.js';
import { type SeedRejection, seedLines } from '../lib/seeder.js';
import { type SessionFlags, withConnectionOptions, withSession } from '../lib/session.js';

interface SeedFlags extends SessionFlags {
  file?: string;
  priority?: number;
  tag: string[];
  report?: string;
  allowRejects?: boolean;
  batch: number;
  progress: boolean;
  json?: boolean;
}

function priority(value: string): number {
  const n = /^[+-]?\d{1,16}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw usageError(`--priority must be an integer, got "${value}"`);
  return n;
}

function collectTag(value: string, previous: string[]): string[] {
  const tags = value.split(',').map((t) => t.trim());
  for (const tag of tags) {
    if (!isTag(tag)) throw usageError(`--tag must be 1-64 of [A-Za-z0-9._:-], got "${tag}"`);
  }
  return [...previous, ...tags];
}

/** Registers `shardline seed`. */
export function registerSeedCommand(program: Command, ctx: CliContext): void {
  withConnectionOptions(
    program
      .command('seed')
      .description(
        'queue seed URLs from arguments, --file or stdin; one per line: URL [priority=N] [tag=x …]; blank lines and # comments skipped',
      )
      .argument('[urls...]', 'seed URLs (each may carry attributes: "URL priority=5 tag=news")')
      .option('--file <path>', 'read seed lines from a file ("-" = stdin)')
      .option('--priority <n>', 'priority of lines without priority=N (default 0)', priority)
      .option('--tag <tag>', 'tag every seed (repeatable, comma-separated)', collectTag, [])
      .option(
        '--report <file>',
        'also write every rejected line as JSONL {line, input, code, reason}',
      )
      .option('--allow-rejects', 'exit 0 even when some lines were rejected')
      .addOption(
        new Option('--batch <n>', 'lines per frontier.enqueue call')
          .argParser(integerIn(1, 100_000))
          .default(1000),
      )
      .option('--no-progress', 'no progress bar / progress lines on stderr')
      .option('--json', 'print the summary as JSON'),
  ).action(async (urls: string[], flags: SeedFlags) => {
    await runSeed(ctx, urls, flags);
  });
}

interface Source {
  /** `arg` for command-line URLs, `line` for stdin and files (used in messages). */
  unit: 'arg' | 'line';
  name: string;
  lines: () => Promise<AsyncIterable<InputLine>>;
  totalBytes?: number;
  bytesRead?: () => number;
}

async function* argLines(urls: readonly string[]): AsyncGenerator<InputLine> {
  for (let i = 0; i < urls.length; i++) {
    const text = urls[i]!.trim();
    if (text.length > 0 && !text.startsWith('#')) yield { number: i + 1, text };
  }
}

async function sources(ctx: CliContext, urls: string[], flags: SeedFlags): Promise<Source[]> {
  const out: Source[] = [];
  if (urls.length > 0) {
    out.push({ unit: 'arg', name: 'args', lines: async () => argLines(urls) });
  }
  if (flags.file !== undefined && flags.file !== '-') {
    const path = flags.file;
    const stream = (await openLines(path)) as ReadStream;
    const handle = await open(path, 'r');
    const { size } = await handle.stat();
    await handle.close();
    out.push({
      unit: 'line',
      name: path,
      lines: async () => meaningfulLines(stream),
      totalBytes: size,
      bytesRead: () => stream.bytesRead,
    });
  } else if (flags.file === '-' || urls.length === 0) {
    if ((ctx.stdin as { isTTY?: boolean }).isTTY && flags.file !== '-') {
      throw usageError('no seeds: give URLs as arguments, --file FILE, or pipe lines on stdin');
    }
    out.push({ unit: 'line', name: 'stdin', lines: async () => meaningfulLines(ctx.stdin) });
  }
  return out;
}

/** A JSONL file opened up front (a bad path fails before anything is queued). */
async function openReport(path: string): Promise<Writable> {
  try {
    const handle = await open(path, 'w');
    return handle.createWriteStream({ encoding: 'utf8' });
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unwritable';
    throw new CliError(CliErrorCode.IO, `cannot write ${JSON.stringify(path)} (${reason})`);
  }
}

async function runSeed(ctx: CliContext, urls: string[], flags: SeedFlags): Promise<void> {
  const inputs = await sources(ctx, urls, flags);
  const report = flags.report === undefined ? undefined : await openReport(flags.report);
  try {
    await withSession(flags, async (session) => {
      // Fail before reading input: a URL queued for no pod is never claimed.
      session.ownership.requirePods();
      const progress = createSeedProgress({
        stream: ctx.stderr,
        totalBytes: inputs.reduce((sum, s) => sum + (s.totalBytes ?? 0), 0) || undefined,
        quiet: !flags.progress,
      });
      const total = { lines: 0, queued: 0, duplicates: 0, overCap: 0, rejected: 0 };
      try {
        let bytesBefore = 0;
        for (const input of inputs) {
          const onReject = async (r: SeedRejection) => {
            progress.message(`${input.unit} ${r.line}: ${r.code}: ${r.reason}: ${clip(r.input)}`);
            if (report) {
              const row = { line: r.line, input: r.input, code: r.code, reason: r.reason };
              const source = input.name;
              if (!report.write(`${JSON.stringify({ ...row, source })}\n`)) {
                await once(report, 'drain');
              }
            }
          };
          const counts = await seedLines(session.frontier, await input.lines(), {
            batchLines: flags.batch,
            defaults: { priority: flags.priority, tags: flags.tag },
            onReject,
            onProgress: (c) =>
              progress.update(
                {
                  lines: total.lines + c.lines,
                  queued: total.queued + c.queued,
                  duplicates: total.duplicates + c.duplicates,
                  overCap: total.overCap + c.overCap,
                  rejected: total.rejected + c.rejected,
                },
                bytesBefore + (input.bytesRead?.() ?? 0),
              ),
          });
          bytesBefore += input.totalBytes ?? 0;
          total.lines += counts.lines;
          total.queued += counts.queued;
          total.duplicates += counts.duplicates;
          total.overCap += counts.overCap;
          total.rejected += counts.rejected;
        }
      } finally {
        progress.stop();
      }
      const summary = { ...total, owners: session.ownership.source };
      if (flags.json) {
        ctx.stdout.write(`${JSON.stringify(summary)}\n`);
      } else {
        const n = (v: number) => v.toLocaleString('en-US');
        ctx.stdout.write(
          `queued ${n(total.queued)}, duplicate ${n(total.duplicates)}, over-cap ${n(total.overCap)}, rejected ${n(total.rejected)} (${n(total.lines)} lines; owners from ${summary.owners})\n`,
        );
      }
      if (total.rejected > 0 && !flags.allowRejects) {
        ctx.stderr.write(
          `error: ${n0(total.rejected)} line${total.rejected === 1 ? '' : 's'} rejected (the others were queued); --allow-rejects exits 0\n`,
        );
        ctx.exitCode = ExitCode.FAILED;
      }
    });
  } finally {
    if (report) {
      report.end();
      await once(report, 'close').catch(() => undefined);
    }
  }
}

function n0(v: number): string {
  return v.toLocaleString('en-US');
}
