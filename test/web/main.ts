/**
 * Standalone test web for the demo and benchmarks:
 *
 *   npx tsx test/web/main.ts --hosts 200 --seed 1 [--port P] [--behaviours none|default-mix]
 *     [--log FILE] [--ground-truth FILE] [--seeds-file FILE]
 *
 * Prints one JSON line `{"port","seeds"|"seedsFile","resolve","hosts"}` on stdout once it
 * listens, serves until SIGTERM/SIGINT, and streams the request log as JSONL to `--log`
 * (one line per finished request, appended).
 */
import { createWriteStream, writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { startTestWeb } from './server.js';

function int(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError(`not an integer: ${value}`);
  return n;
}

const program = new Command('test-web')
  .description('Serve the shardline test web on 127.0.0.1')
  .option('--hosts <n>', 'number of siteN.test hosts', int, 200)
  .option('--seed <n>', 'generator seed', int, 1)
  .option('--port <n>', 'port (0 = a free one)', int, 0)
  .option('--host <ip>', 'interface to listen on', '127.0.0.1')
  .option('--behaviours <mix>', 'default-mix or none', 'default-mix')
  .option('--pages <min,max>', 'pages per host, e.g. 5,30')
  .option('--cross-link-ratio <r>', 'fraction of links to other hosts', Number)
  .option('--robots-delay-ms <ms>', 'hold time of robots-timeout hosts', int)
  .option('--slow-ms <ms>', 'delay of slow pages', int)
  .option('--drip-ms <ms>', 'duration of drip pages', int)
  .option('--huge-body-bytes <n>', 'size of huge pages', int)
  .option('--log <file>', 'append the request log as JSONL')
  .option('--ground-truth <file>', 'write the ground truth as JSON')
  .option('--user-agent-token <token>', 'robots token for --ground-truth', 'shardline')
  .option('--max-depth <n>', 'depth limit for --ground-truth', int)
  .option('--seeds-file <file>', 'write seeds there (one per line) instead of inline')
  .parse();

const opts = program.opts<{
  hosts: number;
  seed: number;
  port: number;
  host: string;
  behaviours: string;
  pages?: string;
  crossLinkRatio?: number;
  robotsDelayMs?: number;
  slowMs?: number;
  dripMs?: number;
  hugeBodyBytes?: number;
  log?: string;
  groundTruth?: string;
  userAgentToken: string;
  maxDepth?: number;
  seedsFile?: string;
}>();

if (opts.behaviours !== 'default-mix' && opts.behaviours !== 'none') {
  program.error(`--behaviours must be default-mix or none; got ${opts.behaviours}`);
}
let pagesPerHost: [number, number] | undefined;
if (opts.pages !== undefined) {
  const [min, max = min] = opts.pages.split(',').map(Number);
  pagesPerHost = [min as number, max as number];
}

const logStream = opts.log === undefined ? undefined : createWriteStream(opts.log, { flags: 'a' });
const web = await startTestWeb({
  hosts: opts.hosts,
  seed: opts.seed,
  port: opts.port,
  host: opts.host,
  behaviours: opts.behaviours as 'default-mix' | 'none',
  ...(pagesPerHost && { pagesPerHost }),
  ...(opts.crossLinkRatio !== undefined && { crossLinkRatio: opts.crossLinkRatio }),
  ...(opts.robotsDelayMs !== undefined && { robotsDelayMs: opts.robotsDelayMs }),
  ...(opts.slowMs !== undefined && { slowMs: opts.slowMs }),
  ...(opts.dripMs !== undefined && { dripMs: opts.dripMs }),
  ...(opts.hugeBodyBytes !== undefined && { hugeBodyBytes: opts.hugeBodyBytes }),
  ...(logStream && {
    onRequestEnd: (entry) => {
      logStream.write(`${JSON.stringify(entry)}\n`);
    },
  }),
});
// Nothing in this process reads the in-memory log (the streamed one holds every entry):
// keep memory flat on long runs.
setInterval(() => web.clearLog(), 10_000).unref();

if (opts.groundTruth !== undefined) {
  const truth = web.groundTruth({
    userAgentToken: opts.userAgentToken,
    ...(opts.maxDepth !== undefined && { maxDepth: opts.maxDepth }),
  });
  writeFileSync(
    opts.groundTruth,
    JSON.stringify({
      reachableAllowed: [...truth.reachableAllowed],
      disallowedLinked: [...truth.disallowedLinked],
      notFollowed: [...truth.notFollowed],
      traps: web.traps,
    }),
  );
}

const ready: Record<string, unknown> = { port: web.port, resolve: web.resolveOverrides };
if (opts.seedsFile === undefined) {
  ready.seeds = web.seeds;
} else {
  writeFileSync(opts.seedsFile, `${web.seeds.join('\n')}\n`);
  ready.seedsFile = opts.seedsFile;
}
ready.hosts = web.hosts.length;
if (opts.groundTruth !== undefined) ready.groundTruthFile = opts.groundTruth;
process.stdout.write(`${JSON.stringify(ready)}\n`);

let stopping = false;
const stop = async (): Promise<void> => {
  if (stopping) return;
  stopping = true;
  await web.close();
  if (logStream) await new Promise<void>((resolve) => logStream.end(resolve));
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
