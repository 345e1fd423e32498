import type { CliContext } from '../context.js';
import { ExitCode } from '../errors.js';
import { clip, domainOfLine } from '../lib/domains.js';
import { meaningfulLines } from '../lib/lines.js';
import { LineWriter } from '../lib/output.js';
import { buildRing, membersOf, type RingFlags } from './build.js';

/** Options of `shardline ring owners`. */
export interface OwnersFlags extends RingFlags {
  pods: string[];
}

/**
 * Reads URLs or hosts from stdin, one per line, and prints `domain<TAB>owner` for each.
 * Bad lines go to stderr with their line number; the command then exits 1.
 */
export async function runOwners(ctx: CliContext, flags: OwnersFlags): Promise<void> {
  const ring = await buildRing(membersOf(flags.pods, flags.weights), flags);
  const out = new LineWriter(ctx.stdout);
  let bad = 0;
  for await (const line of meaningfulLines(ctx.stdin)) {
    const result = line.rejection
      ? { ok: false as const, reason: line.rejection.reason }
      : domainOfLine(line.text);
    if (result.ok) {
      await out.line(`${result.domain}\t${ring.owner(result.domain)}`);
    } else {
      bad++;
      ctx.stderr.write(`line ${line.number}: ${result.reason}: ${clip(line.text)}\n`);
    }
  }
  await out.flush();
  if (bad > 0) {
    ctx.stderr.write(
      `error: ${bad} input line${bad === 1 ? ' was' : 's were'} not a URL or host\n`,
    );
    ctx.exitCode = ExitCode.FAILED;
  }
}
