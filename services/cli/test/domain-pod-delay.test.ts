/**
 * `shardline domain` shows the default delay the pods really run with: each pod publishes its
 * politeness defaults with its member record, and the command reads the owner's. A real pod
 * (MIN_DELAY_MS 300) joins a real Redis; the domain is paused first, so nothing is fetched.
 */
import { CrawlerPod } from '@shardline/crawler';
import { RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { choosePodDelay } from '../src/lib/pod-delay.js';
import { runCliWith } from './run-cli-with.js';

const PREFIX = 'pd';
const POD = 'local-0';
let server: RedisServer;
let redis: Redis;
let pod: CrawlerPod | undefined;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
  const frontier = new RedisFrontier({ redis, prefix: PREFIX, ownerOf: () => POD });
  await frontier.enqueue(['https://www.example.com/a']);
  await frontier.pause('example.com');
  pod = new CrawlerPod({
    redis,
    podId: POD,
    prefix: PREFIX,
    minDelayMs: 300,
    perHostConcurrency: 2,
    // Loopback is refused without allowPrivateAddresses: nothing leaves the machine.
    resolve: ['www.example.com:127.0.0.1'],
    exitWhenIdle: false,
    logger: pino({ level: 'silent' }),
  });
  await pod.start();
});

afterAll(async () => {
  await pod?.stop();
  await redis?.quit();
  await server?.stop();
});

function domainCommand(...extra: string[]) {
  return runCliWith(['domain', 'example.com', '--redis', server.url, '--prefix', PREFIX, ...extra]);
}

describe('shardline domain: the delay the pods really use', () => {
  it("shows the owner pod's MIN_DELAY_MS and says it is the pod default", async () => {
    const json = await domainCommand('--json');
    expect(json.stderr).toBe('');
    const doc = JSON.parse(json.stdout) as {
      owner: string;
      detail: { hosts: { host: string; delay: { effectiveMs: number; why: string } }[] };
      podPoliteness: unknown[];
    };
    expect(doc.owner).toBe(POD);
    expect(doc.detail.hosts).toEqual([
      expect.objectContaining({
        host: 'www.example.com',
        delay: expect.objectContaining({
          effectiveMs: 300,
          why: `domain paused; pod default (MIN_DELAY_MS of ${POD}, the domain's owner)`,
        }),
      }),
    ]);
    expect(doc.podPoliteness).toEqual([
      {
        pod: POD,
        alive: true,
        minDelayMs: 300,
        perHostConcurrency: 2,
        maxDelayMs: expect.any(Number),
        adaptiveDelay: expect.any(Boolean),
      },
    ]);

    const table = await domainCommand();
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/300 ms\s+domain paused; pod default \(MIN_DELAY_MS of local-0/);
    expect(table.stdout).toMatch(/pod politeness\s+local-0: min delay 300 ms, max .*, 2 per host/);
  });

  it('says no pod is running once the pod has left', async () => {
    await pod?.stop();
    pod = undefined;
    await vi.waitFor(
      async () => {
        const result = await domainCommand('--json');
        expect(result.stderr).toBe('');
        const doc = JSON.parse(result.stdout) as {
          detail: { hosts: { delay: { effectiveMs: number; why: string } }[] };
        };
        expect(doc.detail.hosts[0]?.delay).toEqual(
          expect.objectContaining({
            effectiveMs: 1000,
            why: expect.stringContaining('default 1000 ms assumed: no pod is running'),
          }),
        );
      },
      { timeout: 20_000, interval: 200 },
    );
  });
});

describe('choosePodDelay', () => {
  const pod = (id: string, minDelayMs: number, alive = true) => ({ pod: id, alive, minDelayMs });

  it('uses the live pods when the owner publishes nothing, and says when they differ', () => {
    expect(choosePodDelay([pod('a', 300), pod('b', 300)], 'c')).toMatchObject({
      defaultDelayMs: 300,
      why: 'pod default (MIN_DELAY_MS of a, b)',
    });
    expect(choosePodDelay([pod('a', 300), pod('b', 500)], 'c')).toMatchObject({
      defaultDelayMs: 500,
      why: 'pod default, the largest: pods differ (MIN_DELAY_MS a 300 ms, b 500 ms)',
    });
  });

  it("keeps the last pods' value when none is alive", () => {
    expect(choosePodDelay([pod('a', 250, false)], 'a')).toMatchObject({
      defaultDelayMs: 250,
      why: 'last pod default (no pod running now) (MIN_DELAY_MS of a)',
    });
  });
});
