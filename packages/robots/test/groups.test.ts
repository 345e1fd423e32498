import { describe, expect, it } from 'vitest';
import { buildGroups, parseCrawlDelayMs } from '../src/groups.js';
import { parseDirectives } from '../src/lines.js';

const groupsOf = (body: string) => buildGroups(parseDirectives(body)).groups;

describe('buildGroups', () => {
  it('starts a group at a user-agent line that follows a rule, not at blank or other lines', () => {
    expect(
      groupsOf(
        'User-agent: a\n\nUser-agent: b\nFoo: bar\nSitemap: https://x.test/s\nUser-agent: c\nDisallow: /x\nUser-agent: d\nAllow: /y\n',
      ),
    ).toEqual([
      { agents: ['a', 'b', 'c'], allow: [], disallow: ['/x'] },
      { agents: ['d'], allow: ['/y'], disallow: [] },
    ]);
  });

  it('drops rules before the first user-agent and groups with no valid agent', () => {
    expect(
      groupsOf('Disallow: /\nUser-agent: ツ\nDisallow: /x\nUser-agent: a\nDisallow: /y\n'),
    ).toEqual([{ agents: ['a'], allow: [], disallow: ['/y'] }]);
  });

  it('deduplicates rules and keeps an empty rule as a member without a pattern', () => {
    expect(
      groupsOf('User-agent: a\nDisallow: /x\nDisallow: /x\nDisallow:\nUser-agent: b\n'),
    ).toEqual([
      { agents: ['a'], allow: [], disallow: ['/x'] },
      { agents: ['b'], allow: [], disallow: [] },
    ]);
  });

  it('adds the directory of an allowed index.htm(l) as an exact allow (Google)', () => {
    expect(
      groupsOf('User-agent: a\nAllow: /d/index.html\nAllow: /e/index.htm\nAllow: /f/index.php\n')[0]
        ?.allow,
    ).toEqual(['/d/index.html', '/d/$', '/e/index.htm', '/e/$', '/f/index.php']);
  });
});

describe('parseCrawlDelayMs', () => {
  it.each([
    ['10', 10_000],
    ['0.25', 250],
    ['.5', 500],
    ['3.', 3000],
    ['0', 0],
    ['1e3', undefined],
    ['-2', undefined],
    ['', undefined],
    ['NaN', undefined],
  ])('%j → %s', (value, ms) => {
    expect(parseCrawlDelayMs(value)).toBe(ms);
  });
});
