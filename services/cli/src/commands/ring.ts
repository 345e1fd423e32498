import { type Command, Option } from 'commander';
import type { CliContext } from '../context.js';
import { integerIn, podList, weightList } from '../lib/parse.js';
import { type OwnersFlags, runOwners } from '../ring/owners.js';
import { type PlanFlags, runPlan } from '../ring/plan.js';

const MAX_VNODES = 1_048_576;

function ringOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--vnodes <n>',
        'tokens per unit weight (default: the ring default, 8192)',
      ).argParser(integerIn(1, MAX_VNODES)),
    )
    .addOption(
      new Option('--seed <n>', 'seed of the token hashes (default: 0)').argParser(
        integerIn(0, Number.MAX_SAFE_INTEGER),
      ),
    );
}

/** `shardline ring …`: inspect and plan the consistent-hash ring. */
export function registerRingCommands(program: Command, ctx: CliContext): void {
  const ring = program
    .command('ring')
    .description('inspect and plan the consistent-hash ring that shards domains across pods');

  ringOptions(
    ring
      .command('owners')
      .description(
        'read URLs or hosts on stdin (one per line; blank lines and # comments skipped) and print "domain<TAB>owner"',
      )
      .requiredOption('--pods <ids>', 'comma-separated pod ids, e.g. a,b,c', podList)
      .option('--weights <list>', 'pod weights, e.g. a=2,b=0.5 (others weigh 1)', weightList),
  ).action(async (flags: OwnersFlags) => {
    await runOwners(ctx, flags);
  });

  ringOptions(
    ring
      .command('plan')
      .description(
        'show the load per pod before and after adding or removing pods, and how many domains move',
      )
      .requiredOption(
        '--pods <n|ids>',
        'pod count (ids pod-0..pod-N-1) or comma-separated pod ids',
        (value: string) =>
          /^\s*\d+\s*$/.test(value) ? integerIn(1, 100_000)(value) : podList(value),
      )
      .addOption(
        new Option('--add <k>', 'pods to add (named pod-<i>, first free i)')
          .argParser(integerIn(1, 100_000))
          .conflicts('remove'),
      )
      .addOption(
        new Option('--remove <k>', 'pods to remove (the last k of --pods)').argParser(
          integerIn(1, 100_000),
        ),
      )
      .option(
        '--domains <file>',
        'domains, hosts or URLs, one per line (default: 100,000 synthetic domains)',
      )
      .option('--json', 'print the plan as JSON'),
  ).action(async (flags: PlanFlags) => {
    await runPlan(ctx, flags);
  });
}
