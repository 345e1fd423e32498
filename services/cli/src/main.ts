import { createRequire } from 'node:module';
import { FrontierLostError, RedisOomError } from '@shardline/frontier';
import { MembershipPodIdInUseError, MembershipSupersededError } from '@shardline/membership';
import { Command, CommanderError } from 'commander';
import { registerApiCommand } from './commands/api.js';
import { registerCrawlCommand } from './commands/crawl.js';
import { registerCrawlAdminCommands } from './commands/crawls.js';
import { registerDeadLetterCommand } from './commands/dead-letters.js';
import { registerDelayCommand } from './commands/delay.js';
import { registerDomainCommands } from './commands/domains.js';
import { registerLocalClusterCommands } from './commands/local-cluster.js';
import { registerPauseCommands } from './commands/pause.js';
import { registerRingCommands } from './commands/ring.js';
import { registerRingShowCommand } from './commands/ring-show.js';
import { registerSeedCommand } from './commands/seed.js';
import { registerConfigCommand } from './commands/show-config.js';
import { registerStatsCommands } from './commands/stats.js';
import { registerStreamCommands } from './commands/streams.js';
import { registerUrlFrontierCommand } from './commands/urlfrontier.js';
import { registerWarcCommands } from './commands/warc.js';
import { loadConfig } from './config.js';
import type { CliContext } from './context.js';
import { CliError, ExitCode } from './errors.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

/**
 * Builds the `shardline` program. Each command group lives in `commands/<group>.ts` and
 * exports one `register…Commands(program, ctx)`; add new groups here.
 */
export function buildProgram(ctx: CliContext): Command {
  const program = new Command()
    .name('shardline')
    .description('web-crawler frontier and domain-sharding service on Redis')
    .version(version)
    .showSuggestionAfterError()
    .configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
    });
  registerRingCommands(program, ctx);
  const ring = program.commands.find((command) => command.name() === 'ring');
  if (ring) registerRingShowCommand(ring, ctx);
  registerCrawlCommand(program);
  const crawl = program.commands.find((command) => command.name() === 'crawl');
  if (crawl) registerCrawlAdminCommands(crawl, ctx);
  registerConfigCommand(program, ctx);
  registerApiCommand(program);
  registerSeedCommand(program, ctx);
  registerStatsCommands(program, ctx);
  registerStreamCommands(program, ctx);
  registerDomainCommands(program, ctx);
  registerDeadLetterCommand(program, ctx);
  registerPauseCommands(program, ctx);
  registerDelayCommand(program, ctx);
  registerWarcCommands(program);
  registerUrlFrontierCommand(program);
  registerLocalClusterCommands(program, ctx);
  // exitOverride on every command: errors come back to `run` instead of process.exit.
  const override = (command: Command): void => {
    command.exitOverride();
    for (const sub of command.commands) override(sub);
  };
  override(program);
  return program;
}

/**
 * Runs the command line and returns the exit status: 0 ok, 1 failed (bad input lines,
 * unreadable file), 2 usage error. User errors print one line on stderr, never a stack.
 */
export async function run(
  argv: readonly string[],
  io: Partial<Omit<CliContext, 'exitCode'>> = {},
): Promise<number> {
  const ctx: CliContext = {
    stdin: io.stdin ?? process.stdin,
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    exitCode: ExitCode.OK,
  };
  // A closed pipe (`shardline … | head`) is not an error worth a stack trace.
  ctx.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(ctx.exitCode);
    throw error;
  });
  const program = buildProgram(ctx);
  try {
    await program.parseAsync([...argv]);
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has already printed its one-line message (or the help / version).
      return error.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
    }
    if (error instanceof CliError) {
      ctx.stderr.write(`error: ${error.message}\n`);
      return error.exitCode;
    }
    // Another live process runs with this pod id: a setting to change.
    if (error instanceof MembershipPodIdInUseError) {
      ctx.stderr.write(`error: ${error.message}\n`);
      return ExitCode.USAGE;
    }
    // Redis faults the frontier names (out of memory, frontier lost) and a pod id taken over
    // while this process stalled: the environment, not a bug.
    if (
      error instanceof RedisOomError ||
      error instanceof FrontierLostError ||
      error instanceof MembershipSupersededError
    ) {
      ctx.stderr.write(`error: ${error.message} (${error.code})\n`);
      return ExitCode.FAILED;
    }
    const message = error instanceof Error ? error.message : String(error);
    ctx.stderr.write(
      `error: internal error: ${message} (set SHARDLINE_DEBUG=1 for the stack trace)\n`,
    );
    if (loadConfig().debug && error instanceof Error) {
      ctx.stderr.write(`${error.stack}\n`);
    }
    return ExitCode.INTERNAL;
  }
}
