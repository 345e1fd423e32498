/**
 * `shardline delay <host> <ms|default>`: sets a host's delay between request starts at run
 * time (URLFrontier's SetDelay). It lives in the host's Redis state, so every pod obeys it at
 * once and it survives restarts and handoffs; robots crawl-delay, backoff and the adaptive
 * delay still apply on top (the effective delay is their maximum).
 */
import { type Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../context.js';
import { hostOrUsage } from '../lib/domains.js';
import { writeJson } from '../lib/json-output.js';
import { type SessionFlags, withConnectionOptions, withSession } from '../lib/session.js';

/** Longest delay accepted: a day. */
const MAX_DELAY_MS = 86_400_000;

interface DelayFlags extends SessionFlags {
  json?: boolean;
}

/** `<ms|default>`: an integer of ms, or `default` (back to the crawl's delay): ms or null. */
export function parseDelay(value: string): number | null {
  if (value.trim() === 'default') return null;
  const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n > MAX_DELAY_MS) {
    throw new InvalidArgumentError(`expected ms from 0 to ${MAX_DELAY_MS}, or "default".`);
  }
  return n;
}

/** Registers `shardline delay`. */
export function registerDelayCommand(program: Command, ctx: CliContext): void {
  withConnectionOptions(
    program
      .command('delay')
      .description(
        "set a host's delay between request starts at run time, on every pod and in every crawl (politeness is per host, shared by all crawls)",
      )
      .argument('<host>', 'the host, e.g. www.bbc.co.uk (or a URL of it)')
      .argument('<ms>', 'delay in ms, or "default" for the crawl’s own', parseDelay)
      .option('--json', 'print the host state afterwards as JSON'),
  ).action(async (target: string, delayMs: number | null, flags: DelayFlags) => {
    const { host, domain } = hostOrUsage(target);
    await withSession(flags, async ({ reader, frontier, ownership }) => {
      await reader.requireDomain(domain);
      // The host is re-scored in its owner's due index.
      ownership.requirePods(`no pod owns ${host} to re-score it`);
      await frontier.setHostPolicy(host, { delayMs }, domain);
      const state = await frontier.inspector.hostState(domain, host);
      if (flags.json) return writeJson(ctx.stdout, { host, domain, delayMs: state.delayMs });
      ctx.stdout.write(
        `${host}: delay ${state.delayMs === null ? 'default' : `${state.delayMs} ms`}\n`,
      );
    });
  });
}
