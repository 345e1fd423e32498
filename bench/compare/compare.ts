/**
 * shardline against Crawlee and wget on the same site set (issue 8). For every D in `--hosts`
 * and every contender: a fresh test web (same seed ⇒ same sites) logging every request to
 * JSONL, the contender in its own process(es), its process tree sampled from /proc; then the
 * log is analysed (fetch counts, politeness violations, lost pages) against the ground truth.
 *
 *   node --import tsx bench/compare/compare.ts [--hosts 50,500] [--delay-ms 1000] [--pages 20]
 *     [--contenders shardline-1,shardline-3,crawlee,wget] [--kill] [--repeat 3]
 *     [--timeout-s 600] [--stall-s 120]
 *
 * `--kill`: kill -9 one crawler process once half the budget is fetched and restart it at once
 * (same pod id / same Crawlee storage / `wget --no-clobber`). `--repeat N`: N runs of every
 * row, then a table of medians with the min–max range of each figure.
 *
 * This file only orders the runs; one run is `run.ts`, its log's analysis `request-log.ts`,
 * the tables `report.ts`, the flags `options.ts`.
 */
import { parseOptions } from './options.js';
import { printReport } from './report.js';
import { type Row, runContender } from './run.js';

const options = parseOptions();
const rows: Row[] = [];
for (const hosts of options.hosts) {
  // Runs interleave the contenders, so a change in the machine's load hits all of them.
  for (let runNo = 1; runNo <= options.repeat; runNo++) {
    for (const contender of options.contenders) {
      console.error(
        `running D=${hosts} ${contender}${options.kill ? ' (kill -9 halfway)' : ''}, run ${runNo}/${options.repeat} …`,
      );
      const row = await runContender(hosts, contender, runNo, options);
      rows.push(row);
      // Each row as soon as it is measured, so a long run that is cut short keeps its figures.
      console.error(JSON.stringify({ ...row, rss: undefined }));
    }
  }
}
printReport(rows, options);
