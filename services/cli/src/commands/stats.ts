/**
 * `shardline stats` and `shardline pods`: the frontier's global counters and the pods, read
 * through the API's `StatsReader` (the same figures `GET /v1/stats` and `/v1/pods` serve).
 */
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { redisNowMs } from '../lib/domain-detail.js';
import { writeJson } from '../lib/json-output.js';
import { type SessionFlags, withConnectionOptions, withSession } from '../lib/session.js';
import { formatPairs, formatTable, percent, relative } from '../lib/table.js';

interface ReadFlags extends SessionFlags {
  json?: boolean;
}

/** Registers `shardline stats` and `shardline pods`. */
export function registerStatsCommands(program: Command, ctx: CliContext): void {
  withConnectionOptions(
    program
      .command('stats')
      .description('global frontier counters (eventually consistent sums) and cluster totals')
      .option('--json', 'print one JSON document'),
  ).action(async (flags: ReadFlags) => {
    await withSession(flags, async ({ reader }) => {
      const stats = await reader.stats();
      if (flags.json) return writeJson(ctx.stdout, stats);
      const known = new Set(['queued', 'inFlight', 'fetched', 'failed', 'dead', 'repeats']);
      const extra = Object.entries(stats.counters)
        .filter(([name]) => !known.has(name))
        .sort(([a], [b]) => (a < b ? -1 : 1));
      if (stats.frontierLost) {
        const lost = stats.frontierLost;
        ctx.stdout.write(
          `FRONTIER LOST (SHARDLINE_ERR_FRONTIER_LOST): pod ${lost.pod} found at ${new Date(lost.atMs).toISOString()} that Redis lost the frontier it worked on (restart without persistence or flush); the counters below are not that crawl's\n`,
        );
      }
      ctx.stdout.write(
        formatPairs([
          ['pods', `${stats.pods} (${stats.livePods} live)`],
          ['membership', stats.membership],
          ['epoch', stats.epoch],
          ['domains', stats.domains],
          ['queued', stats.queued],
          ['in flight', stats.inFlight],
          ['fetched', stats.fetched],
          ['failed', stats.failed],
          ['dead', stats.dead],
          ['repeats', stats.repeats],
          ...extra,
        ]),
      );
    });
  });

  withConnectionOptions(
    program
      .command('pods')
      .description(
        'each pod: membership, ring tokens and keyspace share, due hosts, owned live domains, counters',
      )
      .option('--json', 'print one JSON document'),
  ).action(async (flags: ReadFlags) => {
    await withSession(flags, async ({ reader, ownership, redis }) => {
      const view = await reader.pods();
      if (flags.json) return writeJson(ctx.stdout, view);
      if (view.pods.length === 0) {
        ctx.stdout.write(
          view.membership === 'registry'
            ? `no pods: every pod has left the registry (epoch ${view.epoch})\n`
            : 'no pods: no crawler pod has registered in this frontier yet\n',
        );
        return;
      }
      const nowMs = await redisNowMs(redis);
      ctx.stdout.write(
        formatTable(view.pods, [
          { header: 'pod', cell: (p) => p.id },
          // alive | expired (session lapsed) | departed (left; listed until forgotten)
          { header: 'state', cell: (p) => p.state },
          { header: 'member', cell: (p) => p.member },
          { header: 'alive', cell: (p) => p.alive },
          { header: 'weight', cell: (p) => p.weight },
          {
            header: 'session expires',
            // Relative to Redis time, the clock the registry expires sessions by.
            cell: (p) =>
              p.sessionExpiresAtMs === null ? '-' : relative(p.sessionExpiresAtMs, nowMs),
          },
          { header: 'tokens', cell: (p) => p.tokens },
          { header: 'keyspace', cell: (p) => percent(p.keyspaceShare), align: 'right' },
          { header: 'due hosts', cell: (p) => p.dueHosts },
          { header: 'backlog', cell: (p) => p.backlogHosts },
          { header: 'live domains', cell: (p) => p.ownedDomains },
          { header: 'claimed', cell: (p) => p.counters.claimed ?? 0 },
          { header: 'fetched', cell: (p) => p.counters.fetched ?? 0 },
          { header: 'failed', cell: (p) => p.counters.failed ?? 0 },
          { header: 'in flight', cell: (p) => p.counters.inFlight ?? 0 },
        ]),
      );
      const s = view.sample;
      ctx.stdout.write(
        `\nmembership: ${ownership.source} (epoch ${view.epoch}); live domains ${s.exact ? 'exact' : `estimated from ${s.sampled.toLocaleString('en-US')} of ${s.indexed.toLocaleString('en-US')}`}\n`,
      );
    });
  });
}
