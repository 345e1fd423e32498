/**
 * `npm run example`: the handler example end to end on the local test web. Starts the test web
 * (plain hosts on 127.0.0.1) and an embedded redis-server in a temp dir, crawls it with
 * `examples/extract-headings.mjs` as the page handler and WARC files on, then reads the items
 * back with `examples/read-items.mjs` (a consumer group) and indexes the WARC files.
 *
 *   node --conditions=@shardline/source --import tsx examples/crawl-test-web.ts [--hosts 5]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CrawlerPod } from '@shardline/crawler';
import { writeCdxj } from '@shardline/warc';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { startEmbeddedRedis } from '../services/cli/src/embedded-redis.js';
import { startTestWeb } from '../test/web/index.js';

const { values } = parseArgs({ options: { hosts: { type: 'string', default: '5' } } });
const dir = mkdtempSync(join(tmpdir(), 'shardline-example-'));
const web = await startTestWeb({ hosts: Number(values.hosts), behaviours: 'none' });
const embedded = await startEmbeddedRedis({ dataDir: join(dir, 'redis'), port: 0 });
const redis = new Redis(embedded.url, { maxRetriesPerRequest: null });
try {
  const pod = new CrawlerPod({
    redis,
    podId: 'example',
    minDelayMs: 50,
    resolve: web.resolveOverrides,
    handler: join(import.meta.dirname, 'extract-headings.mjs'),
    itemsJsonl: join(dir, 'items.jsonl'),
    warcDir: join(dir, 'warc'),
    exitWhenIdle: true,
    logger: pino({ level: 'warn' }),
  });
  await pod.seed(web.seeds);
  await pod.start();
  await pod.done;
  const stats = pod.stats();
  process.stderr.write(
    `crawled ${stats.fetched} pages, ${stats.items} items, ${stats.warc?.records ?? 0} WARC records in ${join(dir, 'warc')}\n`,
  );
  // The consumer-group reader, as a separate process would run it.
  const items = execFileSync(
    process.execPath,
    [join(import.meta.dirname, 'read-items.mjs'), '--redis', embedded.url, '--idle-ms', '500'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = items.trim().split('\n');
  process.stdout.write(`${lines.slice(0, 3).join('\n')}\n… ${lines.length} items\n`);
  const warcs = readdirSync(join(dir, 'warc')).map((name) => join(dir, 'warc', name));
  const cdxj: string[] = [];
  // Sorted, as a replay tool's index must be (pywb looks URLs up by binary search).
  await writeCdxj(warcs, (line) => cdxj.push(line), { sort: true });
  process.stdout.write(`CDXJ (${cdxj.length} lines), first: ${cdxj[0]}`);
} finally {
  redis.disconnect();
  await embedded.stop();
  await web.close();
  rmSync(dir, { recursive: true, force: true });
}
