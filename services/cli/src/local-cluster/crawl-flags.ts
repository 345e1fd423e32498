/**
 * The `shardline crawl` options that `shardline up` accepts and hands unchanged to every
 * pod. Declared here (not taken as "unknown options") so `up --help` lists them and a typo
 * fails at once instead of crash-looping N pods.
 */
import { type Command, Option } from 'commander';
import { usageError } from '../errors.js';

type Kind = 'value' | 'int' | 'flag' | 'list' | 'optional-int';

interface Passthrough {
  flag: string;
  kind: Kind;
  description: string;
  /** The values a `value` option accepts (checked by `up`, as `crawl` checks them). */
  choices?: readonly string[];
}

const PASSTHROUGH: readonly Passthrough[] = [
  { flag: 'prefix', kind: 'value', description: 'Redis key prefix (env KEY_PREFIX, default sl)' },
  { flag: 'concurrency', kind: 'int', description: 'global fetch slots per pod' },
  { flag: 'per-host-concurrency', kind: 'int', description: 'requests in flight per host' },
  { flag: 'min-delay-ms', kind: 'int', description: 'minimum gap per host' },
  { flag: 'robots-retry-ms', kind: 'int', description: 'retry an unreachable robots.txt after' },
  {
    flag: 'robots-max-retries',
    kind: 'int',
    description: 'unreachable robots.txt retries before dead letters',
  },
  { flag: 'user-agent', kind: 'value', description: 'User-Agent product token' },
  { flag: 'contact-url', kind: 'value', description: 'contact URL in the User-Agent' },
  { flag: 'resolve', kind: 'list', description: 'DNS override host:addr, repeatable' },
  {
    flag: 'allow-private-addresses',
    kind: 'flag',
    description: 'allow private/loopback addresses',
  },
  { flag: 'max-depth', kind: 'int', description: 'deepest link depth' },
  { flag: 'same-domain-only', kind: 'flag', description: 'follow links to the same domain only' },
  { flag: 'max-pages-per-domain', kind: 'int', description: 'URLs accepted per domain' },
  { flag: 'enqueue-sitemaps', kind: 'flag', description: 'enqueue the sitemaps robots.txt lists' },
  {
    flag: 'exit-when-idle',
    kind: 'optional-int',
    description: 'pods stop once idle (a pod that exits 0 is not restarted)',
  },
  { flag: 'log-level', kind: 'value', description: 'pino level of the pods' },
];

function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function checkInt(flag: string, value: string): string {
  if (!/^\d+$/.test(value.trim())) {
    throw usageError(`--${flag} must be a non-negative integer, got ${JSON.stringify(value)}`);
  }
  return value.trim();
}

/** Adds the passed-through crawl options to `command` (under a "crawl options" help group). */
export function addCrawlOptions(command: Command): Command {
  for (const { flag, kind, description, choices } of PASSTHROUGH) {
    const option =
      kind === 'flag'
        ? new Option(`--${flag}`, description)
        : kind === 'optional-int'
          ? new Option(`--${flag} [graceMs]`, description)
          : new Option(`--${flag} <${kind === 'int' ? 'n' : 'value'}>`, description);
    if (kind === 'int') option.argParser((value: string) => checkInt(flag, value));
    if (choices) option.choices(choices);
    if (kind === 'list') {
      option.argParser((value: string, previous: string[] | undefined) => [
        ...(previous ?? []),
        value,
      ]);
    }
    command.addOption(option.helpGroup('Crawl options (passed to every pod):'));
  }
  return command;
}

/** Rebuilds the `shardline crawl` arguments from the parsed options of `up`. */
export function crawlArgs(flags: Record<string, unknown>): string[] {
  const args: string[] = [];
  for (const { flag, kind } of PASSTHROUGH) {
    const value = flags[camel(flag)];
    if (value === undefined || value === false) continue;
    if (kind === 'list') {
      for (const item of value as string[]) args.push(`--${flag}`, item);
    } else if (value === true) {
      args.push(`--${flag}`);
    } else {
      args.push(
        `--${flag}`,
        kind === 'optional-int' ? checkInt(flag, String(value)) : String(value),
      );
    }
  }
  return args;
}
