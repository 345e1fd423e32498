/**
 * `shardline ring show` (also plain `shardline ring`): the live ring — each member's
 * tokens, share of the keyspace and share of the live domains — read through the API's
 * `StatsReader` (as `GET /v1/ring`, without the drawing arcs).
 */
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { writeJson } from '../lib/json-output.js';
import { type SessionFlags, withConnectionOptions, withSession } from '../lib/session.js';
import { formatTable, percent } from '../lib/table.js';

interface RingShowFlags extends SessionFlags {
  json?: boolean;
}

/** Adds `show` (the default subcommand) to the existing `ring` command group. */
export function registerRingShowCommand(ring: Command, ctx: CliContext): void {
  withConnectionOptions(
    ring
      .command('show', { isDefault: true })
      .description(
        'the live ring: pods, tokens, share of the keyspace and of live domains (default subcommand)',
      )
      .option('--json', 'print one JSON document'),
  ).action(async (flags: RingShowFlags) => {
    await withSession(flags, async ({ reader, ownership }) => {
      // One arc is enough: the CLI prints shares, not a drawing.
      const { arcs: _arcs, resolution: _resolution, ...ring } = await reader.ring(1);
      if (flags.json) return writeJson(ctx.stdout, { ...ring, membership: ownership.source });
      if (ring.members.length === 0) {
        ctx.stdout.write('empty ring: no crawler pod has registered in this frontier yet\n');
        return;
      }
      ctx.stdout.write(
        formatTable(ring.members, [
          { header: 'pod', cell: (m) => m.id },
          { header: 'weight', cell: (m) => m.weight },
          { header: 'tokens', cell: (m) => m.tokens },
          { header: 'keyspace', cell: (m) => percent(m.keyspaceShare), align: 'right' },
          { header: 'live domains', cell: (m) => m.liveDomains },
          { header: 'share', cell: (m) => percent(m.liveDomainShare), align: 'right' },
        ]),
      );
      const s = ring.sample;
      ctx.stdout.write(
        `\nepoch ${ring.epoch}, vnodes ${ring.vnodes}, seed ${ring.seed}, ${ring.tokenCount.toLocaleString('en-US')} tokens; membership: ${ownership.source}; live domains ${s.exact ? 'exact' : `estimated from ${s.sampled} of ${s.indexed}`}\n`,
      );
    });
  });
}
