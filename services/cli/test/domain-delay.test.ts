/**
 * `shardline domain` says which delay the pods use for each host and why: their default, a
 * delay set at run time, adaptive growth (slow answers or 5xx, with the host's last response
 * time), a block until a time — read from the frontier's host state in Redis.
 */
import { RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { runCliWith } from './run-cli-with.js';

const PREFIX = 'dd';
const BUDGET_PREFIX = 'db';
const BLOCKED_UNTIL = Date.parse('2099-01-01T00:00:00.000Z');
let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  const frontier = new RedisFrontier({
    redis,
    prefix: PREFIX,
    ownerOf: () => 'pod-a',
    defaultDelayMs: 100,
    adaptiveDelay: true,
    // A short failure backoff, so the 503's doubled adaptive delay is what sets the delay.
    backoffBaseMs: 10,
  });
  await frontier.enqueue([
    'https://slow.example.com/1',
    'https://slow.example.com/2',
    'https://failing.example.com/1',
    'https://failing.example.com/2',
    'https://set.example.com/1',
    'https://blocked.example.com/1',
    'https://example.com/1',
  ]);
  const { leases } = await frontier.claim({ pod: 'pod-a', max: 10 });
  for (const lease of leases) {
    if (lease.host === 'slow.example.com') {
      // 400 ms × factor 5: the adaptive delay grows to 2 s.
      await frontier.complete(lease, { status: 200, durationMs: 400 });
      await redis.xadd(`${PREFIX}:results`, '*', ...resultFields(lease.url, lease.host, 400));
    } else if (lease.host === 'failing.example.com') {
      await frontier.fail(lease, {
        retryable: true,
        reason: 'http-503',
        status: 503,
        durationMs: 30,
      });
    } else {
      await frontier.release(lease);
    }
  }
  await frontier.setHostPolicy('set.example.com', { delayMs: 7000 });
  await frontier.blockUntil({ host: 'blocked.example.com' }, BLOCKED_UNTIL);
  // A crawl with a budget of one page an hour: one URL fetched, the other waits the hour.
  const budgeted = new RedisFrontier({
    redis,
    prefix: BUDGET_PREFIX,
    ownerOf: () => 'pod-a',
    domainBudget: { pages: 1, periodMs: 3_600_000 },
  });
  await budgeted.enqueue(['https://www.budget-example.com/1', 'https://www.budget-example.com/2']);
  for (const lease of (await budgeted.claim({ pod: 'pod-a', max: 10 })).leases) {
    await budgeted.complete(lease, { status: 200 });
  }
});

afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

function resultFields(url: string, host: string, durationMs: number): string[] {
  const fields = {
    url,
    host,
    domain: 'example.com',
    pod: 'pod-a',
    outcome: 'fetched',
    status: 200,
  };
  return [
    ...Object.entries({ ...fields, durationMs, endAtMs: Date.now() })
      .flat()
      .map(String),
  ];
}

describe('shardline domain: the delay and why', () => {
  it('names the source of each host delay, with the cause of adaptive growth', async () => {
    const result = await runCliWith([
      'domain',
      'example.com',
      '--json',
      '--redis',
      server.url,
      '--prefix',
      PREFIX,
      '--default-delay-ms',
      '100',
    ]);
    expect(result.stderr).toBe('');
    const detail = (
      JSON.parse(result.stdout) as {
        detail: { hosts: { host: string; delay: { effectiveMs: number; why: string } }[] };
      }
    ).detail;
    const byHost = new Map(detail.hosts.map((h) => [h.host, h.delay]));
    expect(byHost.get('slow.example.com')).toEqual(
      expect.objectContaining({
        effectiveMs: 2000,
        why: 'adaptive: grown by slow responses, last response 400 ms',
      }),
    );
    expect(byHost.get('failing.example.com')?.why).toMatch(/^adaptive: grown by 5xx\/timeouts/);
    expect(byHost.get('set.example.com')).toEqual(
      expect.objectContaining({ effectiveMs: 7000, why: 'set at run time (shardline delay)' }),
    );
    expect(byHost.get('blocked.example.com')?.why).toBe(
      "blocked until 2099-01-01T00:00:00.000Z; the pods' default delay",
    );
    expect(byHost.get('example.com')).toEqual(
      expect.objectContaining({ effectiveMs: 100, why: "the pods' default delay" }),
    );
  });

  it('prints the reason in the human table', async () => {
    const result = await runCliWith([
      'domain',
      'example.com',
      '--redis',
      server.url,
      '--prefix',
      PREFIX,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('adaptive: grown by slow responses, last response 400 ms');
    expect(result.stdout).toContain('set at run time (shardline delay)');
  });

  it('says when the domain waits on its spent budget, and until when', async () => {
    const args = ['domain', 'budget-example.com', '--redis', server.url, '--prefix', BUDGET_PREFIX];
    const json = await runCliWith([...args, '--json']);
    expect(json.stderr).toBe('');
    const shown = JSON.parse(json.stdout) as {
      budgetSpent: number;
      budgetRefillAtMs: number;
      detail: { hosts: { delay: { why: string } }[] };
    };
    expect(shown.budgetSpent).toBe(1);
    const refill = new Date(shown.budgetRefillAtMs).toISOString();
    expect(shown.detail.hosts[0]?.delay.why).toMatch(
      new RegExp(`^domain budget spent until ${refill}; default 1000 ms assumed`),
    );
    const human = await runCliWith(args);
    expect(human.stdout).toMatch(
      new RegExp(
        `budget +1 claimed this window; spent: its URLs wait until ${refill} \\(in (59|60)\\.\\d min\\)`,
      ),
    );
  });
});
