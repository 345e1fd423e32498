/**
 * `shardline items` and `shardline results`: the streams a crawl writes — the items its page
 * handler pushed, and one result per fetch — as JSON lines, oldest first: the lines
 * `--items-jsonl` / `--results-jsonl` write, each with its stream `id` first, so `--after ID`
 * goes on from there. They read a running crawl's Redis, or a finished crawl's data dir (its
 * embedded Redis starts from its data, as for `stats`). `--follow` then waits for new entries
 * until Ctrl-C.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Cluster, Redis } from 'ioredis';
import type { CliContext } from '../context.js';
import { integerIn } from '../lib/parse.js';
import { type SessionFlags, withConnectionOptions, withSession } from '../lib/session.js';

interface StreamFlags extends SessionFlags {
  stream?: string;
  after?: string;
  limit?: number;
  follow?: boolean;
}

/** Entries read per call. */
const PAGE = 1000;
/** How long one blocking read of `--follow` waits before it asks again. */
const FOLLOW_BLOCK_MS = 5000;
/** A stream entry id: `<ms>-<seq>`, or `<ms>` alone. */
const STREAM_ID = /^\d{1,20}(-\d{1,20})?$/;

interface StreamKind {
  name: 'items' | 'results';
  description: string;
  /** The pod setting that names another stream. */
  setting: string;
  /** Its decoder, from the crawler package (loaded when the command runs, not for `--help`). */
  decoder: (crawler: typeof import('@shardline/crawler')) => (fields: readonly string[]) => object;
  /** Why the stream may not exist yet. */
  absent: string;
}

const KINDS: StreamKind[] = [
  {
    name: 'items',
    description:
      "the items a crawl's page handler pushed, as JSON lines (oldest first; --follow waits for more)",
    setting: '--items-stream',
    decoder: (crawler) => crawler.decodeItem,
    absent: 'items come from a page handler: crawl --handler FILE',
  },
  {
    name: 'results',
    description: 'one JSON line per fetch of a crawl (oldest first; --follow waits for more)',
    setting: '--results-stream',
    decoder: (crawler) => crawler.decodeResult,
    absent: 'no pod has fetched a page in this crawl yet',
  },
];

function streamId(value: string): string {
  if (!STREAM_ID.test(value)) {
    throw new InvalidArgumentError('expected a stream entry id such as 1764500000000-0.');
  }
  return value;
}

/** Registers `shardline items` and `shardline results`. */
export function registerStreamCommands(program: Command, ctx: CliContext): void {
  for (const kind of KINDS) {
    withConnectionOptions(
      program
        .command(kind.name)
        .description(kind.description)
        .addOption(
          new Option(
            '--stream <key>',
            `the stream, when the pods write another (${kind.setting}; default ‹prefix›:${kind.name}, ‹prefix›:c:‹crawl›:${kind.name} in a crawl)`,
          ),
        )
        .addOption(
          new Option('--after <id>', 'only entries after this stream id').argParser(streamId),
        )
        .addOption(
          new Option('--limit <n>', 'at most this many entries').argParser(
            integerIn(1, 1_000_000_000),
          ),
        )
        .option('--follow', 'after the last entry, wait for new ones until Ctrl-C'),
    ).action(async (flags: StreamFlags) => {
      await withSession(flags, async ({ redis, crawlPrefix }) => {
        const key = flags.stream ?? `${crawlPrefix}:${kind.name}`;
        if (!flags.follow && (await redis.exists(key)) === 0) {
          ctx.stderr.write(`note: there is no stream ${key} (${kind.absent})\n`);
          return;
        }
        const decode = kind.decoder(await import('@shardline/crawler'));
        await printStream(redis, key, decode, flags, ctx);
      });
    });
  }
}

async function printStream(
  redis: Redis | Cluster,
  key: string,
  decode: (fields: readonly string[]) => object,
  flags: StreamFlags,
  ctx: CliContext,
): Promise<void> {
  let left = flags.limit ?? Number.POSITIVE_INFINITY;
  let last = flags.after;
  const print = (entries: [string, string[]][]) => {
    for (const [id, fields] of entries.slice(0, left)) {
      ctx.stdout.write(`${JSON.stringify({ id, ...decoded(decode, fields) })}\n`);
      last = id;
      left -= 1;
    }
  };
  while (left > 0) {
    const entries = await redis.xrange(key, last ? `(${last}` : '-', '+', 'COUNT', PAGE);
    print(entries);
    if (entries.length < PAGE) break;
  }
  if (!flags.follow) return;
  // Ctrl-C ends the wait: the blocked read is cut short with the connection (withSession
  // closes it), and the command ends normally.
  let stopped = false;
  const stop = () => {
    stopped = true;
    redis.disconnect();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    while (left > 0 && !stopped) {
      const reply = (await redis
        .xread('COUNT', PAGE, 'BLOCK', FOLLOW_BLOCK_MS, 'STREAMS', key, last ?? '0-0')
        .catch((error: unknown) => {
          if (stopped) return null;
          throw error;
        })) as [string, [string, string[]][]][] | null;
      if (reply) print(reply[0]![1]);
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/** An entry as its JSONL line; one the pods did not write (a foreign writer) as its raw fields. */
function decoded(decode: (fields: readonly string[]) => object, fields: string[]): object {
  try {
    return decode(fields);
  } catch {
    const raw: Record<string, string> = {};
    for (let i = 0; i + 1 < fields.length; i += 2) raw[fields[i]!] = fields[i + 1]!;
    return { fields: raw };
  }
}
