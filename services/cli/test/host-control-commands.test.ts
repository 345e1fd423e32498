/**
 * `shardline pause --until`, `resume --host` and `shardline delay`: each checked in what the
 * frontier's Redis state holds afterwards and in what a claim hands out.
 */
import { RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { parseUntil } from '../src/commands/pause.js';
import { hasStackTrace } from './run-cli.js';
import { runCliWith } from './run-cli-with.js';

const PREFIX = 'hc';
let server: RedisServer;
let redis: Redis;
let frontier: RedisFrontier;

const cli = (args: string[]) =>
  runCliWith([...args, '--redis', server.url, '--prefix', PREFIX, '--pods', 'pod-a']);

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  frontier = new RedisFrontier({
    redis,
    prefix: PREFIX,
    ownerOf: () => 'pod-a',
    defaultDelayMs: 0,
  });
  await frontier.enqueue([
    'https://www.blocked.com/1',
    'https://img.blocked.com/1',
    'https://slow.com/1',
    'https://slow.com/2',
  ]);
});

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

describe('host control commands', () => {
  it('pause --until blocks a domain until the time; resume lifts it', async () => {
    const result = await cli(['pause', 'blocked.com', '--until', '2h', '--json']);
    expect(result.stderr).toBe('');
    const out = JSON.parse(result.stdout) as { blockedUntil: string; paused: boolean };
    expect(out.paused).toBe(false);
    const until = Date.parse(out.blockedUntil);
    expect(until).toBeGreaterThan(Date.now() + 7_100_000);
    expect((await frontier.inspector.domainStats('blocked.com')).blockedUntilMs).toBe(until);
    const during = await frontier.claim({ pod: 'pod-a', max: 10 });
    expect(during.leases.filter((l) => l.domain === 'blocked.com')).toEqual([]);
    for (const lease of during.leases) await frontier.release(lease);

    const resumed = await cli(['resume', 'blocked.com']);
    expect(resumed.stdout).toBe('blocked.com: resumed (2 queued)\n');
    expect((await frontier.inspector.domainStats('blocked.com')).blockedUntilMs).toBe(0);
    const after = await frontier.claim({ pod: 'pod-a', max: 10 });
    expect(after.leases.filter((l) => l.domain === 'blocked.com')).toHaveLength(2);
    for (const lease of after.leases) await frontier.release(lease);
  });

  it('pause --host --until blocks one host; its sibling goes on', async () => {
    const at = '2099-01-01T00:00:00.000Z';
    const result = await cli(['pause', 'img.blocked.com', '--host', '--until', at]);
    expect(result.stdout).toBe(`img.blocked.com: blocked until ${at} (2 queued)\n`);
    const state = await frontier.inspector.hostState('blocked.com', 'img.blocked.com');
    expect(state.blockedUntilMs).toBe(Date.parse(at));
    const { leases } = await frontier.claim({ pod: 'pod-a', max: 10 });
    expect(leases.filter((l) => l.domain === 'blocked.com').map((l) => l.host)).toEqual([
      'www.blocked.com',
    ]);
    for (const lease of leases) await frontier.release(lease);
    await cli(['resume', 'img.blocked.com', '--host']);
    expect(
      (await frontier.inspector.hostState('blocked.com', 'img.blocked.com')).blockedUntilMs,
    ).toBe(0);
  });

  it('delay sets a host delay every claim obeys, and "default" removes it', async () => {
    const set = await cli(['delay', 'slow.com', '4000']);
    expect(set.stdout).toBe('slow.com: delay 4000 ms\n');
    expect((await frontier.inspector.hostState('slow.com', 'slow.com')).delayMs).toBe(4000);
    const { leases } = await frontier.claim({ pod: 'pod-a', max: 10 });
    // One URL of slow.com, the next one not before 4 s later.
    expect(leases.filter((l) => l.host === 'slow.com')).toHaveLength(1);
    const lease = leases.find((l) => l.host === 'slow.com')!;
    expect((await frontier.inspector.hostState('slow.com', 'slow.com')).nextAllowedAtMs).toBe(
      lease.claimedAtMs + 4000,
    );
    for (const l of leases) await frontier.release(l);
    const reset = await cli(['delay', 'slow.com', 'default', '--json']);
    expect(JSON.parse(reset.stdout)).toEqual({
      host: 'slow.com',
      domain: 'slow.com',
      delayMs: null,
    });
  });

  it('keys a host typed in upper case or as a URL as the crawler does', async () => {
    const typed = await cli(['delay', 'SLOW.COM.', '2500']);
    expect(typed.stdout).toBe('slow.com: delay 2500 ms\n');
    const url = await cli(['delay', 'https://Slow.com/2', '3500', '--json']);
    expect(JSON.parse(url.stdout)).toEqual({ host: 'slow.com', domain: 'slow.com', delayMs: 3500 });
    expect((await frontier.inspector.hostState('slow.com', 'slow.com')).delayMs).toBe(3500);
    const paused = await cli(['pause', 'IMG.Blocked.com', '--host', '--until', '1h']);
    expect(paused.stdout).toMatch(/^img\.blocked\.com: blocked until /);
    await cli(['resume', 'https://img.blocked.com/x', '--host']);
    expect(
      (await frontier.inspector.hostState('blocked.com', 'img.blocked.com')).blockedUntilMs,
    ).toBe(0);
    // Nothing kept under a key no claim reads.
    for (const pattern of ['*SLOW*', '*Slow*', '*IMG*', '*://*', '*.:*']) {
      expect(await redis.keys(`${PREFIX}:${pattern}`)).toEqual([]);
    }
    await cli(['delay', 'slow.com', 'default']);
  });

  it('bad input is one usage line naming the input, nothing written', async () => {
    const badHost = await cli(['delay', 'slow.com/x', '100']);
    expect(badHost.code).toBe(2);
    expect(badHost.stderr).toMatch(/^error: not a host or URL \(.+\): "slow\.com\/x"\n$/);
    const badUntil = await cli(['pause', 'blocked.com', '--until', 'tomorrowish']);
    expect(badUntil.code).toBe(2);
    expect(badUntil.stderr).toMatch(/--until <time>' argument 'tomorrowish' is invalid/);
    expect(hasStackTrace(badUntil.stderr)).toBe(false);
    const hostNoUntil = await cli(['pause', 'img.blocked.com', '--host']);
    expect(hostNoUntil.code).toBe(2);
    expect(hostNoUntil.stderr).toBe(
      'error: pause --host needs --until TIME: a host is blocked until a time.\n',
    );
    const badDelay = await cli(['delay', 'slow.com', '-5']);
    expect(badDelay.code).not.toBe(0);
    expect((await frontier.inspector.hostState('slow.com', 'slow.com')).delayMs).toBeNull();
    expect((await frontier.inspector.domainStats('blocked.com')).paused).toBe(false);
  });

  it('parseUntil reads durations from now and ISO times', () => {
    expect(parseUntil('30m', 1000)).toBe(1000 + 1_800_000);
    expect(parseUntil('2026-01-31T18:00:00Z')).toBe(Date.parse('2026-01-31T18:00:00Z'));
    expect(() => parseUntil('soon')).toThrow(/ISO 8601/);
  });
});
