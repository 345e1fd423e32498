/**
 * `shardline ring show` (also plain `shardline ring`): the live ring — each member's
 * weight, session, tokens, share of the keyspace and share of the live domains — read
 * through the API's `StatsReader` (as `GET /v1/ring`, without the drawing arcs), with the
 * registry's members that are not on it (session expired, not yet removed).
 */
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { usageError } from '../errors.js';
import { redisNowMs } from '../lib/domain-detail.js';
import { writeJson } from '../lib/json-output.js';
import { type SessionFlags, withConnectionOptions, withSession } from '../lib/session.js';
import { formatTable, percent, relative } from '../lib/table.js';

interface RingShowFlags extends SessionFlags {
  json?: boolean;
}

/** Adds `show` (the default subcommand) to the existing `ring` command group. */
export function registerRingShowCommand(ring: Command, ctx: CliContext): void {
  withConnectionOptions(
    ring
      .command('show', { isDefault: true })
      .description(
        'the live ring: pods, weights, sessions, tokens, share of the keyspace and of live domains (default subcommand)',
      )
      .option('--json', 'print one JSON document')
      // The default subcommand gets every word `ring` does not know: name it, not "show".
      .allowExcessArguments(),
  ).action(async (flags: RingShowFlags, command: Command) => {
    const [unknown] = command.args;
    if (unknown !== undefined) {
      throw usageError(
        `unknown ring command ${JSON.stringify(unknown)}: use show, owners or plan (shardline ring --help)`,
      );
    }
    await withSession(flags, async ({ reader, ownership, redis }) => {
      // One arc is enough: the CLI prints shares, not a drawing.
      const { arcs: _arcs, resolution: _resolution, ...shown } = await reader.ring(1);
      // The snapshot `reader.ring` used (the session's ring never refreshes).
      const snapshot = await ownership.cluster.snapshot();
      const session = new Map(snapshot.members.map((m) => [m.id, m]));
      const members = shown.members.map((m) => ({
        ...m,
        alive: session.get(m.id)?.alive ?? false,
        sessionExpiresAtMs: session.get(m.id)?.sessionExpiresAtMs ?? null,
      }));
      const offRing = snapshot.members
        .filter((m) => !m.alive)
        .map((m) => ({
          id: m.id,
          weight: m.weight,
          sessionExpiresAtMs: m.sessionExpiresAtMs ?? null,
        }));
      if (flags.json) return writeJson(ctx.stdout, { ...shown, members, offRing });
      const nowMs = await redisNowMs(redis);
      const expires = (at: number | null) => (at === null ? '-' : relative(at, nowMs));
      if (members.length === 0) {
        ctx.stdout.write(
          shown.membership === 'registry'
            ? `empty ring: no live pod in the registry (epoch ${shown.epoch})\n`
            : 'empty ring: no crawler pod has registered in this frontier yet\n',
        );
      } else {
        ctx.stdout.write(
          formatTable(members, [
            { header: 'pod', cell: (m) => m.id },
            { header: 'weight', cell: (m) => m.weight },
            { header: 'session expires', cell: (m) => expires(m.sessionExpiresAtMs) },
            { header: 'tokens', cell: (m) => m.tokens },
            { header: 'keyspace', cell: (m) => percent(m.keyspaceShare), align: 'right' },
            { header: 'live domains', cell: (m) => m.liveDomains },
            { header: 'share', cell: (m) => percent(m.liveDomainShare), align: 'right' },
          ]),
        );
      }
      for (const m of offRing) {
        ctx.stdout.write(
          `not on the ring: ${m.id} (weight ${m.weight}), session expired ${expires(m.sessionExpiresAtMs)}\n`,
        );
      }
      if (members.length === 0) return;
      const s = shown.sample;
      ctx.stdout.write(
        `\nepoch ${shown.epoch}, vnodes ${shown.vnodes}, seed ${shown.seed}, ${shown.tokenCount.toLocaleString('en-US')} tokens; membership: ${ownership.source}; live domains ${s.exact ? 'exact' : `estimated from ${s.sampled} of ${s.indexed}`}\n`,
      );
    });
  });
}
