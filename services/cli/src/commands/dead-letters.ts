/**
 * `shardline dead-letters [domain] [--limit N] [--requeue]`: lists a domain's dead letters
 * (newest first), or, without a domain, the domains that have any (most first, from the
 * frontier's dead-letter domains index: no scan); `--requeue` moves them back to the
 * queues through `frontier.requeueDeadLetters` (oldest first, at most --limit per domain).
 */
import { type Command, Option } from 'commander';
import type { CliContext } from '../context.js';
import { allDomainsWithDeadLetters, domainsWithDeadLetters } from '../lib/dead-letter-domains.js';
import { redisNowMs } from '../lib/domain-detail.js';
import { domainArgument } from '../lib/domains.js';
import { writeJson } from '../lib/json-output.js';
import { integerIn } from '../lib/parse.js';
import { type SessionFlags, withConnectionOptions, withSession } from '../lib/session.js';
import { formatTable, plural, relative } from '../lib/table.js';

interface DeadLetterFlags extends SessionFlags {
  limit: number;
  requeue?: boolean;
  json?: boolean;
}

/** Registers `shardline dead-letters`. */
export function registerDeadLetterCommand(program: Command, ctx: CliContext): void {
  withConnectionOptions(
    program
      .command('dead-letters')
      .description(
        "list a domain's dead letters (newest first), or the domains that have any; --requeue puts them back in the queues",
      )
      .argument(
        '[domain]',
        'the domain key; without it: every domain with dead letters',
        domainArgument,
      )
      .addOption(
        new Option(
          '--limit <n>',
          'dead letters listed (domains listed without a domain), or requeued per domain',
        )
          .argParser(integerIn(1, 1_000_000))
          .default(100),
      )
      .option('--requeue', 'move the dead letters back to their queues (oldest first)')
      .option('--json', 'print one JSON document'),
  ).action(async (domain: string | undefined, flags: DeadLetterFlags) => {
    await withSession(flags, async ({ reader, redis, frontier, ownership }) => {
      if (flags.requeue) {
        // Requeued URLs go to their owner's due index: refuse before touching anything.
        ownership.requirePods('requeued URLs have no owner');
        let targets: string[];
        if (domain === undefined) {
          targets = await allDomainsWithDeadLetters(frontier);
        } else {
          await reader.requireDomain(domain);
          targets = [domain];
        }
        const requeued: { domain: string; requeued: number }[] = [];
        for (const d of targets) {
          requeued.push({ domain: d, requeued: await frontier.requeueDeadLetters(d, flags.limit) });
        }
        const total = requeued.reduce((sum, r) => sum + r.requeued, 0);
        if (flags.json) return writeJson(ctx.stdout, { requeued: total, domains: requeued });
        for (const r of requeued) {
          ctx.stdout.write(`${r.domain}: requeued ${r.requeued.toLocaleString('en-US')}\n`);
        }
        ctx.stdout.write(
          `requeued ${plural(total, 'dead letter')} from ${plural(requeued.length, 'domain')}\n`,
        );
        return;
      }
      if (domain === undefined) {
        const { domains, more } = await domainsWithDeadLetters(frontier, flags.limit);
        if (flags.json) return writeJson(ctx.stdout, { domains, more });
        if (domains.length === 0) {
          ctx.stdout.write('no dead letters\n');
          return;
        }
        ctx.stdout.write(
          formatTable(domains, [
            { header: 'domain', cell: (d) => d.domain },
            { header: 'dead letters', cell: (d) => d.dead },
          ]),
        );
        if (more) ctx.stdout.write(`(first ${domains.length} domains shown; --limit N)\n`);
        return;
      }
      const page = await reader.deadLetters(domain, flags.limit, undefined);
      if (flags.json) return writeJson(ctx.stdout, page);
      if (page.items.length === 0) {
        ctx.stdout.write(`no dead letters for ${domain}\n`);
        return;
      }
      const nowMs = await redisNowMs(redis);
      ctx.stdout.write(
        formatTable(page.items, [
          { header: 'when', cell: (l) => relative(l.atMs, nowMs) },
          { header: 'reason', cell: (l) => l.reason },
          { header: 'status', cell: (l) => l.status },
          { header: 'attempts', cell: (l) => l.attempt },
          { header: 'url', cell: (l) => l.url },
          // Last: the failure in words (≤ 300 characters) may run past the screen.
          { header: 'error', cell: (l) => l.message },
        ]),
      );
      if (page.total !== null && page.total > page.items.length) {
        ctx.stdout.write(`(${page.items.length} of ${page.total} shown; --limit N)\n`);
      }
    });
  });
}
