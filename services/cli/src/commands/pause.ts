/**
 * `shardline pause <domain>` / `shardline resume <domain>`: stop and restart claims from a
 * domain through the frontier (leases already out finish normally).
 */
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { domainArgument } from '../lib/domains.js';
import { writeJson } from '../lib/json-output.js';
import { type SessionFlags, withConnectionOptions, withSession } from '../lib/session.js';

interface PauseFlags extends SessionFlags {
  json?: boolean;
}

/** Registers `shardline pause` and `shardline resume`. */
export function registerPauseCommands(program: Command, ctx: CliContext): void {
  for (const paused of [true, false]) {
    const verb = paused ? 'pause' : 'resume';
    withConnectionOptions(
      program
        .command(verb)
        .description(
          paused
            ? 'stop claims from a domain (leases already out finish normally)'
            : 'let claims from a paused domain resume',
        )
        .argument('<domain>', 'the domain key (registrable domain, e.g. bbc.co.uk)', domainArgument)
        .option('--json', 'print the domain state afterwards as JSON'),
    ).action(async (domain: string, flags: PauseFlags) => {
      await withSession(flags, async ({ reader, frontier, ownership }) => {
        await reader.requireDomain(domain);
        // Resuming re-scores the domain's hosts in their owner's due index.
        ownership.requirePods();
        await (paused ? frontier.pause(domain) : frontier.resume(domain));
        const stats = await frontier.inspector.domainStats(domain);
        if (flags.json) {
          return writeJson(ctx.stdout, { domain, paused: stats.paused, queued: stats.queued });
        }
        ctx.stdout.write(
          `${domain}: ${stats.paused ? 'paused' : 'resumed'} (${stats.queued.toLocaleString('en-US')} queued)\n`,
        );
      });
    });
  }
}
