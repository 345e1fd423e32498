/**
 * `shardline pause <domain>` / `shardline resume <domain>`: stop and restart claims from a
 * domain through the frontier (leases already out finish normally). With `--until TIME` the
 * pause ends by itself (URLFrontier's BlockQueueUntil); with `--host` it applies to one
 * host. Both live in the domain's Redis state, so they survive restarts and handoffs.
 */
import { DURATION_FORMS, parseDuration } from '@shardline/crawler/settings';
import { type Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../context.js';
import { CliError, CliErrorCode } from '../errors.js';
import { domainOrUsage, hostOrUsage } from '../lib/domains.js';
import { writeJson } from '../lib/json-output.js';
import { type SessionFlags, withConnectionOptions, withSession } from '../lib/session.js';

interface PauseFlags extends SessionFlags {
  json?: boolean;
  until?: number;
  host?: boolean;
}

/** `--until`: an ISO 8601 time, or a duration from now (`30m`, `2h`, `1d`). Epoch ms. */
export function parseUntil(value: string, nowMs = Date.now()): number {
  const duration = parseDuration(value);
  if (duration !== undefined) return nowMs + duration;
  const at = /^\d{4}-\d\d-\d\d/.test(value.trim()) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(at)) {
    throw new InvalidArgumentError(
      `expected an ISO 8601 time (2026-01-31T18:00:00Z) or ${DURATION_FORMS}.`,
    );
  }
  return at;
}

/** Registers `shardline pause` and `shardline resume`. */
export function registerPauseCommands(program: Command, ctx: CliContext): void {
  for (const paused of [true, false]) {
    const verb = paused ? 'pause' : 'resume';
    let command = program
      .command(verb)
      .description(
        paused
          ? 'stop claims from a domain in one crawl (--crawl-id; leases already out finish normally); --until blocks it instead, host-wide: in every crawl, ending by itself'
          : 'let claims from a paused domain of one crawl (--crawl-id) resume, and lift a block (--until), which is host-wide: in every crawl',
      )
      .argument(
        '<target>',
        'the domain key (registrable domain, e.g. bbc.co.uk), or a host with --host',
      )
      .option('--host', 'the target is one host (its other hosts go on)')
      .option('--json', 'print the domain state afterwards as JSON');
    if (paused) {
      command = command.option(
        '--until <time>',
        'block until an ISO 8601 time or for a duration (30m, 2h, 1d), then go on by itself',
        (value: string) => parseUntil(value),
      );
    }
    withConnectionOptions(command).action(async (target: string, flags: PauseFlags) => {
      if (paused && flags.host && flags.until === undefined) {
        throw new CliError(
          CliErrorCode.USAGE,
          'pause --host needs --until TIME: a host is blocked until a time.',
        );
      }
      const host = flags.host ? hostOrUsage(target) : undefined;
      const domain = host?.domain ?? domainOrUsage(target);
      await withSession(flags, async ({ reader, frontier, ownership }) => {
        await reader.requireDomain(domain);
        // Resuming and blocks re-score the domain's hosts in their owner's due index.
        ownership.requirePods(`no pod owns ${domain} to re-score its hosts`);
        const blockTarget = host ? { host: host.host } : { domain };
        if (flags.until !== undefined) await frontier.blockUntil(blockTarget, flags.until);
        else if (paused) await frontier.pause(domain);
        else {
          if (!host) await frontier.resume(domain);
          await frontier.blockUntil(blockTarget, 0);
        }
        const stats = await frontier.inspector.domainStats(domain);
        const blockedUntilMs = host
          ? (await frontier.inspector.hostState(domain, host.host)).blockedUntilMs
          : stats.blockedUntilMs;
        if (flags.json) {
          return writeJson(ctx.stdout, {
            domain,
            ...(host ? { host: host.host } : {}),
            paused: stats.paused,
            ...(blockedUntilMs > 0 ? { blockedUntil: new Date(blockedUntilMs).toISOString() } : {}),
            queued: stats.queued,
          });
        }
        const state =
          blockedUntilMs > 0
            ? `blocked until ${new Date(blockedUntilMs).toISOString()}`
            : stats.paused
              ? 'paused'
              : 'resumed';
        ctx.stdout.write(
          `${host?.host ?? domain}: ${state} (${stats.queued.toLocaleString('en-US')} queued)\n`,
        );
      });
    });
  }
}
