/**
 * The crawl report at wide-crawl scale: a crawl of a million seeds meets tens of thousands of
 * dead hosts. The log names the first hosts of each error code one by one, then one line per
 * power of ten of the code's failures (not a line per host), and what the report remembers
 * per host is bounded; the summary still counts every failure.
 */
import type { CrawlResult } from '@shardline/crawler';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import {
  CrawlReport,
  HOSTS_LOGGED_PER_CODE,
  MAX_FAILING_HOSTS_COUNTED,
  type SummaryStats,
} from '../src/lib/crawl-report.js';

function failure(host: string, code: string): CrawlResult {
  return {
    url: `http://${host}/`,
    host,
    domain: host,
    depth: 0,
    attempt: 1,
    pod: 'p',
    outcome: 'dead',
    status: 0,
    bytes: 0,
    truncated: false,
    links: 0,
    linksQueued: 0,
    startedAtMs: 0,
    endAtMs: 0,
    durationMs: 0,
    errorCode: code,
  };
}

const stats = (dead: number): SummaryStats => ({
  fetched: 0,
  bytes: 0,
  dead,
  robotsDisallowed: 0,
  robotsDeferred: 0,
  robotsFilteredLinks: 0,
});

function reportWithLog() {
  const lines: { msg: string; host?: string; failures?: number }[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { report: new CrawlReport(logger), lines };
}

describe('crawl report bounds', () => {
  it('logs the first hosts of a code one by one, then a line per power of ten of its failures', () => {
    const { report, lines } = reportWithLog();
    for (let i = 0; i < 5000; i++)
      report.observe(failure(`dead${i}.example`, 'SHARDLINE_ERR_FETCH_DNS'));
    const oneByOne = lines.filter((l) => l.msg.startsWith('fetch failed:'));
    expect(oneByOne).toHaveLength(HOSTS_LOGGED_PER_CODE);
    expect(oneByOne[0]!.host).toBe('dead0.example');
    const totals = lines.filter((l) => !l.msg.startsWith('fetch failed:')).map((l) => l.msg);
    expect(totals).toEqual([
      expect.stringMatching(/^SHARDLINE_ERR_FETCH_DNS: 100 failures so far/),
      expect.stringMatching(/^SHARDLINE_ERR_FETCH_DNS: 1000 failures so far/),
    ]);
    // Another code starts its own quota.
    report.observe(failure('refused.example', 'SHARDLINE_ERR_FETCH_CONNECT'));
    expect(lines.at(-1)!.msg).toMatch(/^fetch failed: http:\/\/refused\.example\//);
    const summary = report.summary(stats(5001));
    expect(summary.errors.SHARDLINE_ERR_FETCH_DNS!.count).toBe(5000);
    expect(summary.failingHosts).toBe(5001);
  });

  it('says a page handler failed, not a fetch', () => {
    const { report, lines } = reportWithLog();
    report.observe({ ...failure('h.example', 'SHARDLINE_ERR_HANDLER'), error: 'boom' });
    expect(lines.map((l) => l.msg)).toEqual([
      'page handler failed: http://h.example/: SHARDLINE_ERR_HANDLER (boom)',
    ]);
  });

  it('a host failing again and again still gets its own power-of-ten lines', () => {
    const { report, lines } = reportWithLog();
    for (let i = 0; i < 100; i++) report.observe(failure('flaky.example', 'http-503'));
    expect(lines.map((l) => l.failures)).toEqual([1, 10, 100]);
  });

  it('counts failing hosts up to a bound instead of remembering every one', () => {
    const { report } = reportWithLog();
    for (let i = 0; i < MAX_FAILING_HOSTS_COUNTED + 500; i++) {
      report.observe(failure(`h${i}.example`, 'SHARDLINE_ERR_FETCH_DNS'));
    }
    const summary = report.summary(stats(0));
    expect(summary.failingHosts).toBe(MAX_FAILING_HOSTS_COUNTED);
    expect(summary.errors.SHARDLINE_ERR_FETCH_DNS!.count).toBe(MAX_FAILING_HOSTS_COUNTED + 500);
  });
});
