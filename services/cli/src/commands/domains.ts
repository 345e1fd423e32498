/**
 * `shardline domains` (a page of domains, deepest queue first) and `shardline domain <name>`
 * (one domain: counters, owner, each host's politeness state and robots, recent results).
 * Counters come from the API's `StatsReader`, host details from `lib/domain-detail.ts`.
 */
import { DOMAIN_SORTS, type DomainSort } from '@shardline/api/reader';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { CliContext } from '../context.js';
import { deadLettersCommand } from '../lib/dead-letters-command.js';
import { readDomainDetail } from '../lib/domain-detail.js';
import { domainArgument } from '../lib/domains.js';
import { writeJson } from '../lib/json-output.js';
import { integerIn } from '../lib/parse.js';
import { FALLBACK_DELAY_MS, type PodDelay, readPodDelay } from '../lib/pod-delay.js';
import { type SessionFlags, withConnectionOptions, withSession } from '../lib/session.js';
import { duration, formatPairs, formatTable, relative } from '../lib/table.js';

interface DomainsFlags extends SessionFlags {
  sort: DomainSort;
  limit: number;
  cursor?: string;
  json?: boolean;
}

interface DomainFlags extends SessionFlags {
  json?: boolean;
  hosts: number;
  scan: number;
  results: number;
  defaultDelayMs?: number;
  userAgent: string;
}

function sortOf(value: string): DomainSort {
  if (!(DOMAIN_SORTS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected one of ${DOMAIN_SORTS.join(', ')}.`);
  }
  return value as DomainSort;
}

/** Each pod's published politeness defaults, in one line. */
function podPolitenessText(delay: PodDelay): string {
  if (delay.pods.length === 0) return 'no pod running';
  return delay.pods
    .map((p) => {
      const parts = [`min delay ${duration(p.minDelayMs)}`];
      if (p.maxDelayMs !== undefined) parts.push(`max ${duration(p.maxDelayMs)}`);
      if (p.perHostConcurrency !== undefined) parts.push(`${p.perHostConcurrency} per host`);
      if (p.adaptiveDelay !== undefined) parts.push(`adaptive ${p.adaptiveDelay ? 'on' : 'off'}`);
      return `${p.pod}${p.alive ? '' : ' (not running)'}: ${parts.join(', ')}`;
    })
    .join('; ');
}

/** Registers `shardline domains` and `shardline domain`. */
export function registerDomainCommands(program: Command, ctx: CliContext): void {
  withConnectionOptions(
    program
      .command('domains')
      .description(
        'domains with their counters and owner, deepest queue (or most fetched, most errors) first',
      )
      .addOption(
        new Option(
          '--sort <order>',
          'depth (URLs queued), fetched (URLs fetched) or errors (failed attempts + dead letters)',
        )
          .argParser(sortOf)
          .default('depth'),
      )
      .addOption(
        new Option('--limit <n>', 'domains per page').argParser(integerIn(1, 1000)).default(20),
      )
      .option('--cursor <cursor>', 'continue after a previous page (printed as nextCursor)')
      .option('--json', 'print one JSON document'),
  ).action(async (flags: DomainsFlags) => {
    await withSession(flags, async ({ reader }) => {
      const page = await reader.domains(flags.sort, flags.limit, flags.cursor);
      if (flags.json) return writeJson(ctx.stdout, page);
      if (page.items.length === 0) {
        ctx.stdout.write('no domains\n');
        return;
      }
      ctx.stdout.write(
        formatTable(page.items, [
          { header: 'domain', cell: (d) => d.domain },
          { header: 'owner', cell: (d) => d.owner },
          { header: 'queued', cell: (d) => d.queued },
          { header: 'in flight', cell: (d) => d.inFlight },
          { header: 'fetched', cell: (d) => d.fetched },
          { header: 'failed', cell: (d) => d.failed },
          { header: 'dead', cell: (d) => d.dead },
          { header: 'hosts', cell: (d) => d.hostCount },
          { header: 'paused', cell: (d) => (d.paused ? 'paused' : '') },
        ]),
      );
      if (page.nextCursor) ctx.stdout.write(`\nmore: --cursor ${page.nextCursor}\n`);
    });
  });

  withConnectionOptions(
    program
      .command('domain')
      .description(
        'one domain: queue depth, owner pod, paused, per host the next allowed time, effective delay and what sets it, robots state; recent results',
      )
      .argument('<name>', 'the domain key (registrable domain, e.g. bbc.co.uk)', domainArgument)
      .addOption(
        new Option('--hosts <n>', 'hosts shown in detail')
          .argParser(integerIn(1, 1000))
          .default(50),
      )
      .addOption(
        new Option('--scan <n>', 'results stream entries scanned for recent results')
          .argParser(integerIn(1, 100_000))
          .default(200),
      )
      .addOption(
        new Option('--results <n>', 'recent results shown')
          .argParser(integerIn(0, 1000))
          .default(20),
      )
      .addOption(
        new Option(
          '--default-delay-ms <ms>',
          "the pods' default delay (MIN_DELAY_MS), for hosts without a configured one (default: what the pods publish in the registry)",
        ).argParser(integerIn(0, 86_400_000)),
      )
      .option(
        '--user-agent <token>',
        "the pods' User-Agent product token, whose robots.txt group sets the crawl-delay",
        'shardline',
      )
      .option('--json', 'print one JSON document'),
  ).action(async (name: string, flags: DomainFlags) => {
    await withSession(flags, async ({ reader, redis, frontier, prefix, crawlPrefix, crawlId }) => {
      const domain = await reader.domain(name);
      const pods =
        flags.defaultDelayMs === undefined
          ? await readPodDelay(redis, crawlPrefix, domain.owner ?? '')
          : undefined;
      const detail = await readDomainDetail(redis, frontier, name, domain.hosts, {
        prefix,
        crawlPrefix,
        maxHosts: flags.hosts,
        scanResults: flags.scan,
        maxResults: flags.results,
        defaultDelayMs: flags.defaultDelayMs ?? pods?.defaultDelayMs ?? FALLBACK_DELAY_MS,
        ...(pods ? { defaultWhy: pods.why } : {}),
        userAgentToken: flags.userAgent,
        domainHold: {
          paused: domain.paused,
          blockedUntilMs: domain.blockedUntilMs ?? 0,
          budgetRefillAtMs: domain.budgetRefillAtMs ?? 0,
        },
      });
      // Why URLs die here, without a second command: the newest dead letter's reason and words.
      const [newestDead] =
        domain.deadLettersKept > 0
          ? await frontier.inspector.deadLetters(domain.domain, { offset: 0, limit: 1 })
          : [];
      if (flags.json) {
        return writeJson(ctx.stdout, {
          ...domain,
          newestDeadLetter: newestDead ?? null,
          detail,
          ...(pods ? { podPoliteness: pods.pods } : {}),
        });
      }
      ctx.stdout.write(
        formatPairs([
          ['domain', domain.domain],
          ['owner', domain.owner],
          ...(domain.archived ? [archivedRow(domain.queued)] : []),
          ['paused', domain.paused],
          ['queued', domain.queued],
          ['in flight', domain.inFlight],
          ['fetched', domain.fetched],
          ['failed', domain.failed],
          [
            'dead',
            `${domain.dead.toLocaleString('en-US')} (${domain.deadLettersKept.toLocaleString('en-US')} kept)`,
          ],
          ...(newestDead
            ? [
                [
                  'newest dead',
                  `${newestDead.reason}${newestDead.message ? `: ${newestDead.message}` : ''} (${relative(newestDead.atMs, detail.nowMs)}, ${newestDead.url}; all: ${deadLettersCommand({ domain: domain.domain, prefix, crawlId })})`,
                ] as [string, string],
              ]
            : []),
          ['duplicates', domain.duplicates],
          ['over cap', domain.overCap],
          ['repeats', domain.repeats],
          ['hosts', domain.hostCount],
          ...(domain.budgetSpent > 0
            ? [['budget', budgetText(domain, detail.nowMs)] as [string, string]]
            : []),
          ...(pods ? [['pod politeness', podPolitenessText(pods)] as [string, string]] : []),
        ]),
      );
      if (detail.hosts.length > 0) {
        ctx.stdout.write('\n');
        ctx.stdout.write(
          formatTable(detail.hosts, [
            { header: 'host', cell: (h) => h.host },
            { header: 'queued', cell: (h) => h.queued },
            { header: 'in flight', cell: (h) => h.inFlight },
            {
              header: 'next allowed',
              cell: (h) =>
                h.nextAllowedInMs > 0 ? relative(h.nextAllowedAtMs, detail.nowMs) : 'now',
            },
            { header: 'delay', cell: (h) => duration(h.delay.effectiveMs), align: 'right' },
            { header: 'why', cell: (h) => h.delay.why },
            { header: 'failures', cell: (h) => h.delay.consecutiveFailures },
            {
              header: 'robots',
              cell: (h) =>
                h.robots.length === 0
                  ? 'not cached'
                  : h.robots
                      .map((r) =>
                        r.unreachable > 0
                          ? `${r.origin}: unreachable ${r.unreachable}× in a row (${r.reason ?? 'error'}), retry ${relative(r.expiresAtMs, detail.nowMs)}`
                          : `${r.origin}: ${r.source}${r.crawlDelayMs > 0 ? `, crawl-delay ${duration(r.crawlDelayMs)}` : ''}, expires ${relative(r.expiresAtMs, detail.nowMs)}`,
                      )
                      .join('; '),
            },
          ]),
        );
        if (domain.hostCount > detail.hostsListed) {
          ctx.stdout.write(
            `(${detail.hostsListed} of ${domain.hostCount} hosts shown; --hosts N)\n`,
          );
        }
      }
      ctx.stdout.write(
        `\nrecent results (${detail.recent.length} in the last ${detail.resultsScanned} entries of ${detail.resultsStream}):\n`,
      );
      if (detail.recent.length > 0) {
        ctx.stdout.write(
          formatTable(detail.recent, [
            { header: 'when', cell: (r) => relative(r.atMs, detail.nowMs) },
            { header: 'status', cell: (r) => r.status },
            { header: 'outcome', cell: (r) => r.outcome },
            { header: 'pod', cell: (r) => r.pod },
            { header: 'time', cell: (r) => duration(r.durationMs), align: 'right' },
            { header: 'url', cell: (r) => r.url },
            {
              header: 'error',
              cell: (r) => [r.errorCode, r.error].filter((part) => part !== undefined).join(': '),
            },
          ]),
        );
      }
    });
  });
}

/** The refilling budget's window (`--domain-budget`): what it handed out, and whether it waits. */
function budgetText(
  domain: { budgetSpent: number; budgetRefillAtMs: number },
  nowMs: number,
): string {
  const claimed = `${domain.budgetSpent.toLocaleString('en-US')} claimed this window`;
  return domain.budgetRefillAtMs > nowMs
    ? `${claimed}; spent: its URLs wait until ${new Date(domain.budgetRefillAtMs).toISOString()} (${relative(domain.budgetRefillAtMs, nowMs)})`
    : claimed;
}

/**
 * Why the domain is missing from `shardline domains`: its keys are folded into one field of an
 * archive hash, idle (all fetched) or packed (a wide crawl's small domain, its URLs waiting).
 */
function archivedRow(queued: number): [string, string] {
  if (queued > 0) {
    return ['packed', 'its URLs wait folded into one archive field until its owner claims them'];
  }
  return ['archived', 'idle, folded into one archive field (not listed); a new URL brings it back'];
}
