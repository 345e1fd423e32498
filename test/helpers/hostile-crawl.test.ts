/**
 * sentTimeLog, which puts the pods' send times in place of the server's arrival stamps: a
 * result record written twice (the results stream is at-least-once across a Redis crash) is
 * one send; two sends with one arrival are still refused.
 */
import type { CrawlResult } from '@shardline/crawler';
import { describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../web/analysis.js';
import { sentTimeLog } from './hostile-crawl.js';

const arrival: RequestLogEntry = {
  host: 'site1.test',
  path: '/missing/8',
  method: 'GET',
  startMs: 1_000.8,
  endMs: 1_001,
  status: 404,
  bytes: 52,
  userAgent: 'shardline/0.1',
  remotePort: 50_000,
};

function result(startedAtMs: number, sentAtMs: number): CrawlResult {
  return {
    url: 'http://site1.test:8080/missing/8',
    pod: 'chaos-1',
    startedAtMs,
    sentAtMs,
  } as CrawlResult;
}

describe('sentTimeLog', () => {
  it('takes a result record written twice as one send', () => {
    const moved = sentTimeLog([arrival], [result(990, 1_000), result(990, 1_000)]);
    expect(moved).toEqual([{ ...arrival, startMs: 1_000 }]);
  });

  it('still refuses a send the server never saw', () => {
    expect(() => sentTimeLog([arrival], [result(990, 1_000), result(700, 710)])).toThrow(
      'site1.test/missing/8: sent at 710 but the server saw no request then',
    );
  });
});
