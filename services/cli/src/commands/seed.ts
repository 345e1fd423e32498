/**
 * `shardline seed [urls...] [--seeds-file FILE]`: queues seed URLs from arguments, a file or
 * stdin (streamed, batched), with a priority and tags per line (format in
 * `lib/seed-line.ts`). Every rejected line is reported with its number and reason on
 * stderr and, with `--report FILE`, as JSONL; the status is 1 when any line was rejected
 * unless `--allow-rejects`. Duplicates and over-cap URLs are summarised, not rejections.
 */
import { once } from 'node:events';
import { open } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { isTag, TAG_RULE } from '@shardline/crawler/settings';
import { type Command, Option } from 'commander';
import type { CliContext } from '../context.js';
import { CliError, CliErrorCode, ExitCode, usageError } from '../errors.js';
import { clip } from '../lib/domains.js';
import { integerIn } from '../lib/parse.js';
import { createSeedProgress, type SeedCounts } from '../lib/seed-progress.js';
import { seedSources } from '../lib/seed-sources.js';
import { SeedInterruptedError, type SeedRejection, seedLines } from '../lib/seeder.js';
import {
  refuseDeletingCrawl,
  type SessionFlags,
  withConnectionOptions,
  withSession,
} from '../lib/session.js';

interface SeedFlags extends SessionFlags {
  seedsFile?: string;
  /** Hidden alias of --seeds-file. */
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
    if (!isTag(tag)) throw usageError(`--tag must be ${TAG_RULE}, got "${tag}"`);
  }
  return [...previous, ...tags];
}

/** Registers `shardline seed`. */
export function registerSeedCommand(program: Command, ctx: CliContext): void {
  withConnectionOptions(
    program
      .command('seed')
      .description(
        'queue seed URLs from arguments, --seeds-file or stdin; one per line: URL [priority=N] [tag=x …]; blank lines and # comments skipped',
      )
      .argument('[urls...]', 'seed URLs (each may carry attributes: "URL priority=5 tag=news")')
      .option('--seeds-file <path>', 'read seed lines from a file ("-" = stdin)')
      .addOption(new Option('--file <path>', 'old name of --seeds-file').hideHelp())
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

/** What became of the lines that were not rejected, for the error line. */
function rejectedOf(total: SeedCounts): string {
  const others = total.lines - total.rejected;
  if (others === 0) return 'nothing was queued';
  return others === 1 ? 'the other line was accepted' : `the other ${n0(others)} were accepted`;
}

async function runSeed(ctx: CliContext, urls: string[], flags: SeedFlags): Promise<void> {
  const inputs = await seedSources({
    urls,
    file: flags.seedsFile ?? flags.file,
    stdin: ctx.stdin,
  });
  const report = flags.report === undefined ? undefined : await openReport(flags.report);
  try {
    await withSession(
      flags,
      async (session) => {
        // Fail before reading input: a URL queued for no pod is never claimed.
        session.ownership.requirePods();
        await refuseDeletingCrawl(session);
        const progress = createSeedProgress({
          stream: ctx.stderr,
          totalBytes: inputs.reduce((sum, s) => sum + (s.totalBytes ?? 0), 0) || undefined,
          quiet: !flags.progress,
        });
        const total = { lines: 0, queued: 0, duplicates: 0, overCap: 0, rejected: 0 };
        const addCounts = (counts: SeedCounts) => {
          total.lines += counts.lines;
          total.queued += counts.queued;
          total.duplicates += counts.duplicates;
          total.overCap += counts.overCap;
          total.rejected += counts.rejected;
        };
        let interrupted: SeedInterruptedError | undefined;
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
            try {
              const counts = await seedLines(session.frontier, input.lines(), {
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
              addCounts(counts);
            } catch (error) {
              if (!(error instanceof SeedInterruptedError)) throw error;
              addCounts(error.counts);
              interrupted = error;
              break;
            }
            bytesBefore += input.totalBytes ?? 0;
          }
        } finally {
          progress.stop();
        }
        const summary = { ...total, owners: session.ownership.source };
        if (flags.json) {
          ctx.stdout.write(`${JSON.stringify(summary)}\n`);
        } else {
          ctx.stdout.write(
            `queued ${n0(total.queued)}, duplicate ${n0(total.duplicates)}, over-cap ${n0(total.overCap)}, rejected ${n0(total.rejected)} (${n0(total.lines)} line${total.lines === 1 ? '' : 's'}; owners from ${summary.owners})\n`,
          );
        }
        if (interrupted) {
          // The summary above is exact for every line before the failing batch.
          throw new CliError(
            CliErrorCode.SEED_INTERRUPTED,
            `seeding stopped after ${n0(total.lines)} lines (${n0(total.queued)} queued): ${interrupted.message}; the next ${n0(interrupted.pendingLines)} lines may be partly queued and the rest were not read (seeding again is safe: duplicates are skipped)`,
          );
        }
        if (total.rejected > 0 && !flags.allowRejects) {
          ctx.stderr.write(
            `error: ${n0(total.rejected)} line${total.rejected === 1 ? '' : 's'} rejected (${rejectedOf(total)}); --allow-rejects exits 0\n`,
          );
          ctx.exitCode = ExitCode.FAILED;
        }
      },
      { noteUnknownCrawl: false },
    );
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
