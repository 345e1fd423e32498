/**
 * The Crawlee contender: one `CheerioCrawler` process with Crawlee's own request queue (its
 * memory storage, persisted under `CRAWLEE_STORAGE_DIR`), `sameDomainDelaySecs`,
 * `maxConcurrency` and `respectRobotsTxtFile`. Run by `compare.ts`:
 *
 *   node --import tsx bench/compare/crawlee-crawler.ts SEEDS_FILE DELAY_MS MAX_CONCURRENCY BUDGET
 *
 * `CRAWLEE_PURGE_ON_START=false` (the restart after kill -9) keeps the persisted queue.
 * The test web's hosts (`*.test`) resolve to 127.0.0.1 through a patched `dns.lookup`: Crawlee
 * (got-scraping) and its robots.txt fetch have no resolver hook of their own.
 */
import dns from 'node:dns';
import { readFileSync } from 'node:fs';
import { CheerioCrawler, LogLevel, log } from '@crawlee/cheerio';

const [seedsFile, delayMs, maxConcurrency, budget] = process.argv.slice(2);
if (!seedsFile || !delayMs || !maxConcurrency || !budget) {
  console.error('usage: crawlee-crawler.ts SEEDS_FILE DELAY_MS MAX_CONCURRENCY BUDGET');
  process.exit(2);
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;
const realLookup = dns.lookup.bind(dns) as (
  hostname: string,
  options: dns.LookupOptions,
  callback: LookupCallback,
) => void;
// Every `*.test` host is the test web on loopback (what `--resolve *.test:127.0.0.1` does for
// shardline); everything else goes to the real resolver.
const lookup = (
  hostname: string,
  options: dns.LookupOptions | number | LookupCallback,
  callback?: LookupCallback,
): void => {
  const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
  const opts: dns.LookupOptions =
    typeof options === 'object' ? options : typeof options === 'number' ? { family: options } : {};
  if (hostname.endsWith('.test')) {
    if (opts.all) cb(null, [{ address: '127.0.0.1', family: 4 }]);
    else cb(null, '127.0.0.1', 4);
    return;
  }
  realLookup(hostname, opts, cb);
};
(dns as unknown as { lookup: typeof lookup }).lookup = lookup;

log.setLevel(LogLevel.WARNING);
const seeds = readFileSync(seedsFile, 'utf8').split('\n').filter(Boolean);
const crawler = new CheerioCrawler({
  sameDomainDelaySecs: Number(delayMs) / 1000,
  maxConcurrency: Number(maxConcurrency),
  maxRequestsPerCrawl: Number(budget),
  respectRobotsTxtFile: true,
  maxRequestRetries: 3,
  async requestHandler({ enqueueLinks }) {
    // Every link on the test web points at one of its hosts; 'all' follows cross-host links
    // (the default strategy stays on the page's hostname).
    await enqueueLinks({ strategy: 'all' });
  },
});
const stats = await crawler.run(seeds);
console.error(
  JSON.stringify({
    crawlee: { finished: stats.requestsFinished, failed: stats.requestsFailed },
  }),
);
