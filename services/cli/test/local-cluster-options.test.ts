/** `up`'s pass-through crawl options and the `status` text: pure functions, no I/O. */

import { redisLabel } from '@shardline/frontier';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { ClusterFile } from '../src/local-cluster/control-file.js';
import { addCrawlOptions, crawlArgs } from '../src/local-cluster/crawl-flags.js';
import { formatStatus, formatUptime } from '../src/local-cluster/format.js';

function parse(argv: string[]): Record<string, unknown> {
  const command = addCrawlOptions(new Command('up').exitOverride().option('--pods <n>'));
  command.parse(argv, { from: 'user' });
  return command.opts();
}

describe('crawlArgs', () => {
  it('rebuilds the crawl flags given to up, repeatable ones in order, and nothing else', () => {
    const flags = parse([
      '--pods',
      '3',
      '--resolve',
      '*.test:127.0.0.1',
      '--min-delay-ms',
      '10',
      '--resolve',
      'x.test:127.0.0.2',
      '--same-domain-only',
      '--contact-url',
      'https://example.org/bot',
      '--exit-when-idle',
    ]);
    expect(crawlArgs(flags)).toEqual([
      '--min-delay-ms',
      '10',
      '--contact-url',
      'https://example.org/bot',
      '--resolve',
      '*.test:127.0.0.1',
      '--resolve',
      'x.test:127.0.0.2',
      '--same-domain-only',
      '--exit-when-idle',
    ]);
    expect(crawlArgs(parse(['--exit-when-idle', '--idle-grace-ms', '500']))).toEqual([
      '--exit-when-idle',
      '--idle-grace-ms',
      '500',
    ]);
    expect(crawlArgs(parse(['--pods', '2']))).toEqual([]);
  });

  it('rejects a malformed number before any pod starts', () => {
    expect(() => parse(['--min-delay-ms', 'soon'])).toThrow(
      /--min-delay-ms must be a non-negative integer, got "soon"/,
    );
    expect(() => crawlArgs(parse(['--idle-grace-ms', '2s']))).toThrow(/--idle-grace-ms/);
  });
});

describe('formatStatus', () => {
  it('prints one aligned row per pod with pid, state, uptime, restarts and last exit', () => {
    const now = 1_000_000_000;
    const file: ClusterFile = {
      version: 1,
      supervisorPid: 10,
      port: 1,
      token: 'secret',
      dataDir: '/d',
      startedAtMs: now - 3_725_000,
      redis: { url: 'redis://:pw@127.0.0.1:7000', embedded: true },
      graceMs: 35_000,
      pods: [
        {
          id: 'local-0',
          index: 0,
          pid: 123,
          state: 'running',
          startedAtMs: now - 65_000,
          restarts: 0,
        },
        { id: 'local-1', index: 1, state: 'failed', restarts: 5, lastExit: 'code 2' },
      ],
    };
    expect(formatStatus(file, now)).toBe(
      'local cluster in /d: supervisor pid 10, up 1h02m, redis redis://:***@127.0.0.1:7000 (embedded), 2 pod(s)\n' +
        'POD      PID  STATE    UPTIME  RESTARTS  LAST EXIT\n' +
        'local-0  123  running  1m05s   0         -\n' +
        'local-1  -    failed   -       5         code 2\n',
    );
  });

  it('formats uptimes and hides passwords', () => {
    expect([formatUptime(0), formatUptime(59_999), formatUptime(61_000)]).toEqual([
      '0s',
      '59s',
      '1m01s',
    ]);
    expect(redisLabel({ url: 'redis://127.0.0.1:6400' })).toBe('redis://127.0.0.1:6400');
    expect(redisLabel({ url: 'rediss://user:pw@host:6400/0' })).toBe(
      'rediss://user:***@host:6400/0',
    );
    expect(redisLabel({ url: 'not a url' })).toBe('not a url');
    expect(
      redisLabel({
        url: 'redis://x:1',
        clusterNodes: [
          { host: 'a', port: 1 },
          { host: 'b', port: 2 },
        ],
      }),
    ).toBe('cluster a:1,b:2');
  });
});
