/**
 * `shardline crawl list` and `shardline crawl delete ID`: the crawls (namespaces) of a
 * frontier with their counters, and deleting one crawl's keys in batches of domains (no
 * KEYS, no SCAN), resumable after a crash. Subcommands of `crawl`, whose own action runs a pod.
 */
import {
  CrawlDeleteRefusedError,
  deleteCrawlKeys,
  listCrawls,
  startCrawlDelete,
} from '@shardline/api/reader';
import { type Command, Option } from 'commander';
import type { CliContext } from '../context.js';
import { CliError, CliErrorCode } from '../errors.js';
import { writeJson } from '../lib/json-output.js';
import { crawlIdOption, integerIn, KEY_PREFIX_HELP, keyPrefixOption } from '../lib/parse.js';
import { type SessionFlags, withRedisOptions, withSession } from '../lib/session.js';
import { formatTable, plural } from '../lib/table.js';

interface ListFlags extends SessionFlags {
  json?: boolean;
}

interface DeleteFlags extends SessionFlags {
  force?: boolean;
  batch: number;
  json?: boolean;
}

/** Registers `list` and `delete` under the `crawl` command. */
export function registerCrawlAdminCommands(crawl: Command, ctx: CliContext): void {
  withRedisOptions(
    crawl
      .command('list')
      .description('the crawls of the frontier: state, live pods and counters')
      .option('--prefix <prefix>', KEY_PREFIX_HELP, keyPrefixOption)
      .option('--json', 'print one JSON document'),
  ).action(async (_: ListFlags, command: Command) => {
    // `crawl` itself takes --redis, --prefix…: commander hands them to it wherever they stand.
    const flags = command.optsWithGlobals<ListFlags>();
    await withSession(
      flags,
      async ({ redis, prefix }) => {
        const crawls = await listCrawls(redis, prefix);
        if (flags.json) return writeJson(ctx.stdout, { crawls });
        ctx.stdout.write(
          formatTable(crawls, [
            { header: 'crawl', cell: (c) => c.crawlId },
            { header: 'state', cell: (c) => c.state },
            {
              header: 'created',
              cell: (c) => (c.createdAtMs === null ? '-' : new Date(c.createdAtMs).toISOString()),
            },
            { header: 'live pods', cell: (c) => c.livePods },
            { header: 'domains', cell: (c) => c.domains },
            { header: 'queued', cell: (c) => c.queued },
            { header: 'in flight', cell: (c) => c.inFlight },
            { header: 'fetched', cell: (c) => c.fetched },
            { header: 'failed', cell: (c) => c.failed },
            { header: 'dead', cell: (c) => c.dead },
          ]),
        );
      },
      { noteUnknownCrawl: false },
    );
  });

  withRedisOptions(
    crawl
      .command('delete')
      .description(
        "delete every key of one crawl (queues, seen-sets, leases, counters, dead letters, ring, results and items streams) in batches of domains; never the hosts' politeness, which all crawls share. Run it again to finish after a crash",
      )
      .argument('<id>', 'the crawl to delete (not "default")', crawlIdOption)
      .option('--prefix <prefix>', KEY_PREFIX_HELP, keyPrefixOption)
      .option(
        '--force',
        'delete even while pods of the crawl are live (their new URLs are refused meanwhile; stop them)',
      )
      .addOption(
        new Option('--batch <n>', 'domains deleted per step')
          .argParser(integerIn(1, 10_000))
          .default(200),
      )
      .option('--json', 'print the totals as JSON'),
  ).action(async (id: string, _: DeleteFlags, command: Command) => {
    const flags = command.optsWithGlobals<DeleteFlags>();
    await withSession(
      flags,
      async ({ redis, prefix }) => {
        try {
          await startCrawlDelete(redis, prefix, id, flags.force === true);
        } catch (error) {
          if (error instanceof CrawlDeleteRefusedError) {
            throw new CliError(CliErrorCode.CRAWL, error.message);
          }
          throw error;
        }
        const totals = await deleteCrawlKeys(redis, prefix, id, {
          batchDomains: flags.batch,
          onBatch: (p) => {
            if (!flags.json) {
              ctx.stderr.write(
                `deleted ${plural(p.domains, 'domain')} (${plural(p.keys, 'key')})\n`,
              );
            }
          },
        });
        if (flags.json) return writeJson(ctx.stdout, { crawlId: id, ...totals });
        ctx.stdout.write(
          `crawl ${id} deleted: ${plural(totals.domains, 'domain')}, ${plural(totals.keys, 'key')} (hosts' politeness kept)\n`,
        );
      },
      { noteUnknownCrawl: false },
    );
  });
}
