import { describe, expect, it } from 'vitest';
import { countFetches, politenessViolations, type RequestLogEntry } from './analysis.js';

function entry(
  host: string,
  path: string,
  startMs: number,
  endMs: number,
  method = 'GET',
): RequestLogEntry {
  return {
    host,
    path,
    method,
    startMs,
    endMs,
    status: 200,
    bytes: 10,
    userAgent: 'x',
    remotePort: 1,
  };
}

describe('politenessViolations', () => {
  it('finds a gap shorter than minGapMs and an overlap beyond maxConcurrency on the same host', () => {
    const log = [entry('a.test', '/1', 1000, 1200), entry('a.test', '/2', 1050, 1100)];
    const found = politenessViolations(log, { minGapMs: 100, maxConcurrency: 1 });
    expect(found.map((v) => [v.host, v.kind])).toEqual([
      ['a.test', 'gap'],
      ['a.test', 'concurrency'],
    ]);
  });

  it('keeps hosts apart and accepts spaced, sequential requests', () => {
    const log = [
      entry('a.test', '/1', 1000, 1010),
      entry('b.test', '/1', 1001, 1500),
      entry('a.test', '/2', 1200, 1210),
      entry('b.test', '/2', 1600, 1610),
    ];
    expect(politenessViolations(log, { minGapMs: 150, maxConcurrency: 1 })).toEqual([]);
  });

  it('applies a per-host gap and the slack to gaps and overlaps', () => {
    const log = [
      entry('a.test', '/1', 0, 105),
      entry('a.test', '/2', 100, 150),
      entry('b.test', '/x', 0, 1),
    ];
    const gapOf = (host: string) => (host === 'a.test' ? 2000 : 0);
    expect(
      politenessViolations(log, { minGapMs: gapOf, maxConcurrency: 1, slackMs: 0 }).map(
        (v) => v.kind,
      ),
    ).toEqual(['gap', 'concurrency']);
    expect(politenessViolations(log, { minGapMs: 95, maxConcurrency: 1, slackMs: 10 })).toEqual([]);
  });

  it('treats an unfinished request as still in flight and skips robots unless asked', () => {
    const log = [
      entry('a.test', '/robots.txt', 0, 5),
      entry('a.test', '/1', 10, -1),
      entry('a.test', '/2', 5000, 5010),
    ];
    const found = politenessViolations(log, { minGapMs: 0, maxConcurrency: 1 });
    expect(found.map((v) => v.kind)).toEqual(['concurrency']);
    const withRobots = politenessViolations(log, {
      minGapMs: 100,
      maxConcurrency: 1,
      includeRobots: true,
    });
    expect(withRobots.filter((v) => v.kind === 'gap')).toHaveLength(1);
  });
});

describe('countFetches', () => {
  it('counts GETs per URL with query, excluding robots files and HEADs', () => {
    const log = [
      entry('a.test', '/p/1', 0, 1),
      entry('a.test', '/p/1', 2, 3),
      entry('a.test', '/p/1?v=1', 4, 5),
      entry('a.test', '/p/1', 6, 7, 'HEAD'),
      entry('a.test', '/robots.txt', 8, 9),
      entry('a.test', '/robots-real.txt', 8, 9),
    ];
    expect(countFetches(log, 99)).toEqual(
      new Map([
        ['http://a.test:99/p/1', 2],
        ['http://a.test:99/p/1?v=1', 1],
      ]),
    );
  });
});
