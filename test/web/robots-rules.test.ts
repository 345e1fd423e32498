import { describe, expect, it } from 'vitest';
import { ROBOTS_PARSE_LIMIT_BYTES, ruleSetFor, ruleSetForBody } from './robots-rules.js';

describe('ruleSetFor (RFC 9309 matching for the ground truth)', () => {
  it('applies the longest match, and Allow wins a tie', () => {
    const rules = ruleSetFor(
      'User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /a/b/c\nAllow: /x\nDisallow: /x\n',
      'bot',
    );
    expect(rules.allows('/a')).toBe(false);
    expect(rules.allows('/a/b')).toBe(true);
    expect(rules.allows('/a/b/c/d')).toBe(false);
    expect(rules.allows('/x/y')).toBe(true);
    expect(rules.allows('/elsewhere')).toBe(true);
  });

  it('supports * anywhere and $ at the end, matched against path and query', () => {
    const rules = ruleSetFor(
      'User-agent: *\nDisallow: /*?\nDisallow: /*.pdf$\nAllow: /p/1$\nDisallow: /p/1\n',
      'bot',
    );
    expect(rules.allows('/p/3?v=1')).toBe(false);
    expect(rules.allows('/files/a.pdf')).toBe(false);
    expect(rules.allows('/files/a.pdf.html')).toBe(true);
    expect(rules.allows('/p/1')).toBe(true);
    expect(rules.allows('/p/12')).toBe(false);
  });

  it('picks the group naming the token (case-insensitive), merges repeated groups, else *', () => {
    const text =
      'User-agent: *\nDisallow: /star\n\nUser-agent: MyBot/2.1\nDisallow: /one\n\n' +
      'User-agent: other\nUser-agent: mybot\nDisallow: /two\n';
    const mine = ruleSetFor(text, 'mybot');
    expect(mine.allows('/one')).toBe(false);
    expect(mine.allows('/two')).toBe(false);
    expect(mine.allows('/star')).toBe(true);
    const theirs = ruleSetFor(text, 'nobody');
    expect(theirs.allows('/star')).toBe(false);
    expect(theirs.allows('/one')).toBe(true);
  });

  it('ignores rules before any user-agent, comments, and empty Disallow', () => {
    const rules = ruleSetFor(
      'Disallow: /early\nUser-agent: * # all\nDisallow:\n# Disallow: /c\n',
      'x',
    );
    expect(rules.allows('/early')).toBe(true);
    expect(rules.allows('/c')).toBe(true);
  });

  it('reads Crawl-delay of the chosen group', () => {
    expect(ruleSetFor('User-agent: *\nCrawl-delay: 2\n', 'x').crawlDelayS).toBe(2);
    expect(ruleSetFor('User-agent: y\nCrawl-delay: 2\n', 'x').crawlDelayS).toBeUndefined();
  });

  it('stops reading at the 500 KiB parse limit', () => {
    const head = 'User-agent: *\nDisallow: /early\n';
    const pad = '#'.repeat(ROBOTS_PARSE_LIMIT_BYTES - head.length - 1);
    const beyond = Buffer.from(`${head}${pad}\nDisallow: /late\n`);
    const within = Buffer.from(`${head}Disallow: /late\n${pad}\n`);
    expect(ruleSetForBody(beyond, 'x').allows('/late')).toBe(true);
    expect(ruleSetForBody(beyond, 'x').allows('/early')).toBe(false);
    expect(ruleSetForBody(within, 'x').allows('/late')).toBe(false);
  });
});
