/**
 * The flags of `shardline crawl` and `shardline up` come from the crawler's settings table:
 * these tests fail when a flag drifts from its row (name, arity, meaning, help) or when a flag
 * users rely on disappears. Pure: commands are parsed, never run.
 */
import {
  defaultText,
  loadConfig,
  type PodSettingName,
  PROCESS_SETTINGS,
  podSettingRows,
  type Setting,
} from '@shardline/crawler';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerCrawlCommand } from '../src/commands/crawl.js';
import {
  addCrawlOptions,
  addPodSettingFlags,
  crawlArgs,
  podOptionsFromFlags,
} from '../src/local-cluster/crawl-flags.js';

/** `shardline crawl` flags users have, and the pod option each sets: a contract. */
const FLAG_CONTRACT: Record<string, PodSettingName> = {
  'pod-id': 'podId',
  'pod-weight': 'podWeight',
  'session-timeout-ms': 'sessionTimeoutMs',
  prefix: 'prefix',
  concurrency: 'concurrency',
  'per-host-concurrency': 'perHostConcurrency',
  'min-delay-ms': 'minDelayMs',
  'robots-retry-ms': 'robotsRetryMs',
  'robots-max-retries': 'robotsMaxRetries',
  'user-agent': 'userAgentToken',
  'contact-url': 'contactUrl',
  resolve: 'resolve',
  'allow-private-addresses': 'allowPrivateAddresses',
  'max-depth': 'maxDepth',
  'same-domain-only': 'sameDomainOnly',
  'max-pages-per-domain': 'maxPagesPerDomain',
  'results-jsonl': 'resultsJsonl',
  'enqueue-sitemaps': 'enqueueSitemaps',
  'exit-when-idle': 'exitWhenIdle',
};

/** `shardline crawl` flags that are not pod settings. */
const OTHER_CRAWL_FLAGS = [
  '--redis',
  '--redis-url',
  '--idle-grace-ms',
  '--redis-connect-timeout-ms',
  '--redis-cluster',
  '--health-port',
  '--data-dir',
  '--redis-port',
  '--seeds-file',
  '--progress',
  '--log-level',
];

/** The flag arguments and the environment text of one setting, meaning the same. */
function sample(s: Setting): { argv: string[]; env: string } {
  const flag = `--${s.flag}`;
  switch (s.kind) {
    case 'int':
      return { argv: [flag, '7'], env: '7' };
    case 'duration':
      return { argv: [flag, '90m'], env: '5400000' };
    case 'number':
      return { argv: [flag, '2.5'], env: '2.5' };
    case 'bool':
      return { argv: [flag], env: 'true' };
    case 'string':
      return { argv: [flag, 'x-1'], env: 'x-1' };
    case 'list':
    case 'patterns':
      return { argv: [flag, 'a,b', flag, 'c'], env: 'a,b,c' };
    case 'exit':
      return { argv: [flag, '--idle-grace-ms', '1500'], env: '1500' };
  }
}

function parseCrawlFlags(argv: string[]): Record<string, unknown> {
  const command = addPodSettingFlags(new Command('crawl').exitOverride());
  command.parse(argv, { from: 'user' });
  return command.opts();
}

function parseUp(argv: string[]): Record<string, unknown> {
  const command = addCrawlOptions(new Command('up').exitOverride());
  command.parse(argv, { from: 'user' });
  return command.opts();
}

describe('shardline crawl flags', () => {
  const program = new Command();
  registerCrawlCommand(program);
  const crawl = program.commands.find((c) => c.name() === 'crawl')!;
  const options = new Map(crawl.options.map((o) => [o.long, o]));

  it('has a flag for every pod setting, with its arity, env name and default in the help', () => {
    for (const [name, s] of podSettingRows()) {
      const option = options.get(`--${s.flag}`);
      expect(option, name).toBeDefined();
      expect(option!.required, name).toBe(s.kind !== 'bool' && s.kind !== 'exit');
      expect(option!.optional, name).toBe(false);
      expect(option!.description, name).toBe(`${s.doc} (env ${s.env}, default ${defaultText(s)})`);
    }
    for (const s of Object.values(PROCESS_SETTINGS)) {
      expect(options.get(`--${s.flag}`)?.description).toContain(`env ${s.env}`);
    }
  });

  it('keeps every flag users have, for the same option', () => {
    const byFlag = new Map(podSettingRows().map(([name, s]) => [s.flag, name]));
    for (const [flag, option] of Object.entries(FLAG_CONTRACT)) {
      expect(byFlag.get(flag), flag).toBe(option);
      expect(options.has(`--${flag}`), flag).toBe(true);
    }
    for (const flag of OTHER_CRAWL_FLAGS) expect(options.has(flag), flag).toBe(true);
  });

  it('gives each setting the value its environment variable gives', () => {
    for (const [, s] of podSettingRows()) {
      const { argv, env } = sample(s);
      expect(podOptionsFromFlags(parseCrawlFlags(argv)), s.flag).toEqual(
        loadConfig({ [s.env]: env }).pod,
      );
    }
    expect(podOptionsFromFlags(parseCrawlFlags(['--exit-when-idle']))).toEqual({
      exitWhenIdle: true,
    });
    expect(podOptionsFromFlags(parseCrawlFlags([]))).toEqual({});
  });

  it('rejects malformed values in one line naming the flag', () => {
    expect(() => parseCrawlFlags(['--concurrency', 'many'])).toThrow(
      '--concurrency must be a non-negative integer, got "many"',
    );
    expect(() => parseCrawlFlags(['--pod-weight', 'x'])).toThrow(/--pod-weight must be a number/);
    expect(() => podOptionsFromFlags(parseCrawlFlags(['--idle-grace-ms', '5']))).toThrow(
      '--idle-grace-ms needs --exit-when-idle',
    );
    // A pino level the logger would refuse later, as an internal error: the flag's choices.
    expect(options.get('--log-level')!.argChoices).toEqual(PROCESS_SETTINGS.logLevel.choices);
    expect(() => parseUp(['--log-level', 'loud'])).toThrow(
      "option '--log-level <value>' argument 'loud' is invalid. Allowed choices are fatal, error, warn, info, debug, trace, silent.",
    );
  });
});

describe('shardline up pass-through flags', () => {
  it("passes every setting but a pod's own to each pod, meaning what crawl makes of it", () => {
    for (const [name, s] of podSettingRows()) {
      const { argv } = sample(s);
      if (s.perPod) {
        expect(() => parseUp(argv), name).toThrow(/unknown option/);
        continue;
      }
      const args = crawlArgs(parseUp(argv));
      expect(podOptionsFromFlags(parseCrawlFlags(args)), name).toEqual(
        podOptionsFromFlags(parseCrawlFlags(argv)),
      );
    }
    expect(crawlArgs(parseUp(['--log-level', 'debug']))).toEqual(['--log-level', 'debug']);
  });

  it('takes --allow-private for --allow-private-addresses, on crawl, config and up', () => {
    expect(podOptionsFromFlags(parseCrawlFlags(['--allow-private']))).toEqual({
      allowPrivateAddresses: true,
    });
    expect(crawlArgs(parseUp(['--allow-private']))).toEqual(['--allow-private-addresses']);
  });

  it('checks values as crawl does, before any pod starts', () => {
    expect(() => parseUp(['--max-depth', '-1'])).toThrow(
      '--max-depth must be a non-negative integer, got "-1"',
    );
    expect(() => parseUp(['--prefix', ' '])).toThrow('--prefix must be a non-empty string');
  });
});
