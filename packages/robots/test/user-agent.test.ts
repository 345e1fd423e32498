import { describe, expect, it } from 'vitest';
import { agentKeyOfLine, isValidProductToken, productToken } from '../src/user-agent.js';

describe('isValidProductToken (ID_VerifyValidUserAgentsToObey)', () => {
  it.each([
    ['Foobot', true],
    ['Foobot-Bar', true],
    ['Foo_Bar', true],
    ['', false],
    ['ツ', false],
    ['Foobot*', false],
    [' Foobot ', false],
    ['Foobot/2.1', false],
    ['Foobot Bar', false],
  ])('%j → %s', (value, valid) => {
    expect(isValidProductToken(value)).toBe(valid);
  });
});

describe('productToken', () => {
  it.each([
    ['shardline/0.1 (+https://example.com/bot)', 'shardline'],
    ['ExampleBot', 'ExampleBot'],
    ['Foo Bar', 'Foo'],
    ['Googlebot-Image/1.0', 'Googlebot-Image'],
    ['/x', ''],
    ['', ''],
  ])('%j → %j', (value, token) => {
    expect(productToken(value)).toBe(token);
  });
});

describe('agentKeyOfLine', () => {
  it.each([
    ['*', '*'],
    ['* all of you', '*'],
    ['*\tbots', '*'],
    ['*bot', undefined],
    ['FooBot/1.0', 'foobot'],
    ['FOO BAR', 'foo'],
    ['ツ', undefined],
  ])('%j → %j', (value, key) => {
    expect(agentKeyOfLine(value)).toBe(key);
  });
});
