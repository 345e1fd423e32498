/**
 * The command line of `compare.ts`, parsed and checked in one place so that the harness and
 * the report get numbers and a contender list instead of commander's strings.
 */
import { Command } from 'commander';
import type { ContenderName } from './contenders.js';

export interface CompareOptions {
  /** Site set sizes D, in the order given. */
  hosts: number[];
  delayMs: number;
  /** Pages per host, handed to the test web as typed. */
  pages: string;
  contenders: ContenderName[];
  /** kill -9 one crawler process halfway and restart it. */
  kill: boolean;
  timeoutMs: number;
  stallMs: number;
  repeat: number;
}

export function parseOptions(): CompareOptions {
  const opts = new Command()
    .option('--hosts <list>', 'site set sizes D, comma-separated', '50')
    .option('--delay-ms <ms>', 'per-host delay d', '1000')
    .option('--pages <n>', 'pages per host', '20')
    .option('--contenders <list>', 'contenders', 'shardline-1,shardline-3,crawlee')
    .option('--kill', 'kill -9 one crawler process halfway and restart it')
    .option('--timeout-s <s>', 'give up on one run after this', '600')
    .option(
      '--stall-s <s>',
      'give up on one run once the test web has seen no request this long',
      '120',
    )
    .option('--repeat <n>', 'runs of every row; above 1 also prints medians and ranges', '1')
    .parse()
    .opts<{
      hosts: string;
      delayMs: string;
      pages: string;
      contenders: string;
      kill?: boolean;
      timeoutS: string;
      stallS: string;
      repeat: string;
    }>();
  const repeat = Number(opts.repeat);
  if (!Number.isInteger(repeat) || repeat < 1)
    throw new Error(`--repeat must be ≥ 1, got ${opts.repeat}`);
  return {
    hosts: opts.hosts.split(',').map(Number),
    delayMs: Number(opts.delayMs),
    pages: opts.pages,
    contenders: opts.contenders.split(',') as ContenderName[],
    kill: opts.kill === true,
    timeoutMs: Number(opts.timeoutS) * 1000,
    stallMs: Number(opts.stallS) * 1000,
    repeat,
  };
}
